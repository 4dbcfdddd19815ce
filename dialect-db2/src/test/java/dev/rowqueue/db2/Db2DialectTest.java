package dev.rowqueue.db2;

import dev.rowqueue.support.KeyBytes;
import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.internal.DialectResolver;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Version gates, DDL, key storage, identifiers and error classification of the Db2 dialect. */
class Db2DialectTest {

    private final Db2DialectProvider provider = new Db2DialectProvider();

    static Db2Dialect dialect(int major, int minor) {
        return (Db2Dialect) new Db2DialectProvider().create(DatabaseProduct.assumed("DB2/LINUXX8664", major, minor),
                Map.of());
    }

    @Test
    void db2_luw_is_recognised_by_its_platform_product_name_and_z_os_and_i_are_not() {
        assertTrue(provider.supports(DatabaseProduct.assumed("DB2/LINUXX8664", 11, 5)));
        assertTrue(provider.supports(DatabaseProduct.assumed("DB2/NT64", 12, 1)));
        assertTrue(provider.supports(DatabaseProduct.assumed("DB2/AIX64", 11, 5)));
        assertFalse(provider.supports(DatabaseProduct.assumed("DB2", 12, 1)), "Db2 for z/OS");
        assertFalse(provider.supports(DatabaseProduct.assumed("DB2 UDB for AS/400", 7, 4)), "Db2 for i");
        assertFalse(provider.supports(DatabaseProduct.assumed("Oracle", 19, 0)));
        assertTrue(DialectResolver.discovered().stream().map(DialectProvider::name).anyMatch("db2"::equals));
    }

    @Test
    void versions_11_5_and_12_1_are_served_11_1_is_accepted_and_older_ones_are_refused_clearly() {
        assertEquals("db2", dialect(11, 5).name());
        assertEquals("db2", dialect(12, 1).name());
        assertEquals("db2", dialect(11, 1).name());
        IllegalStateException old = assertThrows(IllegalStateException.class, () -> dialect(10, 5));
        assertTrue(old.getMessage().contains("11.1") && old.getMessage().contains("10.5"), old.getMessage());
        assertThrows(IllegalArgumentException.class, () -> provider.create(
                DatabaseProduct.assumed("DB2/LINUXX8664", 11, 5), Map.of("payload", "clob")));
    }

    @Test
    void capabilities_and_strategies() {
        Db2Dialect d = dialect(11, 5);
        assertEquals(EnumSet.of(Capability.SKIP_LOCKED, Capability.RETURNING, Capability.UPSERT,
                Capability.DATABASE_CLOCK, Capability.SINGLE_WRITER_RING), d.capabilities());
        assertTrue(d.supports(RingStrategy.SINGLE_WRITER));
        assertFalse(d.supports(RingStrategy.TRIGGER));
        assertEquals(10_000, d.maxPayloadLength());
    }

    @Test
    void keys_differing_in_case_or_trailing_blanks_are_stored_as_different_bytes_that_never_end_in_a_blank() {
        List<String> keys = List.of("a", "A", "a ", "a  ", " a", "é", "e\u0301", "日本", "😀 ", "k".repeat(200));
        Set<String> stored = new HashSet<>();
        for (String key : keys) {
            byte[] bytes = KeyBytes.encode(key);
            assertTrue(bytes[bytes.length - 1] != ' ', "[" + key + "] never ends in a blank, so padding cannot"
                    + " make it equal to another key");
            assertEquals(key, KeyBytes.decode(bytes));
            stored.add(Arrays.toString(bytes));
        }
        assertEquals(keys.size(), stored.size());
        assertArrayEquals("g".getBytes(StandardCharsets.UTF_8), KeyBytes.encode("g"),
                "a key without a trailing blank is its UTF-8 bytes, so WHERE grp = 'g' finds it");
        assertArrayEquals(new byte[] {'a', ' ', (byte) 0xFF}, KeyBytes.encode("a "));
        assertEquals(null, KeyBytes.decode(null));
    }

    @Test
    void the_longest_key_fits_its_column_whatever_its_characters() {
        assertEquals("VARCHAR(601) FOR BIT DATA", Db2Keys.COLUMN_TYPE);
        for (String c : List.of("x", "é", "\u20ac", "😀")) {
            String key = c.repeat(200 / c.length() - 1) + (c.length() == 1 ? " " : "");
            assertTrue(key.length() <= 200);
            assertTrue(KeyBytes.encode(key).length <= KeyBytes.MAX_BYTES, c);
        }
    }

    static final String CATALOG = "CREATE TABLE rowqueue_catalog (queue_name VARCHAR(64) NOT NULL, kind VARCHAR(16)"
            + " NOT NULL, capacity INTEGER NOT NULL, strategy VARCHAR(32), schema_version INTEGER NOT NULL, created_ms"
            + " BIGINT NOT NULL, PRIMARY KEY (queue_name))";
    static final List<String> RING = List.of("CREATE TABLE views (grp VARCHAR(601) FOR BIT DATA NOT NULL, slot"
                    + " INTEGER NOT NULL, seq BIGINT NOT NULL, payload VARCHAR(30000 OCTETS) NOT NULL, pushed_ms BIGINT"
                    + " NOT NULL, PRIMARY KEY (grp, slot))",
            "CREATE UNIQUE INDEX views_seq ON views (grp, seq)",
            "CREATE TABLE views_head (grp VARCHAR(601) FOR BIT DATA NOT NULL, last_seq BIGINT NOT NULL, PRIMARY KEY"
                    + " (grp))");
    static final List<String> WORK = List.of("CREATE TABLE mail (id BIGINT GENERATED BY DEFAULT AS IDENTITY NOT NULL,"
                    + " payload VARCHAR(30000 OCTETS) NOT NULL, prio INTEGER NOT NULL, state SMALLINT NOT NULL, due_ms"
                    + " BIGINT NOT NULL, attempts INTEGER NOT NULL, lease_token BIGINT, enqueued_ms BIGINT NOT NULL,"
                    + " last_error VARCHAR(3000 OCTETS), job_key VARCHAR(601) FOR BIT DATA, unique_key VARCHAR(601)"
                    + " FOR BIT DATA, key_seq BIGINT DEFAULT 0 NOT NULL, PRIMARY KEY (id))",
            "CREATE INDEX mail_due ON mail (state, prio DESC, due_ms, id)",
            "CREATE UNIQUE INDEX mail_uniq ON mail (unique_key) EXCLUDE NULL KEYS",
            "CREATE INDEX mail_key ON mail (job_key, state, key_seq, id) EXCLUDE NULL KEYS",
            "CREATE INDEX mail_kls ON mail (job_key, lease_token) EXCLUDE NULL KEYS",
            "CREATE INDEX mail_fair ON mail (state, key_seq, prio DESC, id)",
            "CREATE TABLE mail_rot (cursor_name VARCHAR(601) FOR BIT DATA NOT NULL, last_id BIGINT NOT NULL, PRIMARY"
                    + " KEY (cursor_name))");
    static final List<String> COUNTERS = List.of("CREATE TABLE sales (counter_key VARCHAR(601) FOR BIT DATA NOT NULL,"
            + " counter_value BIGINT NOT NULL, PRIMARY KEY (counter_key))");

    @Test
    void ddl_pins_every_kind_and_strategy() {
        for (Db2Dialect d : List.of(dialect(11, 5), dialect(12, 1))) {
            assertEquals(List.of(CATALOG), d.ddl().catalog());
            for (RingStrategy s : List.of(RingStrategy.SAFE, RingStrategy.SINGLE_WRITER)) {
                assertEquals(RING, d.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10).withStrategy(s)));
            }
            assertEquals(WORK, d.ddl().work(WorkTables.of("mail")));
            assertEquals(List.of("ALTER TABLE mail ADD COLUMN job_key VARCHAR(601) FOR BIT DATA",
                    "ALTER TABLE mail ADD COLUMN unique_key VARCHAR(601) FOR BIT DATA",
                    "ALTER TABLE mail ADD COLUMN key_seq BIGINT DEFAULT 0 NOT NULL",
                    WORK.get(2), WORK.get(3), WORK.get(4), WORK.get(5)), d.ddl().workUpgrade(WorkTables.of("mail")),
                    "the upgrade from schema version 1");
            assertEquals(COUNTERS, d.ddl().counters(CounterTable.of("sales")));
            assertEquals("DROP TABLE views", d.ddl().dropTable("views"));
            assertEquals(List.of("ALTER TABLE mail ALTER COLUMN id RESTART WITH 1001"),
                    d.ddl().restartIdentity(WorkTables.of("mail"), 1001));
        }
    }

    @Test
    void identifiers_are_plain_unquoted_names_that_db2_folds_to_upper_case_alike() {
        String name = "q".repeat(RowQueues.MAX_NAME_LENGTH);
        Db2Dialect d = dialect(11, 5);
        List<String> ddl = new ArrayList<>(d.ddl().catalog());
        ddl.addAll(d.ddl().ring(RingTables.of(name), RingOptions.ofCapacity(3)));
        ddl.addAll(d.ddl().work(WorkTables.of(name)));
        ddl.addAll(d.ddl().counters(CounterTable.of(name)));
        for (String statement : ddl) {
            assertFalse(statement.contains("\""), statement);
        }
        for (String table : List.of(name, name + "_head", name + "_seq", name + "_rot", name + "_due")) {
            assertTrue(table.length() <= 128 && table.matches("[a-z][a-z0-9_]*"), table);
        }
    }

    @Test
    void time_is_epoch_milliseconds_of_the_server_clock_converted_to_utc() {
        assertEquals("(CAST(DAYS(CURRENT TIMESTAMP - CURRENT TIMEZONE) - 719163 AS BIGINT) * 86400000"
                + " + MIDNIGHT_SECONDS(CURRENT TIMESTAMP - CURRENT TIMEZONE) * 1000 + MICROSECOND(CURRENT TIMESTAMP)"
                + " / 1000)", dialect(11, 5).nowMillis());
        // DAYS('1970-01-01') is 719163: DAYS counts 0001-01-01 as day 1
        assertEquals(719163, java.time.LocalDate.of(1970, 1, 1).toEpochDay()
                - java.time.LocalDate.of(1, 1, 1).toEpochDay() + 1);
    }

    private static SqlErrorKind kind(int sqlcode, String state) {
        return dialect(11, 5).classify(new SQLException("SQLCODE=" + sqlcode, state, sqlcode));
    }

    @Test
    void db2_errors_are_classified_by_sqlcode() {
        assertEquals(SqlErrorKind.ROLLED_BACK, kind(-911, "40001"), "the unit of work was rolled back");
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(-913, "57033"), "not rolled back: roll back yourself");
        assertEquals(SqlErrorKind.DUPLICATE_KEY, kind(-803, "23505"));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, kind(-601, "42710"));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, kind(-204, "42704"));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, kind(-802, "22003"));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, kind(-413, "22003"));
        assertEquals(SqlErrorKind.CONNECTION, kind(-4499, "08001"));
        assertEquals(SqlErrorKind.CONNECTION, kind(-30081, "08001"));
        assertEquals(SqlErrorKind.REFUSED, kind(-206, "42703"), "undefined column (a foreign table) is not retried");
        assertEquals(SqlErrorKind.REFUSED, kind(-104, "42601"));
    }

    @Test
    void a_refused_connection_is_before_sending_but_a_socket_broken_mid_statement_is_not() {
        Db2Dialect d = dialect(11, 5);
        assertTrue(d.failedBeforeSending(new SQLNonTransientConnectionException("Error opening socket", "08001",
                -4499, new ConnectException("Connection refused"))));
        assertTrue(d.failedBeforeSending(new SQLException("Invalid operation: connection is closed", "08003", -4470)));
        assertFalse(d.failedBeforeSending(new SQLNonTransientConnectionException("A communication error occurred"
                + " during operations on the connection's underlying socket", "08001", -4499)),
                "JCC uses 08001 mid-statement too: the write may have committed");
    }
}
