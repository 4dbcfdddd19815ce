package dev.rowqueue.oracle;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.internal.DialectResolver;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Version gates, options, DDL, identifiers and error classification of the Oracle dialect. */
class OracleDialectTest {

    private final OracleDialectProvider provider = new OracleDialectProvider();

    static OracleDialect dialect(int major, String payload) {
        return (OracleDialect) new OracleDialectProvider().create(DatabaseProduct.assumed("Oracle", major, 0),
                payload == null ? Map.of() : Map.of(OraclePayload.OPTION, payload));
    }

    @Test
    void oracle_is_recognised_by_its_product_name_and_found_by_service_loading() {
        assertTrue(provider.supports(DatabaseProduct.assumed("Oracle", 19, 0)));
        assertTrue(provider.supports(DatabaseProduct.assumed("Oracle", 23, 0)));
        assertFalse(provider.supports(DatabaseProduct.assumed("PostgreSQL", 16, 0)));
        assertFalse(provider.supports(DatabaseProduct.assumed("DB2/LINUXX8664", 11, 5)));
        assertTrue(DialectResolver.discovered().stream().map(DialectProvider::name).anyMatch("oracle"::equals));
    }

    @Test
    void versions_19_and_later_are_served_12_1_to_18_are_accepted_and_older_ones_are_refused_clearly() {
        assertEquals("oracle", dialect(19, null).name());
        assertEquals("oracle", dialect(23, null).name());
        assertEquals("oracle", provider.create(DatabaseProduct.assumed("Oracle", 12, 1), Map.of()).name());
        assertEquals("oracle", provider.create(DatabaseProduct.assumed("Oracle", 18, 0), Map.of()).name());
        IllegalStateException old = assertThrows(IllegalStateException.class,
                () -> provider.create(DatabaseProduct.assumed("Oracle", 11, 2), Map.of()));
        assertTrue(old.getMessage().contains("12.1") && old.getMessage().contains("Oracle 11.2"), old.getMessage());
        assertThrows(IllegalStateException.class,
                () -> provider.create(DatabaseProduct.assumed("Oracle", 12, 0), Map.of()));
    }

    @Test
    void the_payload_option_chooses_the_column_and_the_limit_and_unknown_options_are_refused() {
        assertEquals(OraclePayload.VARCHAR2, dialect(19, null).payload());
        assertEquals(1333, dialect(19, null).maxPayloadLength());
        assertEquals(10922, dialect(19, "varchar2-extended").maxPayloadLength());
        assertEquals(1_000_000, dialect(19, "CLOB").maxPayloadLength());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> dialect(19, "blob"));
        assertTrue(bad.getMessage().contains("varchar2, varchar2-extended, clob"), bad.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> provider.create(DatabaseProduct.assumed("Oracle", 19, 0), Map.of("x", "y")));
    }

    @Test
    void every_payload_of_the_limit_fits_the_column_in_al32utf8() {
        for (OraclePayload p : List.of(OraclePayload.VARCHAR2, OraclePayload.VARCHAR2_EXTENDED)) {
            int bytes = Integer.parseInt(p.columnType().replaceAll(".*\\((\\d+) BYTE\\)", "$1"));
            String worst = "\u20ac".repeat(p.maxLength()); // 3 bytes each in UTF-8, the most a Java char takes
            assertTrue(worst.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= bytes, p.name());
            assertTrue(3 * (p.maxLength() + 1) > bytes, p + " is not needlessly small");
        }
    }

    @Test
    void capabilities_and_strategies() {
        OracleDialect d = dialect(19, null);
        assertEquals(java.util.EnumSet.of(Capability.SKIP_LOCKED, Capability.RETURNING, Capability.UPSERT,
                Capability.DATABASE_CLOCK, Capability.SINGLE_WRITER_RING), d.capabilities());
        assertTrue(d.supports(RingStrategy.SAFE) && d.supports(RingStrategy.SINGLE_WRITER));
        assertFalse(d.supports(RingStrategy.TRIGGER));
    }

    static final String CATALOG = "CREATE TABLE rowqueue_catalog (queue_name VARCHAR2(64 CHAR) NOT NULL,"
            + " kind VARCHAR2(16 CHAR) NOT NULL, capacity NUMBER(10) NOT NULL, strategy VARCHAR2(32 CHAR),"
            + " schema_version NUMBER(10) NOT NULL, created_ms NUMBER(19) NOT NULL, PRIMARY KEY (queue_name))";
    static final String RANGE = "BETWEEN -9223372036854775808 AND 9223372036854775807";

    static List<String> ringDdl(String ifNotExists, String payload) {
        return List.of("CREATE TABLE " + ifNotExists + "views (grp VARCHAR2(200 CHAR) NOT NULL, slot NUMBER(10) NOT"
                        + " NULL, seq NUMBER(19) NOT NULL CHECK (seq " + RANGE + "), payload " + payload + ", pushed_ms"
                        + " NUMBER(19) NOT NULL, PRIMARY KEY (grp, slot))",
                "CREATE UNIQUE INDEX " + ifNotExists + "views_seq ON views (grp, seq)",
                "CREATE TABLE " + ifNotExists + "views_head (grp VARCHAR2(200 CHAR) NOT NULL, last_seq NUMBER(19) NOT"
                        + " NULL CHECK (last_seq " + RANGE + "), PRIMARY KEY (grp))");
    }

    static List<String> workDdl(String ifNotExists, String payload) {
        return List.of("CREATE TABLE " + ifNotExists + "mail (id NUMBER(19) GENERATED BY DEFAULT AS IDENTITY, payload "
                        + payload + ", prio NUMBER(10) NOT NULL, state NUMBER(5) NOT NULL, due_ms NUMBER(19) NOT NULL"
                        + " CHECK (due_ms " + RANGE + "), attempts NUMBER(10) NOT NULL, lease_token NUMBER(19),"
                        + " enqueued_ms NUMBER(19) NOT NULL, last_error VARCHAR2(1000 CHAR), job_key VARCHAR2(200 CHAR),"
                        + " unique_key VARCHAR2(200 CHAR), key_seq NUMBER(19) DEFAULT 0 NOT NULL, PRIMARY KEY (id))",
                "CREATE INDEX " + ifNotExists + "mail_due ON mail (state, prio DESC, due_ms, id)",
                "CREATE UNIQUE INDEX " + ifNotExists + "mail_uniq ON mail (unique_key)",
                "CREATE INDEX " + ifNotExists + "mail_key ON mail (job_key, state, key_seq, id)",
                "CREATE INDEX " + ifNotExists + "mail_kls ON mail (job_key, lease_token)",
                "CREATE INDEX " + ifNotExists + "mail_fair ON mail (state, key_seq, prio DESC, id)",
                "CREATE TABLE " + ifNotExists + "mail_rot (cursor_name VARCHAR2(200 CHAR) NOT NULL, last_id NUMBER(19)"
                        + " NOT NULL, PRIMARY KEY (cursor_name))");
    }

    static List<String> counterDdl(String ifNotExists) {
        return List.of("CREATE TABLE " + ifNotExists + "sales (counter_key VARCHAR2(200 CHAR) NOT NULL, counter_value"
                + " NUMBER(19) NOT NULL CHECK (counter_value " + RANGE + "), PRIMARY KEY (counter_key))");
    }

    @Test
    void ddl_before_23ai_has_no_if_not_exists_and_pins_every_kind_and_strategy() {
        OracleDialect d = dialect(19, null);
        assertEquals(List.of(CATALOG), d.ddl().catalog());
        for (RingStrategy s : List.of(RingStrategy.SAFE, RingStrategy.SINGLE_WRITER)) {
            assertEquals(ringDdl("", "VARCHAR2(4000 BYTE)"),
                    d.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10).withStrategy(s)), s.name());
        }
        assertEquals(workDdl("", "VARCHAR2(4000 BYTE)"), d.ddl().work(WorkTables.of("mail")));
        assertEquals(List.of("ALTER TABLE mail ADD (job_key VARCHAR2(200 CHAR))",
                "ALTER TABLE mail ADD (unique_key VARCHAR2(200 CHAR))",
                "ALTER TABLE mail ADD (key_seq NUMBER(19) DEFAULT 0 NOT NULL)",
                "CREATE UNIQUE INDEX mail_uniq ON mail (unique_key)",
                "CREATE INDEX mail_key ON mail (job_key, state, key_seq, id)",
                "CREATE INDEX mail_kls ON mail (job_key, lease_token)",
                "CREATE INDEX mail_fair ON mail (state, key_seq, prio DESC, id)"),
                d.ddl().workUpgrade(WorkTables.of("mail")), "the upgrade from schema version 1: Oracle's ADD (...)");
        List<String> v1 = d.ddl().work(WorkTables.of("mail"), 1);
        assertEquals(3, v1.size());
        assertTrue(v1.get(0).endsWith("last_error VARCHAR2(1000 CHAR), PRIMARY KEY (id))"), v1.get(0));
        assertEquals(counterDdl(""), d.ddl().counters(CounterTable.of("sales")));
        assertEquals("DROP TABLE views PURGE", d.ddl().dropTable("views"));
        assertEquals(List.of("ALTER TABLE mail MODIFY id GENERATED BY DEFAULT AS IDENTITY (START WITH 1001)"),
                d.ddl().restartIdentity(WorkTables.of("mail"), 1001));
        assertEquals("SELECT grp, last_seq FROM views_head WHERE 1 = 0", d.probe("views_head", "grp, last_seq"));
    }

    @Test
    void ddl_on_23ai_uses_if_not_exists_and_the_payload_option_changes_only_the_payload_columns() {
        OracleDialect d = dialect(23, "varchar2-extended");
        assertEquals(List.of(CATALOG.replace("TABLE ", "TABLE IF NOT EXISTS ")), d.ddl().catalog());
        assertEquals(ringDdl("IF NOT EXISTS ", "VARCHAR2(32767 BYTE)"),
                d.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10)));
        assertEquals(workDdl("IF NOT EXISTS ", "VARCHAR2(32767 BYTE)"), d.ddl().work(WorkTables.of("mail")));
        assertEquals(counterDdl("IF NOT EXISTS "), d.ddl().counters(CounterTable.of("sales")));
        assertEquals("DROP TABLE IF EXISTS views PURGE", d.ddl().dropTable("views"));
        OracleDialect clob = dialect(19, "clob");
        assertEquals(ringDdl("", "CLOB"), clob.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10)));
        assertEquals(workDdl("", "CLOB"), clob.ddl().work(WorkTables.of("mail")));
    }

    private static final Pattern IDENTIFIER_AFTER = Pattern.compile(
            "(?:TABLE (?:IF NOT EXISTS )?|INDEX (?:IF NOT EXISTS )?|ON )([A-Za-z0-9_\"]+)");

    @Test
    void identifiers_of_the_longest_queue_name_fit_30_characters_unquoted_so_oracle_folds_them_alike() {
        String name = "q".repeat(RowQueues.MAX_NAME_LENGTH);
        for (OracleDialect d : List.of(dialect(19, null), dialect(23, "clob"))) {
            List<String> ddl = new ArrayList<>(d.ddl().catalog());
            ddl.addAll(d.ddl().ring(RingTables.of(name), RingOptions.ofCapacity(3)));
            ddl.addAll(d.ddl().work(WorkTables.of(name)));
            ddl.addAll(d.ddl().counters(CounterTable.of(name)));
            ddl.addAll(d.ddl().restartIdentity(WorkTables.of(name), 5));
            List<String> identifiers = new ArrayList<>();
            for (String statement : ddl) {
                assertFalse(statement.contains("\""), "never quoted: " + statement);
                Matcher m = IDENTIFIER_AFTER.matcher(statement);
                while (m.find()) {
                    identifiers.add(m.group(1));
                }
            }
            assertTrue(identifiers.contains(name + "_head") && identifiers.contains(name + "_due"), identifiers.toString());
            for (String id : identifiers) {
                assertTrue(id.length() <= 30, id + " has " + id.length() + " characters");
                assertTrue(id.matches("[a-z][a-z0-9_]*"), id + " is a plain lower-case identifier");
            }
        }
    }

    @Test
    void time_is_epoch_milliseconds_of_the_database_clock_in_utc() {
        String since = "(SYS_EXTRACT_UTC(SYSTIMESTAMP) - TIMESTAMP '1970-01-01 00:00:00')";
        assertEquals("(EXTRACT(DAY FROM " + since + ") * 86400000 + EXTRACT(HOUR FROM " + since + ") * 3600000"
                + " + EXTRACT(MINUTE FROM " + since + ") * 60000 + TRUNC(EXTRACT(SECOND FROM " + since + ") * 1000))",
                dialect(19, null).nowMillis());
    }

    private static SqlErrorKind kind(int ora, String state) {
        return dialect(19, null).classify(new SQLException("ORA-" + ora, state, ora));
    }

    @Test
    void oracle_errors_are_classified_by_their_ora_number() {
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(60, "61000"), "ORA-00060 undoes only the statement: roll back");
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(8177, "72000"));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(54, "61000"));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(30006, "61000"));
        assertEquals(SqlErrorKind.DUPLICATE_KEY, kind(1, "23000"));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, kind(955, "42000"));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, kind(1408, "72000"));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, kind(942, "42000"));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, kind(1438, "22003"));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, kind(1426, "22003"));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, kind(2290, "23000"));
        assertEquals(SqlErrorKind.CONNECTION, kind(3113, "08000"));
        assertEquals(SqlErrorKind.CONNECTION, kind(17008, "08003"));
        assertEquals(SqlErrorKind.REFUSED, kind(904, "42000"), "invalid identifier (a foreign table) is not retried");
        assertEquals(SqlErrorKind.OTHER, kind(1400, "23000"), "cannot insert NULL");
        SQLException chained = new SQLException("batch", "99999", 17081);
        chained.setNextException(new SQLException("ORA-00060", "61000", 60));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, dialect(19, null).classify(chained), "looks through chains");
        assertEquals(SqlErrorKind.CONNECTION,
                dialect(19, null).classify(new SQLRecoverableException("IO Error", null, 17002)));
    }

    @Test
    void only_errors_that_prove_nothing_was_sent_allow_retrying_a_write_of_unknown_outcome() {
        OracleDialect d = dialect(19, null);
        assertTrue(d.failedBeforeSending(new SQLException("ORA-12541: no listener", "08006", 12541)));
        assertTrue(d.failedBeforeSending(new SQLException("Closed Connection", "08003", 17008)));
        assertTrue(d.failedBeforeSending(new SQLRecoverableException("IO Error", null, 17002,
                new ConnectException("Connection refused"))));
        assertFalse(d.failedBeforeSending(new SQLRecoverableException("IO Error: Connection reset", "08006", 17002)));
        assertFalse(d.failedBeforeSending(new SQLException("ORA-03113: end-of-file", "08000", 3113)));
    }

    @Test
    void claims_lock_with_skip_locked_and_no_row_limit_clause() {
        Dialect d = dialect(19, null);
        assertEquals(" FOR UPDATE SKIP LOCKED", d.lockingLimit("n"));
        assertEquals(" FETCH FIRST :n ROWS ONLY", d.limit("n"), "reads without locks keep FETCH FIRST (12c+)");
        assertEquals("ID", d.generatedKeyColumn());
        assertTrue(d.ringStore(RingTables.of("r"), RingOptions.ofCapacity(2)).push("g", List.of("x")).singleStatement(),
                "a push of one payload is one PL/SQL block");
    }
}
