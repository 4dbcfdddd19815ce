package dev.rowqueue.postgres;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The dialect without a server: detection and version gates, options, error classification, DDL text. */
class PostgresDialectTest {

    private final PostgresDialectProvider provider = new PostgresDialectProvider();

    private static DatabaseProduct pg(int major, int minor) {
        return DatabaseProduct.assumed("PostgreSQL", major, minor);
    }

    private PostgresDialect dialect(int major) {
        return (PostgresDialect) provider.create(pg(major, 0), Map.of());
    }

    @Test
    void postgresql_10_and_later_is_recognised_and_older_servers_are_left_to_the_portable_dialect() {
        assertTrue(provider.supports(pg(10, 0)));
        assertTrue(provider.supports(pg(18, 1)));
        assertFalse(provider.supports(pg(9, 6)), "no identity columns before 10");
        assertFalse(provider.supports(DatabaseProduct.assumed("H2", 2, 3)));
        assertFalse(provider.supports(DatabaseProduct.assumed("MySQL", 8, 0)));
        assertEquals("postgresql", provider.name());
    }

    @Test
    void version_gates_choose_materialized_ctes_from_12_and_execute_function_from_11() {
        assertFalse(dialect(10).hasMaterializedCte());
        assertFalse(dialect(11).hasMaterializedCte());
        assertTrue(dialect(12).hasMaterializedCte());
        assertEquals("EXECUTE PROCEDURE", dialect(10).triggerExecute());
        assertEquals("EXECUTE FUNCTION", dialect(11).triggerExecute());
        String ddl10 = String.join(";", dialect(10).ddl().ring(RingTables.of("r"), RingOptions.ofCapacity(7)
                .withStrategy(RingStrategy.TRIGGER)));
        assertTrue(ddl10.contains("EXECUTE PROCEDURE rowqueue_ring_cap('r_head', '7')"), ddl10);
    }

    @Test
    void options_choose_the_wakeup_and_unknown_or_bad_ones_are_refused() {
        assertTrue(dialect(16).capabilities().contains(Capability.WAKEUP));
        Dialect polling = provider.create(pg(16, 0), Map.of("wakeup", "poll"));
        assertFalse(polling.capabilities().contains(Capability.WAKEUP));
        assertTrue(polling.wakeupSource(null, java.time.Duration.ofMillis(200)).isEmpty());
        provider.create(pg(16, 0), Map.of("wakeup", "listen", "wakeupPollMillis", "250"));
        provider.create(pg(16, 0), Map.of("notify", "false"));
        assertThrows(IllegalArgumentException.class, () -> provider.create(pg(16, 0), Map.of("notify", "no")));
        assertThrows(IllegalArgumentException.class, () -> provider.create(pg(16, 0), Map.of("wakeup", "sometimes")));
        assertThrows(IllegalArgumentException.class, () -> provider.create(pg(16, 0), Map.of("wakeupPollMillis", "0")));
        assertThrows(IllegalArgumentException.class, () -> provider.create(pg(16, 0), Map.of("wakeupPollMillis", "x")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> provider.create(pg(16, 0), Map.of("fast", "yes")));
        assertTrue(e.getMessage().contains("fast"), e.getMessage());
    }

    @Test
    void every_strategy_and_the_hot_paths_capabilities_are_declared() {
        PostgresDialect d = dialect(10);
        for (RingStrategy s : RingStrategy.values()) {
            assertTrue(d.supports(s), s.name());
        }
        assertTrue(d.capabilities().containsAll(List.of(Capability.SKIP_LOCKED, Capability.RETURNING,
                Capability.UPSERT, Capability.DATABASE_CLOCK)));
    }

    @Test
    void postgresql_sqlstates_are_classified() {
        PostgresDialect d = dialect(16);
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLException("serialization", "40001")));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLException("deadlock", "40P01")));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, d.classify(new SQLException("lock not available", "55P03")));
        for (String restart : List.of("57P01", "57P02", "57P03", "08006", "08003", "08001", "53300")) {
            assertEquals(SqlErrorKind.CONNECTION, d.classify(new SQLException("gone", restart)), restart);
        }
        assertEquals(SqlErrorKind.DUPLICATE_KEY, d.classify(new SQLException("unique", "23505")));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, d.classify(new SQLException("relation exists", "42P07")));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, d.classify(new SQLException("trigger exists", "42710")));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, d.classify(new SQLException("function exists", "42723")));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, d.classify(new SQLException("no relation", "42P01")));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, d.classify(new SQLException("bigint out of range", "22003")));
        assertEquals(SqlErrorKind.READ_ONLY, d.classify(new SQLException("cannot execute INSERT in a read-only"
                + " transaction", "25006")), "a hot standby");
        assertEquals(SqlErrorKind.REFUSED, d.classify(new SQLException("syntax", "42601")));
        assertEquals(SqlErrorKind.OTHER, d.classify(new SQLException("not null", "23502")));
        SQLException chained = new SQLException("batch failed", "XX000");
        chained.setNextException(new SQLException("deadlock", "40P01"));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(chained), "the chain is searched");
        assertEquals(SqlErrorKind.CONNECTION, d.classify(new SQLTransientConnectionException("pool timeout")));
    }

    @Test
    void only_errors_raised_while_connecting_prove_the_work_never_ran() {
        PostgresDialect d = dialect(16);
        assertTrue(d.failedBeforeSending(new SQLException("starting up", "57P03")));
        assertTrue(d.failedBeforeSending(new SQLException("too many clients", "53300")));
        assertTrue(d.failedBeforeSending(new SQLException("connection closed", "08003")));
        assertFalse(d.failedBeforeSending(new SQLException("terminated by administrator", "57P01")),
                "a session killed mid-statement may have committed");
        assertFalse(d.failedBeforeSending(new SQLException("I/O error", "08006")));
    }

    @Test
    void the_work_queue_ddl_has_partial_indexes_for_claims_and_dead_letters() {
        String ddl = String.join(";\n", dialect(16).ddl().work(WorkTables.of("mail")));
        assertTrue(ddl.contains("CREATE INDEX IF NOT EXISTS mail_due ON mail (prio DESC, due_ms, id) WHERE state = 0"),
                ddl);
        assertTrue(ddl.contains("CREATE INDEX IF NOT EXISTS mail_dead ON mail (id) WHERE state = 1"), ddl);
        assertTrue(ddl.contains("id BIGINT GENERATED BY DEFAULT AS IDENTITY"), ddl);
        assertTrue(ddl.contains("payload TEXT NOT NULL"), ddl);
    }

    @Test
    void time_comes_from_the_statement_timestamp_not_the_volatile_clock() {
        String now = dialect(16).nowMillis();
        assertTrue(now.contains("statement_timestamp()"), now);
        assertFalse(now.contains("clock_timestamp"), now);
    }
}
