package dev.rowqueue.tck;

import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.SchemaException;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Writes the compatibility report of every {@link RowQueueTck} subclass in a test run: one Markdown, one JSON and one
 * self-contained HTML file per database under test, and a summary, in {@code target/rowqueue-tck/} (or the directory
 * named by the JUnit configuration parameter or system property {@code rowqueue.tck.reportDir}, in that order). Each contract is PASSED, FAILED, SKIPPED (an optional contract whose
 * capability the dialect does not declare) or NOT RUN (the database could not be used here, e.g. no Docker engine).
 * A required contract that skips counts as a failure. When contracts fail, every report (and the summary line
 * printed at the end of the run) first lists the failures by root cause: one line per distinct error, with how many
 * contracts it failed and which (see {@link #rootCause(Throwable)}). Registered with the JUnit Platform through
 * {@code META-INF/services}, so it runs wherever the kit runs.
 */
public final class TckReportListener implements TestExecutionListener {

    /** The report directory property. */
    public static final String REPORT_DIR = "rowqueue.tck.reportDir";
    /** Configuration parameter: {@code true} leaves printing the summary line to the program that ran the kit. */
    public static final String QUIET = "rowqueue.tck.quiet";
    /**
     * Configuration parameter: the file, in the report directory, where the program that ran the kit put what was
     * logged during the run (the fault rules' expected warnings among it); the reports name it.
     */
    public static final String LOG = "rowqueue.tck.log";

    /** Status of one contract. */
    public enum Status {
        /** It held. */
        PASSED,
        /** It did not hold. */
        FAILED,
        /** An optional contract the dialect does not offer. */
        SKIPPED,
        /** The database could not be used in this run. */
        NOT_RUN
    }

    /** What a subclass told about its database, and the counter of the connections its run opened, if any. */
    record Target(String name, DatabaseInfo database, OpenedConnections connections) {
        /** A target whose connections are not counted. */
        Target(String name, DatabaseInfo database) {
            this(name, database, null);
        }

        /** @return the connections opened so far, as the report shows them */
        String connectionsOpened() {
            return connections == null ? "not counted (a data source of the target's own)"
                    : Long.toString(connections.opened());
        }
    }

    /**
     * One contract's outcome.
     *
     * @param contract the contract (a nested class's display name)
     * @param rule     the rule (a test's display name)
     * @param status   how it ended
     * @param detail   the first line of the failure's message, or why it did not run; empty when it passed
     * @param millis   how long it ran
     * @param cause    the failure's root cause as {@link #rootCause(Throwable)} gives it, else the detail
     */
    public record Outcome(String contract, String rule, Status status, String detail, long millis, String cause) {
        /**
         * An outcome whose root cause is its detail.
         *
         * @param contract the contract
         * @param rule     the rule
         * @param status   how it ended
         * @param detail   the message, or why it did not run
         * @param millis   how long it ran
         */
        public Outcome(String contract, String rule, Status status, String detail, long millis) {
            this(contract, rule, status, detail, millis, detail);
        }
    }

    /**
     * The outcome of one {@link RowQueueTck} subclass in the last run that included it, as written to the report.
     *
     * @param testClass the subclass's fully qualified name
     * @param verdict   PASSED, FAILED, INCOMPLETE (some contracts not run) or NOT RUN
     * @param summary   the one-line summary printed at the end of the run
     * @param counts    how many contracts ended in each status
     * @param markdown  the Markdown report
     * @param json      the JSON report
     * @param html      the self-contained HTML report
     * @param rootCauses the failures by root cause, as printed under the summary: a heading and one line per
     *                   distinct error; empty when nothing failed
     */
    public record Result(String testClass, String verdict, String summary, Map<Status, Long> counts, Path markdown,
                         Path json, Path html, List<String> rootCauses) {
        /** Copies the counts and root causes. */
        public Result {
            counts = Map.copyOf(counts);
            rootCauses = List.copyOf(rootCauses);
        }

        /** @return whether the verdict is PASSED: every required contract held, none failed or was left out */
        public boolean passed() {
            return "PASSED".equals(verdict);
        }
    }

    private static final Map<String, Target> TARGETS = new ConcurrentHashMap<>();
    private static final Map<String, Result> RESULTS = new ConcurrentHashMap<>();

    /**
     * The result of a TCK class in the last run of this JVM that included it: how a program that started the kit
     * through the JUnit Platform Launcher (such as {@code rowqueue tck}) learns the verdict.
     *
     * @param tckClass a {@link RowQueueTck} subclass
     * @return its last result, or empty if it has not run in this JVM
     */
    public static Optional<Result> result(Class<? extends RowQueueTck> tckClass) {
        return Optional.ofNullable(RESULTS.get(tckClass.getName()));
    }

    private volatile TestPlan plan;
    private final Map<String, Instant> started = new ConcurrentHashMap<>();
    private final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Map<String, String> notRun = new ConcurrentHashMap<>();
    /** Whether the current plan's reports are written (at its end, or earlier by {@link #writeUnfinished}). */
    private boolean written;

    /**
     * Called by {@link RowQueueTck} once its target is open.
     *
     * @param tckClass the subclass
     * @param name     the target's name
     * @param database what rowqueue detected
     * @param connections counts the connections the target opens, or {@code null}
     */
    static void describe(Class<?> tckClass, String name, DatabaseInfo database, OpenedConnections connections) {
        TARGETS.put(tckClass.getName(), new Target(name, database, connections));
    }

    /**
     * A new run: a build tool may run several test plans, one per test class, through one launcher and so through
     * this one listener; each plan writes the reports of its own targets once.
     */
    @Override
    public synchronized void testPlanExecutionStarted(TestPlan testPlan) {
        this.plan = testPlan;
        this.written = false;
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        started.put(id.getUniqueId(), Instant.now());
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        markNotRun(id, reason == null ? "disabled" : reason);
    }

    private void markNotRun(TestIdentifier id, String reason) {
        if (id.isTest()) {
            notRun.putIfAbsent(id.getUniqueId(), reason);
        }
        if (plan != null) {
            for (TestIdentifier child : plan.getChildren(id)) {
                markNotRun(child, reason);
            }
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (!id.isTest()) {
            if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL && plan != null) {
                String why = result.getStatus() == TestExecutionResult.Status.ABORTED
                        // an assumption, e.g. TckTargets.fromEnvironment without its variable: its message says why
                        ? result.getThrowable().map(Throwable::getMessage).orElse("aborted")
                        : "the target failed: " + result.getThrowable().map(t -> t.getClass().getSimpleName() + ": "
                                + t.getMessage()).orElse(result.getStatus().toString());
                for (TestIdentifier child : plan.getDescendants(id)) {
                    if (child.isTest() && !outcomes.containsKey(child.getUniqueId())) {
                        notRun.putIfAbsent(child.getUniqueId(), why);
                    }
                }
            }
            return;
        }
        Instant start = started.getOrDefault(id.getUniqueId(), Instant.now());
        long millis = Duration.between(start, Instant.now()).toMillis();
        String contract = plan.getParent(id).map(TestIdentifier::getDisplayName).orElse("");
        String rule = id.getDisplayName().replaceAll("\\(\\)$", "");
        boolean optional = methodName(id).startsWith("optional");
        String message = result.getThrowable().map(t -> firstLine(t.getMessage() == null ? t.toString()
                : t.getMessage())).orElse("");
        String cause = result.getThrowable().map(TckReportListener::rootCause).orElse(message);
        Status status = switch (result.getStatus()) {
            case SUCCESSFUL -> Status.PASSED;
            case FAILED -> Status.FAILED;
            case ABORTED -> optional ? Status.SKIPPED : Status.FAILED;
        };
        if (result.getStatus() == TestExecutionResult.Status.ABORTED && !optional) {
            message = "a required contract skipped: " + message;
            cause = "a required contract skipped: " + cause;
        }
        outcomes.put(id.getUniqueId(), new Outcome(contract, rule, status, message, millis, cause));
        if (status == Status.FAILED) {
            // the report groups causes; where it failed is in the log (rowqueue tck's ConfiguredTck.log)
            result.getThrowable().ifPresent(t -> {
                System.err.println(FAILED_MARK + contract + " / " + rule + ":");
                t.printStackTrace(System.err);
            });
        }
    }

    /** Starts the line before a failed rule's stack trace in the log. */
    public static final String FAILED_MARK = "rowqueue TCK rule failed: ";

    /**
     * The error a failure comes down to: its deepest cause, as {@code SimpleClassName: first line of the message},
     * with the SQLState and vendor code of an {@link SQLException}. A {@link SchemaException} that carries suppressed
     * errors (the DDL statements that failed before the table turned out to be missing) comes down to the first of
     * them.
     *
     * @param failure what a contract threw
     * @return its root cause, for grouping failures
     */
    static String rootCause(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Throwable t = failure;
        while (seen.add(t)) {
            Throwable deeper = t instanceof SchemaException && t.getSuppressed().length > 0 ? t.getSuppressed()[0]
                    : t.getCause();
            if (deeper == null) {
                break;
            }
            t = deeper;
        }
        String text = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + firstLine(t.getMessage()));
        return t instanceof SQLException e ? text + " [SQLState " + e.getSQLState() + ", vendor code "
                + e.getErrorCode() + "]" : text;
    }

    private static String methodName(TestIdentifier id) {
        return id.getSource().filter(MethodSource.class::isInstance).map(s -> ((MethodSource) s).getMethodName())
                .orElse("");
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        write(testPlan, "not executed in this run");
    }

    /**
     * Writes the reports now, while the run may still be going on: every rule that has not finished is NOT RUN with
     * the reason given, and the run's own end writes nothing more. How {@code rowqueue tck} ends with a report when
     * its time budget runs out or it is stopped by a signal.
     *
     * @param reason why the rules not finished did not run, e.g. "not finished: the time budget of 10m ran out"
     * @return whether reports were written now (false when the run had not started or its reports are written)
     */
    public boolean writeUnfinished(String reason) {
        TestPlan p = plan;
        return p != null && write(p, reason);
    }

    private synchronized boolean write(TestPlan testPlan, String notFinished) {
        if (written) {
            return false;
        }
        written = true;
        Map<String, List<TestIdentifier>> byTarget = new TreeMap<>();
        for (TestIdentifier root : testPlan.getRoots()) {
            for (TestIdentifier id : testPlan.getDescendants(root)) {
                if (id.isTest()) {
                    tckClass(testPlan, id).ifPresent(c -> byTarget.computeIfAbsent(c, k -> new ArrayList<>()).add(id));
                }
            }
        }
        if (byTarget.isEmpty()) {
            return false;
        }
        Path dir = Paths.get(testPlan.getConfigurationParameters().get(REPORT_DIR)
                .orElseGet(() -> System.getProperty(REPORT_DIR, "target/rowqueue-tck")));
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, List<TestIdentifier>> e : byTarget.entrySet()) {
                Report report = report(e.getKey(), e.getValue(), notFinished,
                        testPlan.getConfigurationParameters().get(LOG).orElse(null));
                String file = simpleName(e.getKey());
                Path md = dir.resolve(file + ".md");
                Path json = dir.resolve(file + ".json");
                Path html = dir.resolve(file + ".html");
                Files.writeString(md, report.markdown(), StandardCharsets.UTF_8);
                Files.writeString(json, report.json(), StandardCharsets.UTF_8);
                Files.writeString(html, report.html(), StandardCharsets.UTF_8);
                List<String> causes = report.rootCauseLines();
                Files.writeString(dir.resolve(file + ".summary"), report.summaryLine() + "\n"
                        + causes.stream().map(l -> "  " + l + "\n").collect(Collectors.joining()),
                        StandardCharsets.UTF_8);
                Map<Status, Long> counts = new java.util.EnumMap<>(Status.class);
                for (Status s : Status.values()) {
                    counts.put(s, report.count(s));
                }
                RESULTS.put(e.getKey(), new Result(e.getKey(), report.verdict(), report.summaryLine(), counts, md,
                        json, html, causes));
                if (!testPlan.getConfigurationParameters().getBoolean(QUIET).orElse(false)) {
                    System.out.println("rowqueue TCK: " + report.summaryLine());
                    causes.forEach(l -> System.out.println("rowqueue TCK:   " + l));
                }
            }
            writeSummary(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TCK report to " + dir, e);
        }
        return true;
    }

    /** Build tools may run each test class in a launcher of its own: the summary gathers every target's line. */
    private static void writeSummary(Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".summary")).sorted().collect(Collectors.toList())) {
                Files.readAllLines(p, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank())
                        .forEach(l -> lines.add("  " + l.stripTrailing()));
            }
        }
        Files.writeString(dir.resolve("summary.txt"), "rowqueue TCK compatibility (" + dir.toAbsolutePath() + ")\n"
                + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static Optional<String> tckClass(TestPlan plan, TestIdentifier id) {
        String found = null;
        for (Optional<TestIdentifier> p = plan.getParent(id); p.isPresent(); p = plan.getParent(p.get())) {
            Optional<TestSource> source = p.get().getSource();
            if (source.isPresent() && source.get() instanceof ClassSource cs) {
                try {
                    Class<?> type = Class.forName(cs.getClassName(), false,
                            Thread.currentThread().getContextClassLoader());
                    if (RowQueueTck.class.isAssignableFrom(type)) {
                        found = type.getName();
                    }
                } catch (ClassNotFoundException | LinkageError ignored) {
                    // not a class this run can load: not a TCK class
                }
            }
        }
        return Optional.ofNullable(found);
    }

    private Report report(String className, List<TestIdentifier> tests, String notFinished, String log) {
        List<Outcome> list = new ArrayList<>();
        for (TestIdentifier id : tests) {
            Outcome o = outcomes.get(id.getUniqueId());
            if (o == null) {
                String contract = plan.getParent(id).map(TestIdentifier::getDisplayName).orElse("");
                String why = notRun.getOrDefault(id.getUniqueId(), notFinished);
                o = new Outcome(contract, id.getDisplayName().replaceAll("\\(\\)$", ""), Status.NOT_RUN, why, 0);
            }
            list.add(o);
        }
        return new Report(simpleName(className), TARGETS.get(className), list, Instant.now(), log);
    }

    /**
     * One target's report.
     *
     * @param className the TCK class's simple name
     * @param target    what the class said about its database, or {@code null} if it never started
     * @param outcomes  every contract's outcome
     * @param runAt     when the report was made
     * @param log       the file next to the report holding what was logged during the run, or {@code null}
     */
    record Report(String className, Target target, List<Outcome> outcomes, Instant runAt, String log) {

        /** A report of a run whose log went wherever the build tool sends it. */
        Report(String className, Target target, List<Outcome> outcomes, Instant runAt) {
            this(className, target, outcomes, runAt, null);
        }

        /** What the row naming the log says about it. */
        private static final String LOG_NOTE = "what the rules, rowqueue and the driver logged during the run, such"
                + " as the warnings the fault rules provoke on purpose";

        /** How many of the rules an error failed are named before "+N more". */
        static final int RULES_SHOWN = 3;
        /** The kit's queue names ({@link TckEnv#newName()}), in any case, without the suffixes of their tables. */
        private static final Pattern QUEUE_NAME = Pattern.compile("(?<![A-Za-z0-9_])tck_[a-z0-9]{8}(?![a-z0-9])",
                Pattern.CASE_INSENSITIVE);
        /** A number on its own: not part of a word or code (42S02, ORA-00942), nor an SQLState or vendor code. */
        private static final Pattern NUMBER = Pattern.compile(
                "(?<![\\w.-])(?<!(?i:code|sqlstate) )\\d+(?:\\.\\d+)?(?![\\w])");

        /**
         * Failed rules that came down to one error.
         *
         * @param cause    the error, queue names and numbers replaced by {@code <queue>} and {@code #}
         * @param outcomes the failed rules, in report order
         */
        record RootCause(String cause, List<Outcome> outcomes) {
            /** @return the first {@link Report#RULES_SHOWN} rules, then "+N more" */
            String rules() {
                String shown = outcomes.stream().limit(RULES_SHOWN).map(Outcome::rule)
                        .collect(Collectors.joining(", "));
                int more = outcomes.size() - RULES_SHOWN;
                return more > 0 ? shown + " +" + more + " more" : shown;
            }
        }

        /**
         * @param cause a root cause
         * @return the cause with the kit's queue names and the numbers in it replaced by placeholders, so that one
         *         error hit with different queues, ids or counts reads the same
         */
        static String normalize(String cause) {
            String named = QUEUE_NAME.matcher(cause).replaceAll("<queue>");
            return NUMBER.matcher(named).replaceAll("#");
        }

        /** @return the failed rules grouped by normalized root cause, the most frequent first */
        List<RootCause> rootCauses() {
            Map<String, List<Outcome>> byCause = new LinkedHashMap<>();
            outcomes.stream().filter(o -> o.status() == Status.FAILED)
                    .forEach(o -> byCause.computeIfAbsent(normalize(o.cause()), k -> new ArrayList<>()).add(o));
            return byCause.entrySet().stream().map(e -> new RootCause(e.getKey(), e.getValue()))
                    .sorted(Comparator.comparingInt((RootCause c) -> c.outcomes().size()).reversed()).toList();
        }

        /** @return a heading and one line per root cause, for the console and the summary; empty if none failed */
        List<String> rootCauseLines() {
            List<RootCause> causes = rootCauses();
            if (causes.isEmpty()) {
                return List.of();
            }
            List<String> lines = new ArrayList<>();
            lines.add(rootCauseHeading(causes) + ":");
            causes.forEach(c -> lines.add("  " + c.outcomes().size() + " x " + c.cause() + " -- " + c.rules()));
            return lines;
        }

        private String rootCauseHeading(List<RootCause> causes) {
            return "Failures by root cause (" + count(Status.FAILED) + " failed, " + causes.size() + " distinct "
                    + (causes.size() == 1 ? "error" : "errors") + ")";
        }

        long count(Status s) {
            return outcomes.stream().filter(o -> o.status() == s).count();
        }

        String verdict() {
            if (count(Status.FAILED) > 0) {
                return "FAILED";
            }
            if (count(Status.PASSED) == 0) {
                return "NOT RUN";
            }
            return count(Status.NOT_RUN) > 0 ? "INCOMPLETE" : "PASSED";
        }

        String title() {
            if (target == null) {
                return className;
            }
            return target.name() + " — " + target.database().productName() + " " + target.database().productVersion()
                    + ", dialect " + target.database().dialect();
        }

        String reason() {
            return outcomes.stream().filter(o -> o.status() == Status.NOT_RUN).map(Outcome::detail).findFirst()
                    .orElse("");
        }

        String summaryLine() {
            String counts = count(Status.PASSED) + " passed, " + count(Status.FAILED) + " failed, "
                    + count(Status.SKIPPED) + " skipped (optional), " + count(Status.NOT_RUN) + " not run";
            return String.format("%-10s %s: %s%s", verdict(), title(), counts,
                    verdict().equals("NOT RUN") ? " (" + reason() + ")" : "");
        }

        String markdown() {
            StringBuilder b = new StringBuilder();
            b.append("# rowqueue TCK: ").append(title()).append("\n\n");
            b.append("**Verdict: ").append(verdict()).append("** (").append(count(Status.PASSED)).append(" passed, ")
                    .append(count(Status.FAILED)).append(" failed, ").append(count(Status.SKIPPED))
                    .append(" skipped, ").append(count(Status.NOT_RUN)).append(" not run)\n\n");
            b.append("| | |\n|---|---|\n");
            b.append("| Test class | `").append(className).append("` |\n");
            if (target != null) {
                DatabaseInfo db = target.database();
                b.append("| Database | ").append(db.productName()).append(' ').append(db.productVersion()).append(" |\n");
                b.append("| Driver | ").append(db.driver()).append(" |\n");
                b.append("| Dialect | ").append(db.dialect()).append(" |\n");
                b.append("| Dialect settings | ").append(db.dialectSettings().replace("|", "\\|")).append(" |\n");
                b.append("| Capabilities | ").append(db.capabilities().stream().map(Enum::name).sorted()
                        .collect(Collectors.joining(", "))).append(" |\n");
                b.append("| Connections opened | ").append(target.connectionsOpened()).append(" |\n");
            } else {
                b.append("| Database | not started: ").append(reason()).append(" |\n");
            }
            b.append("| Run at | ").append(runAt).append(" |\n");
            if (log != null) {
                b.append("| Log | [").append(log).append("](").append(log).append("): ").append(LOG_NOTE).append(" |\n");
            }
            b.append('\n');
            List<RootCause> causes = rootCauses();
            if (!causes.isEmpty()) {
                b.append("## ").append(rootCauseHeading(causes)).append("\n\n")
                        .append(String.format(ROOT_CAUSE_NOTE, "`<queue>`", "`#`"))
                        .append("\n\n| Rules | Root cause | Failed rules |\n|---|---|---|\n");
                for (RootCause c : causes) {
                    b.append("| ").append(c.outcomes().size()).append(" | `")
                            .append(cell(c.cause()).replace('`', '\'')).append("` | ").append(cell(c.rules()))
                            .append(" |\n");
                }
                b.append('\n');
            }
            for (Map.Entry<String, List<Outcome>> e : byContract().entrySet()) {
                b.append("## ").append(e.getKey()).append("\n\n| Rule | Status | ms | Detail |\n|---|---|---|---|\n");
                for (Outcome o : e.getValue()) {
                    b.append("| ").append(cell(o.rule())).append(" | ").append(o.status().name().replace('_', ' '))
                            .append(" | ").append(o.millis()).append(" | ").append(cell(o.detail())).append(" |\n");
                }
                b.append('\n');
            }
            return b.toString();
        }

        /** Explains the root-cause table; the arguments are the two placeholders as the format writes them. */
        private static final String ROOT_CAUSE_NOTE = "Each row is one error: the deepest cause of the failures, with"
                + " the kit's queue names written %s and numbers %s. Fix the most frequent first; the tables below"
                + " give every rule's own message.";

        private static String cell(String s) {
            return s.replace("|", "\\|").replace("\n", " ");
        }

        private Map<String, List<Outcome>> byContract() {
            Map<String, List<Outcome>> byContract = new LinkedHashMap<>();
            outcomes.forEach(o -> byContract.computeIfAbsent(o.contract(), k -> new ArrayList<>()).add(o));
            return byContract;
        }

        /** @return one HTML page with its own style sheet, no script and no external resource */
        String html() {
            StringBuilder b = new StringBuilder();
            b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                    .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                    .append("<title>rowqueue TCK: ").append(h(title())).append("</title>\n<style>\n")
                    .append("body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;")
                    .append("max-width:72rem;padding:0 1rem;color:#1b1f24;line-height:1.4}\n")
                    .append("h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}\n")
                    .append("table{border-collapse:collapse;width:100%;margin:.5rem 0}\n")
                    .append("th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}\n")
                    .append("th{background:#f6f8fa}td.ms{text-align:right;font-variant-numeric:tabular-nums}\n")
                    .append(".verdict{display:inline-block;font-weight:bold;font-size:1.2rem;padding:.3rem .8rem;")
                    .append("border-radius:.3rem;color:#fff}\n")
                    .append(".PASSED{background:#1a7f37}.FAILED{background:#cf222e}.SKIPPED{background:#9a6700}")
                    .append(".NOT_RUN,.INCOMPLETE,.NOT-RUN{background:#57606a}\n")
                    .append("td.status{font-weight:bold;color:#fff;white-space:nowrap}\n")
                    .append("table.causes td.cause{font-family:ui-monospace,monospace}\n")
                    .append("</style>\n</head>\n<body>\n");
            b.append("<h1>rowqueue TCK: ").append(h(title())).append("</h1>\n");
            b.append("<p><span class=\"verdict ").append(verdict().replace(' ', '-')).append("\">")
                    .append(h(verdict())).append("</span> ").append(count(Status.PASSED)).append(" passed, ")
                    .append(count(Status.FAILED)).append(" failed, ").append(count(Status.SKIPPED))
                    .append(" skipped (optional), ").append(count(Status.NOT_RUN)).append(" not run</p>\n");
            b.append("<table class=\"meta\">\n");
            row(b, "Test class", className);
            if (target != null) {
                DatabaseInfo db = target.database();
                row(b, "Target", target.name());
                row(b, "Database", db.productName() + " " + db.productVersion());
                row(b, "Driver", db.driver());
                row(b, "Dialect", db.dialect());
                row(b, "Dialect settings", db.dialectSettings());
                row(b, "Capabilities", db.capabilities().stream().map(Enum::name).sorted()
                        .collect(Collectors.joining(", ")));
                row(b, "Connections opened", target.connectionsOpened());
            } else {
                row(b, "Database", "not started: " + reason());
            }
            row(b, "Run at", runAt.toString());
            if (log != null) {
                b.append("<tr><th>Log</th><td><a href=\"").append(h(log)).append("\">").append(h(log)).append("</a>: ")
                        .append(h(LOG_NOTE)).append("</td></tr>\n");
            }
            b.append("</table>\n");
            List<RootCause> causes = rootCauses();
            if (!causes.isEmpty()) {
                b.append("<h2>").append(h(rootCauseHeading(causes))).append("</h2>\n<p>")
                        .append(String.format(ROOT_CAUSE_NOTE, "<code>&lt;queue&gt;</code>", "<code>#</code>"))
                        .append("</p>\n<table class=\"causes\">\n")
                        .append("<tr><th>Rules</th><th>Root cause</th><th>Failed rules</th></tr>\n");
                for (RootCause c : causes) {
                    b.append("<tr><td class=\"ms\">").append(c.outcomes().size()).append("</td><td class=\"cause\">")
                            .append(h(c.cause())).append("</td><td>").append(h(c.rules())).append("</td></tr>\n");
                }
                b.append("</table>\n");
            }
            for (Map.Entry<String, List<Outcome>> e : byContract().entrySet()) {
                b.append("<h2>").append(h(e.getKey())).append("</h2>\n<table>\n")
                        .append("<tr><th>Rule</th><th>Status</th><th>ms</th><th>Detail</th></tr>\n");
                for (Outcome o : e.getValue()) {
                    b.append("<tr><td>").append(h(o.rule())).append("</td><td class=\"status ")
                            .append(o.status().name()).append("\">").append(o.status().name().replace('_', ' '))
                            .append("</td><td class=\"ms\">").append(o.millis()).append("</td><td>")
                            .append(h(o.detail())).append("</td></tr>\n");
                }
                b.append("</table>\n");
            }
            return b.append("</body>\n</html>\n").toString();
        }

        private static void row(StringBuilder b, String key, String value) {
            b.append("<tr><th>").append(h(key)).append("</th><td>").append(h(value)).append("</td></tr>\n");
        }

        /** Escapes text for HTML element content and attribute values. */
        static String h(String s) {
            StringBuilder b = new StringBuilder(s.length());
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '&' -> b.append("&amp;");
                    case '<' -> b.append("&lt;");
                    case '>' -> b.append("&gt;");
                    case '"' -> b.append("&quot;");
                    case '\'' -> b.append("&#39;");
                    default -> b.append(c);
                }
            }
            return b.toString();
        }

        String json() {
            StringBuilder b = new StringBuilder("{\n");
            b.append("  \"testClass\": ").append(q(className)).append(",\n");
            b.append("  \"verdict\": ").append(q(verdict())).append(",\n");
            if (target != null) {
                DatabaseInfo db = target.database();
                b.append("  \"target\": ").append(q(target.name())).append(",\n");
                b.append("  \"database\": ").append(q(db.productName())).append(",\n");
                b.append("  \"version\": ").append(q(db.productVersion())).append(",\n");
                b.append("  \"driver\": ").append(q(db.driver())).append(",\n");
                b.append("  \"dialect\": ").append(q(db.dialect())).append(",\n");
                b.append("  \"dialectSettings\": ").append(q(db.dialectSettings())).append(",\n");
                b.append("  \"capabilities\": [").append(db.capabilities().stream().map(Enum::name).sorted()
                        .map(Report::q).collect(Collectors.joining(", "))).append("],\n");
                if (target.connections() != null) {
                    b.append("  \"connectionsOpened\": ").append(target.connections().opened()).append(",\n");
                }
            }
            b.append("  \"runAt\": ").append(q(runAt.toString())).append(",\n");
            if (log != null) {
                b.append("  \"log\": ").append(q(log)).append(",\n");
            }
            b.append("  \"counts\": {");
            StringBuilder counts = new StringBuilder();
            for (Status s : Status.values()) {
                counts.append(counts.length() == 0 ? "" : ", ").append(q(s.name())).append(": ").append(count(s));
            }
            b.append(counts).append("},\n");
            List<RootCause> causes = rootCauses();
            if (!causes.isEmpty()) {
                b.append("  \"rootCauses\": [\n");
                for (int i = 0; i < causes.size(); i++) {
                    RootCause c = causes.get(i);
                    b.append("    {\"cause\": ").append(q(c.cause())).append(", \"count\": ")
                            .append(c.outcomes().size()).append(", \"rules\": [")
                            .append(c.outcomes().stream().map(o -> q(o.rule())).collect(Collectors.joining(", ")))
                            .append("]}").append(i + 1 < causes.size() ? ",\n" : "\n");
                }
                b.append("  ],\n");
            }
            b.append("  \"contracts\": [\n");
            for (int i = 0; i < outcomes.size(); i++) {
                Outcome o = outcomes.get(i);
                b.append("    {\"contract\": ").append(q(o.contract())).append(", \"rule\": ").append(q(o.rule()))
                        .append(", \"status\": ").append(q(o.status().name())).append(", \"millis\": ")
                        .append(o.millis()).append(", \"detail\": ").append(q(o.detail())).append('}')
                        .append(i + 1 < outcomes.size() ? ",\n" : "\n");
            }
            return b.append("  ]\n}\n").toString();
        }

        static String q(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }
    }
}
