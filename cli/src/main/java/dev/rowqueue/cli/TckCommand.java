package dev.rowqueue.cli;

import dev.rowqueue.spi.DialectProviders;
import dev.rowqueue.tck.ConfiguredTarget;
import dev.rowqueue.tck.ConfiguredTck;
import dev.rowqueue.tck.DatabaseHold;
import dev.rowqueue.tck.TckReportListener;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Runs the whole compatibility kit against a database given by URL, through the JUnit Platform Launcher, and writes
 * the report as Markdown, JSON and HTML.
 */
@Command(name = "tck", mixinStandardHelpOptions = true,
        description = "Runs the whole rowqueue compatibility kit (every contract) against a database reachable by"
                + " JDBC and writes the report as Markdown, JSON and a self-contained HTML page. Exit code 0 only"
                + " when the verdict is PASSED. The kit creates and drops its own tables (names starting tck_);"
                + " use a scratch database or schema.")
final class TckCommand extends BaseCommand {

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "rowqueue-tck-report",
            description = "where the report goes (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--name", paramLabel = "NAME",
            description = "the database's name in the report (default: the URL without parameters)")
    String name;

    @Override
    int run() {
        Endpoint endpoint = connection.endpoint(this);
        if (endpoint.dialect() != null) {
            DialectProviders.named(endpoint.dialect()); // an unknown name is bad usage, not a failed kit
        }
        endpoint.check(endpoint.dataSource());
        checkShared(endpoint);
        Terminal t = terminal();
        t.println("Running the rowqueue TCK against " + endpoint.displayUrl()
                + (endpoint.dialect() == null ? "" : " with dialect " + endpoint.dialect()) + " ...");
        ConfiguredTarget.use(new ConfiguredTarget.Settings(name, endpoint.url(), endpoint.user(),
                endpoint.password(), endpoint.dialect(), endpoint.options()));
        Path log = out.toAbsolutePath().resolve(LOG);
        try (PrintStream logged = logFile(log)) {
            LauncherDiscoveryRequest request = request()
                    .selectors(selectClass(ConfiguredTck.class))
                    .configurationParameter(TckReportListener.REPORT_DIR, out.toAbsolutePath().toString())
                    .configurationParameter(TckReportListener.QUIET, "true")
                    .configurationParameter(TckReportListener.LOG, LOG)
                    .build();
            Launcher launcher = LauncherFactory.create();
            try (Terminal.ProgressBar bar = t.progress("TCK", 0)) {
                runLogged(logged, () -> launcher.execute(request, new Progress(bar)));
            }
        } finally {
            ConfiguredTarget.use(null);
        }
        TckReportListener.Result result = TckReportListener.result(ConfiguredTck.class).orElseThrow(
                () -> new CliException(ExitCode.FAILED, "the kit ran but wrote no report"));
        String summary = result.summary();
        String verdict = result.verdict();
        t.println(t.verdict(verdict) + summary.substring(Math.min(summary.length(), verdict.length())));
        result.rootCauses().forEach(line -> t.println("  " + line));
        t.println("Report: " + result.html() + "\n        " + result.markdown() + "\n        " + result.json()
                + "\nLog:    " + log + " (what was logged during the run, expected warnings of the fault rules"
                + " included)");
        return result.passed() ? ExitCode.OK : ExitCode.FAILED;
    }

    /** The file, next to the report, that takes what is logged and printed while the contracts run. */
    static final String LOG = "ConfiguredTck.log";

    /**
     * @param log the log file
     * @return a stream writing to it
     * @throws CliException with {@link ExitCode#FAILED} if it cannot be created
     */
    private static PrintStream logFile(Path log) {
        try {
            Files.createDirectories(log.getParent());
            return new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "cannot write the kit's log " + log + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs the kit with {@code System.out} and {@code System.err} sent to the log: the warnings the fault rules
     * provoke on purpose (leases lost, claims of unknown outcome given back, connections killed) and the rules' own
     * figures go there, not between the progress bar and the verdict; SLF4J's simple logger writes to whatever
     * {@code System.err} is at the time. The console keeps the verdict and, when rules fail, their root causes.
     */
    private static void runLogged(PrintStream log, Runnable kit) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        System.setOut(log);
        System.setErr(log);
        try {
            kit.run();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /**
     * Refuses, before any contract runs, a database that the connections of the URL do not share (see
     * {@link DatabaseHold}).
     *
     * @throws CliException with {@link ExitCode#DATABASE}
     */
    private static void checkShared(Endpoint endpoint) {
        try {
            DatabaseHold.check(endpoint.dataSource());
        } catch (DatabaseHold.NotSharedException e) {
            throw new CliException(ExitCode.DATABASE, "refused " + endpoint.displayUrl() + " before running the kit: "
                    + e.getMessage(), e);
        } catch (SQLException e) {
            throw new CliException(ExitCode.DATABASE, "cannot create, read and drop a table at "
                    + endpoint.displayUrl() + ", which the kit needs: " + e.getMessage(), e);
        }
    }

    /** Draws the progress bar as contracts finish. */
    private static final class Progress implements TestExecutionListener {
        private final Terminal.ProgressBar bar;
        private final AtomicLong done = new AtomicLong();

        Progress(Terminal.ProgressBar bar) {
            this.bar = bar;
        }

        @Override
        public void testPlanExecutionStarted(TestPlan plan) {
            bar.total(plan.countTestIdentifiers(TestIdentifier::isTest));
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) {
                bar.update(done.incrementAndGet(), id.getDisplayName());
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest()) {
                bar.update(done.incrementAndGet(), id.getDisplayName());
            }
        }
    }
}
