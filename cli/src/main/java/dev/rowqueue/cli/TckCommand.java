package dev.rowqueue.cli;

import dev.rowqueue.spi.DialectProviders;
import dev.rowqueue.tck.ConfiguredTarget;
import dev.rowqueue.tck.ConfiguredTck;
import dev.rowqueue.tck.DatabaseHold;
import dev.rowqueue.tck.OpenedConnections;
import dev.rowqueue.tck.TckReportListener;
import dev.rowqueue.tck.TckTargets;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.platform.launcher.core.LauncherConfig;
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

import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.rowqueue.SessionSettingException;
import java.sql.SQLException;
import java.time.Duration;
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

    @Option(names = "--pool-size", paramLabel = "N", defaultValue = "" + DEFAULT_POOL_SIZE,
            description = "connections the kit may hold open at once, from a HikariCP pool (default:"
                    + " ${DEFAULT-VALUE}; the concurrency rules use 17 at once and the kit holds one for the whole run)")
    int poolSize;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "the time budget of the whole run, e.g. 10m: when it runs out, the report is written with"
                    + " the rules not finished marked NOT RUN, and the exit code is 1 (default: no limit)")
    Duration timeout;

    /** The pool of the run, once the kit opened its target. */
    private volatile HikariDataSource pool;

    /** The default of {@code --pool-size}. */
    static final int DEFAULT_POOL_SIZE = 24;
    /** The smallest {@code --pool-size}: the held connection and the concurrency rules' 17 at once. */
    static final int MIN_POOL_SIZE = 18;

    @Override
    int run() {
        if (poolSize < MIN_POOL_SIZE) {
            throw new CliException(ExitCode.USAGE, "--pool-size must be at least " + MIN_POOL_SIZE + " (the"
                    + " concurrency rules use 17 connections at once, and the kit holds one more), not " + poolSize);
        }
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new CliException(ExitCode.USAGE, "--timeout must be positive, not " + timeout);
        }
        Endpoint endpoint = connection.endpoint(this);
        if (endpoint.dialect() != null) {
            DialectProviders.named(endpoint.dialect()); // an unknown name is bad usage, not a failed kit
        }
        endpoint.check(endpoint.dataSource()); // at once, with the driver's own error, not after a pool's wait
        checkSession(endpoint);
        HikariDataSource kitPool = pool(endpoint);
        try {
            checkShared(endpoint, kitPool);
        } catch (RuntimeException e) {
            kitPool.close();
            throw e;
        }
        pool = kitPool;
        Terminal t = terminal();
        t.println("Running the rowqueue TCK against " + endpoint.displayUrl()
                + (endpoint.dialect() == null ? "" : " with dialect " + endpoint.dialect()) + " ...");
        ConfiguredTarget.use(new ConfiguredTarget.Settings(name, endpoint.url(), endpoint.user(),
                endpoint.password(), endpoint.dialect(), endpoint.options()),
                (reportName, url, user, password) -> TckTargets.of(reportName, kitPool, kitPool::close));
        TckReportListener report = new TckReportListener();
        Thread onSignal = new Thread(() -> report.writeUnfinished(
                "not finished: the run was stopped by a signal (SIGINT or SIGTERM)"), "rowqueue-tck-report-on-exit");
        Runtime.getRuntime().addShutdownHook(onSignal);
        Path log = out.toAbsolutePath().resolve(LOG);
        try (PrintStream logged = logFile(log)) {
            LauncherDiscoveryRequest request = request()
                    .selectors(selectClass(ConfiguredTck.class))
                    .configurationParameter(TckReportListener.REPORT_DIR, out.toAbsolutePath().toString())
                    .configurationParameter(TckReportListener.QUIET, "true")
                    .configurationParameter(TckReportListener.LOG, LOG)
                    .build();
            // the report listener is this command's own, so that it can write the report before the run ends
            Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                    .enableTestExecutionListenerAutoRegistration(false)
                    .addTestExecutionListeners(report).build());
            try (Terminal.ProgressBar bar = t.progress("TCK", 0)) {
                runLogged(logged, () -> runWithin(() -> launcher.execute(request, new Progress(bar)), report));
            }
        } finally {
            kitPool.close(); // the kit closes it at its end; not when it never started
            ConfiguredTarget.use(null);
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException exiting) {
                // the JVM is already shutting down: the hook writes the report
            }
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
     * Refuses, before any contract runs, a database whose sessions the dialect cannot run its SQL in and cannot pin
     * (a read-only default, a standby, ...): {@code build()} pins and reads the session settings the dialect depends
     * on ({@link dev.rowqueue.spi.Dialect#sessionSettings()}). Any other failure to build is left to the kit, which
     * reports it.
     *
     * @throws CliException with {@link ExitCode#DATABASE}, naming the setting and its value
     */
    private static void checkSession(Endpoint endpoint) {
        try (Endpoint.Opened opened = endpoint.open(false)) {
            // built: the session settings hold
        } catch (SessionSettingException e) {
            throw new CliException(ExitCode.DATABASE, "refused " + endpoint.displayUrl() + " before running the kit: "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            // a bad option or an unreachable database: the kit's report says NOT RUN, with the cause
        }
    }

    /**
     * Runs the kit, within {@code --timeout} when one is given: when it runs out, the report is written with the
     * rules not finished marked NOT RUN, and the run is interrupted (the rules still running fail on their own, and
     * their outcomes no longer change the written report).
     */
    private void runWithin(Runnable kit, TckReportListener report) {
        if (timeout == null) {
            kit.run();
            return;
        }
        Thread runner = new Thread(kit, "rowqueue-tck");
        runner.setDaemon(true); // the JVM may exit while a rule that ignores interrupts is still running
        runner.start();
        try {
            runner.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (runner.isAlive()) {
            report.writeUnfinished("not finished: the run's time budget (--timeout " + timeout.toString()
                    .substring(2).toLowerCase(java.util.Locale.ROOT) + ") ran out");
            runner.interrupt();
            HikariDataSource p = pool;
            if (p != null) {
                p.close(); // the rules still running fail at their next statement instead of running on
            }
        }
    }

    /**
     * The kit's connections: a HikariCP pool of {@code --pool-size} over {@link java.sql.DriverManager}, whose
     * connections are counted for the report. One connection per operation cost a whole run its time budget on a
     * server where opening one takes 100 ms. The kit closes the pool when it ends.
     */
    private HikariDataSource pool(Endpoint endpoint) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(new OpenedConnections(endpoint.dataSource()));
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setPoolName("rowqueue-tck");
        config.setInitializationFailTimeout(-1); // endpoint.check() has told a database that cannot be reached
        return new HikariDataSource(config);
    }

    /**
     * Refuses, before any contract runs, a database that the connections of the URL do not share (see
     * {@link DatabaseHold}).
     *
     * @throws CliException with {@link ExitCode#DATABASE}
     */
    private static void checkShared(Endpoint endpoint, DataSource kitConnections) {
        try {
            DatabaseHold.check(kitConnections);
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
