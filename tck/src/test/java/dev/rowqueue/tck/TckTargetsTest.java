package dev.rowqueue.tck;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.TestAbortedException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

class TckTargetsTest {

    /** A database whose variables no environment sets. */
    private static final String UNSET = "UNSET_IN_EVERY_ENVIRONMENT";

    /** A server class as the dialect modules write them; run here only through the launcher. */
    static class UnsetServerTck extends RowQueueTck {
        @Override
        protected TckTarget target() {
            return TckTargets.fromEnvironment(UNSET, "Nowhere server");
        }
    }

    /** A class of plain tests, no TCK target. */
    static class PlainTests {
        @Test
        void passes() {
        }
    }

    /**
     * Surefire runs each test class as a test plan of its own, one after another on one launcher (whose listeners
     * are made once per JVM): a TCK class that follows other classes in the same JVM still gets its report. (Seen: with
     * two forks per module, only the first plan of each JVM wrote; a first plan of plain tests wrote nothing, so the
     * build's summary listed 12 of its TCK targets.)
     */
    @Test
    void every_test_plan_run_by_one_launcher_writes_its_targets_reports(@TempDir Path reports) {
        try (org.junit.platform.launcher.LauncherSession session = LauncherFactory.openSession()) {
            for (Class<?> c : List.of(PlainTests.class, UnsetServerTck.class)) { // as Surefire does in a fork
                session.getLauncher().execute(request()
                        .selectors(selectClass(c))
                        .configurationParameter(TckReportListener.REPORT_DIR, reports.toString())
                        .configurationParameter(TckReportListener.QUIET, "true")
                        .build());
            }
        }
        assertTrue(Files.exists(reports.resolve("TckTargetsTest$UnsetServerTck.md")),
                "the TCK class run second has its report: " + java.util.Arrays.toString(reports.toFile().list()));
        assertTrue(Files.exists(reports.resolve("summary.txt")));
    }

    @Test
    void the_variables_name_url_user_password_and_dialect_and_the_report_name_hides_credentials() {
        ConfiguredTarget.Settings s = TckTargets.settingsFromEnvironment("POSTGRES", "PostgreSQL server", Map.of(
                "ROWQUEUE_TCK_POSTGRES_URL", "jdbc:postgresql://db:5432/test?password=secret",
                "ROWQUEUE_TCK_POSTGRES_USER", "postgres",
                "ROWQUEUE_TCK_POSTGRES_PASSWORD", "pw",
                "ROWQUEUE_TCK_POSTGRES_DIALECT", "portable",
                "ROWQUEUE_TCK_MARIADB_URL", "jdbc:mariadb://elsewhere/test")).orElseThrow();
        assertEquals("PostgreSQL server at jdbc:postgresql://db:5432/test (ROWQUEUE_TCK_POSTGRES_URL)", s.name());
        assertEquals("jdbc:postgresql://db:5432/test?password=secret", s.url());
        assertEquals("postgres", s.user());
        assertEquals("pw", s.password());
        assertEquals("portable", s.dialect());

        ConfiguredTarget.Settings bare = TckTargets.settingsFromEnvironment("DB2", "Db2 server",
                Map.of("ROWQUEUE_TCK_DB2_URL", "jdbc:db2://db:50000/test", "ROWQUEUE_TCK_DB2_DIALECT", " "))
                .orElseThrow();
        assertNull(bare.user());
        assertNull(bare.password());
        assertNull(bare.dialect());
    }

    @Test
    void an_unset_or_blank_url_names_no_server() {
        assertEquals(Optional.empty(), TckTargets.settingsFromEnvironment("POSTGRES", "PostgreSQL server",
                Map.of("ROWQUEUE_TCK_POSTGRES_USER", "postgres")));
        assertEquals(Optional.empty(), TckTargets.settingsFromEnvironment("POSTGRES", "PostgreSQL server",
                Map.of("ROWQUEUE_TCK_POSTGRES_URL", "  ")));
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> TckTargets.fromEnvironment(UNSET, "Nowhere server"));
        assertTrue(e.getMessage().contains("ROWQUEUE_TCK_" + UNSET + "_URL is not set"), e.getMessage());
    }

    @Test
    void the_settings_dialect_is_forced_on_the_connectors_target() throws Exception {
        ConfiguredTarget.Settings s = new ConfiguredTarget.Settings("named", "jdbc:h2:mem:tck_targets_test", "sa", "",
                "portable", Map.of("k", "v"));
        try (TckTargets.Target t = TckTargets.open(s, TckTargets::driverManager)) {
            assertEquals("named", t.name());
            assertEquals(Optional.of("portable"), t.dialect());
            assertEquals(Map.of("k", "v"), t.dialectOptions());
        }
    }

    @Test
    void a_server_class_without_its_variables_is_reported_not_run_never_passed(@TempDir Path reports) {
        LauncherFactory.create().execute(request()
                .selectors(selectClass(UnsetServerTck.class))
                .configurationParameter(TckReportListener.REPORT_DIR, reports.toString())
                .configurationParameter(TckReportListener.QUIET, "true")
                .build());
        TckReportListener.Result result = TckReportListener.result(UnsetServerTck.class).orElseThrow();
        assertEquals("NOT RUN", result.verdict());
        assertFalse(result.passed());
        assertEquals(0L, result.counts().get(TckReportListener.Status.PASSED));
        assertEquals(0L, result.counts().get(TckReportListener.Status.FAILED));
        assertEquals(0L, result.counts().get(TckReportListener.Status.SKIPPED));
        assertTrue(result.counts().get(TckReportListener.Status.NOT_RUN) > 0, result.summary());
        assertTrue(result.summary().contains("ROWQUEUE_TCK_" + UNSET + "_URL is not set: no Nowhere server to run on"),
                result.summary());
        assertFalse(result.summary().contains("the target failed"), result.summary());
        assertTrue(Files.exists(reports.resolve("summary.txt")));
    }
}
