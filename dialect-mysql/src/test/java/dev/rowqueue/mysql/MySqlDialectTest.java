package dev.rowqueue.mysql;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Detection, version gates, options, DDL and error classification, without a server. */
class MySqlDialectTest {

    private final MySqlDialectProvider mysql = new MySqlDialectProvider();
    private final MariaDbDialectProvider mariadb = new MariaDbDialectProvider();

    /** What MySQL Connector/J reports for a MySQL server. */
    private static DatabaseProduct mysql(String version) {
        String[] v = version.split("[.-]");
        return new DatabaseProduct("MySQL", version, Integer.parseInt(v[0]), Integer.parseInt(v[1]),
                "MySQL Connector/J", "9.5.0", "jdbc:mysql://h/db");
    }

    /** What MariaDB Connector/J reports for a MariaDB server. */
    private static DatabaseProduct mariaDb(String version) {
        String[] v = version.split("[.-]");
        return new DatabaseProduct("MariaDB", version, Integer.parseInt(v[0]), Integer.parseInt(v[1]),
                "MariaDB Connector/J", "3.5.6", "jdbc:mariadb://h/db");
    }

    /** What MySQL Connector/J reports for a MariaDB server with the old "5.5.5-" replication prefix. */
    private static DatabaseProduct mariaDbViaMySqlDriver(String version) {
        String[] v = version.split("[.-]");
        return new DatabaseProduct("MySQL", "5.5.5-" + version + "-MariaDB", Integer.parseInt(v[0]),
                Integer.parseInt(v[1]), "MySQL Connector/J", "9.5.0", "jdbc:mysql://h/db");
    }

    private static MySqlDialect dialect(DatabaseProduct p) {
        return MySqlDialect.create(p.isMariaDb() ? MySqlDialect.MARIADB : MySqlDialect.MYSQL, p, Map.of());
    }

    // ---------------------------------------------------------------- detection

    @Test
    void mariadb_is_recognised_behind_either_driver_and_ranks_above_mysql() {
        assertTrue(mariadb.priority() > mysql.priority());
        for (DatabaseProduct p : List.of(mariaDb("11.4.5-MariaDB"), mariaDb("10.11.19-MariaDB-0+deb12u1"),
                mariaDbViaMySqlDriver("10.6.21"), new DatabaseProduct("MySQL", "11.4.5-MariaDB", 11, 4,
                        "MySQL Connector/J", "9.5.0", ""))) {
            assertTrue(mariadb.supports(p), p.toString());
            assertFalse(mysql.supports(p), "MySQL must not claim MariaDB: " + p);
        }
    }

    @Test
    void mysql_5_7_and_later_is_recognised_and_older_mysql_is_left_to_the_portable_dialect() {
        for (String v : List.of("5.7.44", "8.0.0", "8.0.36", "8.4.3", "9.5.0")) {
            assertTrue(mysql.supports(mysql(v)), v);
            assertFalse(mariadb.supports(mysql(v)), v);
        }
        assertFalse(mysql.supports(mysql("5.6.51")));
        assertFalse(mysql.supports(new DatabaseProduct("PostgreSQL", "16.4", 16, 4, "", "", "")));
        assertFalse(mariadb.supports(mariaDb("5.5.68-MariaDB")));
    }

    @Test
    void versions_are_parsed_to_the_patch_level() {
        assertEquals(new ServerVersion(false, 8, 0, 19), ServerVersion.of(mysql("8.0.19")));
        assertEquals(new ServerVersion(true, 10, 11, 19), ServerVersion.of(mariaDb("10.11.19-MariaDB-0+deb12u1")));
        assertEquals(new ServerVersion(true, 10, 6, 21), ServerVersion.of(mariaDbViaMySqlDriver("10.6.21")));
        assertEquals(new ServerVersion(false, 8, 4, 0), ServerVersion.of(DatabaseProduct.assumed("MySQL", 8, 4)));
        assertEquals(new ServerVersion(false, 9, 1, 0),
                ServerVersion.of(new DatabaseProduct("MySQL", "unparseable", 9, 1, "", "", "")));
    }

    // ---------------------------------------------------------------- version gates

    @Test
    void skip_locked_is_gated_at_mysql_8_0_1_and_mariadb_10_6() {
        assertEquals(MySqlDialect.ClaimPath.LAST_INSERT_ID, dialect(mysql("5.7.44")).claimPath());
        assertEquals(MySqlDialect.ClaimPath.LAST_INSERT_ID, dialect(mysql("8.0.0")).claimPath());
        assertEquals(MySqlDialect.ClaimPath.SKIP_LOCKED, dialect(mysql("8.0.1")).claimPath());
        assertEquals(MySqlDialect.ClaimPath.LAST_INSERT_ID, dialect(mariaDb("10.5.27-MariaDB")).claimPath());
        assertEquals(MySqlDialect.ClaimPath.SKIP_LOCKED, dialect(mariaDb("10.6.0-MariaDB")).claimPath());
        assertEquals(MySqlDialect.ClaimPath.LAST_INSERT_ID, dialect(mariaDbViaMySqlDriver("10.5.9")).claimPath());
        assertEquals("", dialect(mysql("5.7.44")).skipLocked());
        assertEquals(" FOR UPDATE SKIP LOCKED", dialect(mysql("8.4.3")).skipLocked());
        assertTrue(dialect(mysql("8.4.3")).capabilities().contains(Capability.SKIP_LOCKED));
        assertFalse(dialect(mysql("5.7.44")).capabilities().contains(Capability.SKIP_LOCKED));
    }

    @Test
    void the_no_pad_binary_key_collation_is_gated_at_mysql_8_0_17_and_mariadb_10_2_2() {
        assertEquals(MySqlDialect.KeyType.VARBINARY, dialect(mysql("8.0.16")).keyColumns());
        assertEquals(MySqlDialect.KeyType.VARCHAR, dialect(mysql("8.0.17")).keyColumns());
        assertEquals("utf8mb4_0900_bin", dialect(mysql("9.5.0")).binaryCollation());
        assertEquals(MySqlDialect.KeyType.VARBINARY, dialect(mariaDb("10.2.1-MariaDB")).keyColumns());
        assertEquals(MySqlDialect.KeyType.VARCHAR, dialect(mariaDb("10.2.2-MariaDB")).keyColumns());
        assertEquals("utf8mb4_nopad_bin", dialect(mariaDb("11.4.5-MariaDB")).binaryCollation());
        assertEquals(MySqlDialect.KeyType.VARBINARY, dialect(mysql("5.7.44")).keyColumns());
        assertEquals("utf8mb4_bin", dialect(mysql("5.7.44")).binaryCollation(), "table default; keys are bytes");
    }

    @Test
    void the_row_alias_replaces_values_from_mysql_8_0_19_and_never_on_mariadb() {
        assertEquals("VALUES(seq)", dialect(mysql("8.0.18")).upsertValue("seq"));
        assertEquals("", dialect(mysql("8.0.18")).upsertRowAlias());
        assertEquals("incoming.seq", dialect(mysql("8.0.19")).upsertValue("seq"));
        assertEquals(" AS incoming", dialect(mysql("9.5.0")).upsertRowAlias());
        assertEquals("VALUES(seq)", dialect(mariaDb("11.8.3-MariaDB")).upsertValue("seq"));
        assertEquals("", dialect(mariaDb("11.8.3-MariaDB")).upsertRowAlias());
    }

    @Test
    void the_slot_write_uses_the_row_alias_or_values_by_server() {
        RingTables t = RingTables.of("views");
        String alias = new MySqlRing(dialect(mysql("8.4.3")), t).upsert(2).text();
        assertTrue(alias.contains("), (:grp, :slot1, :seq1, :payload1, ") && alias.contains(") AS incoming ON DUPLICATE"
                + " KEY UPDATE seq = incoming.seq, payload = incoming.payload, pushed_ms = incoming.pushed_ms"), alias);
        assertFalse(alias.contains("VALUES("), alias);
        String values = new MySqlRing(dialect(mariaDb("10.11.6-MariaDB")), t).upsert(1).text();
        assertTrue(values.endsWith(") ON DUPLICATE KEY UPDATE seq = VALUES(seq), payload = VALUES(payload),"
                + " pushed_ms = VALUES(pushed_ms)"), values);
    }

    @Test
    void insert_returning_is_gated_at_mariadb_10_5() {
        assertFalse(MySqlDialect.hasInsertReturning(ServerVersion.of(mariaDb("10.4.34-MariaDB"))));
        assertTrue(MySqlDialect.hasInsertReturning(ServerVersion.of(mariaDb("10.5.0-MariaDB"))));
        assertFalse(MySqlDialect.hasInsertReturning(ServerVersion.of(mysql("9.5.0"))));
        assertTrue(dialect(mariaDb("11.4.5-MariaDB")).capabilities().contains(Capability.RETURNING));
        assertFalse(dialect(mysql("9.5.0")).capabilities().contains(Capability.RETURNING));
    }

    @Test
    void every_table_declares_its_indexes_so_the_schema_is_idempotent_on_mysql_too() {
        for (MySqlDialect d : List.of(dialect(mysql("8.4.3")), dialect(mariaDb("10.4.34-MariaDB")),
                dialect(mariaDb("11.4.5-MariaDB")))) {
            List<String> ddl = new ArrayList<>(d.ddl().catalog());
            for (RingStrategy s : RingStrategy.values()) {
                if (d.supports(s)) {
                    ddl.addAll(d.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10).withStrategy(s)));
                }
            }
            ddl.addAll(d.ddl().work(WorkTables.of("mail")));
            ddl.addAll(d.ddl().counters(CounterTable.of("sales")));
            for (String statement : ddl) {
                assertTrue(statement.startsWith("CREATE TABLE IF NOT EXISTS ")
                        || statement.startsWith("CREATE TRIGGER IF NOT EXISTS "), d + ": " + statement);
            }
        }
    }

    // ---------------------------------------------------------------- options

    @Test
    void options_choose_the_claim_the_single_writer_statement_and_the_key_type() {
        MySqlDialect d = MySqlDialect.create("mariadb", mariaDb("11.4.5-MariaDB"), Map.of(MySqlDialect.OPTION_CLAIM,
                "last-insert-id", MySqlDialect.OPTION_SINGLE_WRITER, "REPLACE", MySqlDialect.OPTION_KEY_TYPE,
                "varbinary"));
        assertEquals(MySqlDialect.ClaimPath.LAST_INSERT_ID, d.claimPath());
        assertEquals(MySqlDialect.SingleWriterStatement.REPLACE, d.singleWriterStatement());
        assertEquals(MySqlDialect.KeyType.VARBINARY, d.keyColumns());
        assertEquals(MySqlDialect.SingleWriterStatement.UPSERT, dialect(mysql("8.4.3")).singleWriterStatement());
    }

    @Test
    void unknown_options_and_values_and_impossible_choices_are_refused() {
        DatabaseProduct p = mysql("5.7.44");
        assertThrows(IllegalArgumentException.class, () -> mysql.create(p, Map.of("x", "y")));
        assertThrows(IllegalArgumentException.class, () -> mysql.create(p, Map.of(MySqlDialect.OPTION_CLAIM, "fast")));
        IllegalArgumentException skip = assertThrows(IllegalArgumentException.class,
                () -> mysql.create(p, Map.of(MySqlDialect.OPTION_CLAIM, "skip-locked")));
        assertTrue(skip.getMessage().contains("8.0.1"), skip.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> mysql.create(p, Map.of(MySqlDialect.OPTION_KEY_TYPE, "varchar")));
        assertThrows(IllegalArgumentException.class,
                () -> mariadb.create(mariaDb("11.4.5-MariaDB"), Map.of(MySqlDialect.OPTION_SINGLE_WRITER, "merge")));
    }

    // ---------------------------------------------------------------- DDL

    @Test
    void ring_ddl_declares_exact_keys_innodb_and_its_indexes_inside_create_table() {
        List<String> ddl = dialect(mysql("8.4.3")).ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10));
        assertEquals(2, ddl.size(), "no CREATE INDEX, which MySQL cannot make idempotent");
        String entries = ddl.get(0);
        assertTrue(entries.startsWith("CREATE TABLE IF NOT EXISTS views (grp VARCHAR(200) CHARACTER SET utf8mb4"
                + " COLLATE utf8mb4_0900_bin NOT NULL"), entries);
        assertTrue(entries.contains("payload MEDIUMTEXT CHARACTER SET utf8mb4"), entries);
        assertTrue(entries.contains("PRIMARY KEY (grp, slot), UNIQUE KEY views_seq (grp, seq))"), entries);
        assertTrue(entries.endsWith(" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"
                + " ROW_FORMAT=DYNAMIC"), entries);
        assertTrue(ddl.get(1).startsWith("CREATE TABLE IF NOT EXISTS views_head (grp VARCHAR(200)"), ddl.get(1));
        String old = dialect(mysql("5.7.44")).ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(10)).get(1);
        assertTrue(old.contains("grp VARBINARY(600) NOT NULL") && old.endsWith("COLLATE=utf8mb4_bin"), old);
    }

    @Test
    void work_ddl_has_an_auto_increment_id_and_the_claim_index() {
        List<String> ddl = dialect(mariaDb("10.11.6-MariaDB")).ddl().work(WorkTables.of("mail"));
        assertTrue(ddl.get(0).contains("id BIGINT NOT NULL AUTO_INCREMENT"), ddl.get(0));
        assertTrue(ddl.get(0).contains("KEY mail_due (state, prio DESC, due_ms, id)"), ddl.get(0));
        assertTrue(ddl.get(1).contains("cursor_name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"),
                ddl.get(1));
        assertEquals(List.of("ALTER TABLE mail AUTO_INCREMENT = 1001"),
                dialect(mysql("8.4.3")).ddl().restartIdentity(WorkTables.of("mail"), 1001));
        assertEquals("DROP TABLE IF EXISTS mail", dialect(mysql("8.4.3")).ddl().dropTable("mail"));
    }

    @Test
    void the_single_writer_statements_are_the_articles_with_the_sequence_number_as_last_insert_id() {
        RingTables t = RingTables.of("q");
        String upsert = new MySqlSingleWriterRing(dialect(mysql("8.4.3")), t,
                MySqlDialect.SingleWriterStatement.UPSERT).statement().text();
        assertTrue(upsert.startsWith("INSERT INTO q (grp, slot, seq, payload, pushed_ms) SELECT nx.g, nx.s MOD :cap,"),
                upsert);
        assertTrue(upsert.contains("LAST_INSERT_ID(COALESCE(MAX(seq), 0) + 1) AS s"), upsert);
        assertTrue(upsert.endsWith("ON DUPLICATE KEY UPDATE seq = nx.s, payload = nx.p, pushed_ms = nx.t"), upsert);
        assertFalse(upsert.contains("VALUES("), "no deprecated VALUES(): " + upsert);
        String replace = new MySqlSingleWriterRing(dialect(mariaDb("10.11.6-MariaDB")), t,
                MySqlDialect.SingleWriterStatement.REPLACE).statement().text();
        assertTrue(replace.startsWith("REPLACE INTO q (grp, slot, seq, payload, pushed_ms) SELECT"), replace);
        assertFalse(replace.contains("DUPLICATE"), replace);
    }

    @Test
    void the_clock_is_utc_milliseconds_independent_of_the_session_time_zone() {
        String now = dialect(mysql("5.7.44")).nowMillis();
        assertTrue(now.contains("UTC_TIMESTAMP(3)") && now.contains("TIMESTAMP'1970-01-01 00:00:00'"), now);
        assertFalse(now.contains("NOW()") || now.contains("UNIX_TIMESTAMP"), now);
    }

    @Test
    void every_strategy_is_offered() {
        MySqlDialect d = dialect(mysql("5.7.44"));
        assertTrue(d.supports(RingStrategy.SAFE));
        assertTrue(d.supports(RingStrategy.SINGLE_WRITER));
        assertFalse(d.supports(RingStrategy.TRIGGER));
        assertEquals(1_000_000, d.maxPayloadLength());
    }

    // ---------------------------------------------------------------- errors

    private static SqlErrorKind kind(int code, String state) {
        return dialect(mysql("8.4.3")).classify(new SQLException("x", state, code));
    }

    @Test
    void vendor_codes_are_classified() {
        assertEquals(SqlErrorKind.ROLLED_BACK, kind(1213, "40001"));
        assertEquals(SqlErrorKind.ROLLED_BACK, kind(1020, "HY000"), "MariaDB snapshot isolation conflict");
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(1205, "HY000"));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, kind(1205, "40001"), "Connector/J may report 1205 as 40001");
        assertEquals(SqlErrorKind.DUPLICATE_KEY, kind(1062, "23000"));
        assertEquals(SqlErrorKind.OTHER, kind(1048, "23000"), "a NOT NULL violation shares 23000 but is no duplicate");
        assertEquals(SqlErrorKind.ALREADY_EXISTS, kind(1050, "42S01"));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, kind(1061, "42000"));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, kind(1146, "42S02"));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, kind(1051, "42S02"));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, kind(1690, "22003"));
        assertEquals(SqlErrorKind.CONNECTION, kind(2006, "HY000"));
        assertEquals(SqlErrorKind.CONNECTION, kind(2013, "HY000"));
        assertEquals(SqlErrorKind.CONNECTION, kind(1927, "70100"), "MariaDB: connection killed");
        assertEquals(SqlErrorKind.CONNECTION, kind(0, "08S01"), "communications link failure");
        assertEquals(SqlErrorKind.REFUSED, kind(1064, "42000"), "syntax error: permanent");
    }

    @Test
    void chained_and_subclassed_driver_exceptions_are_classified() {
        MySqlDialect d = dialect(mariaDb("11.4.5-MariaDB"));
        SQLException wrapper = new SQLException("batch failed", "HY000", 0);
        wrapper.setNextException(new SQLException("deadlock", "40001", 1213));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(wrapper));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLTransactionRollbackException("x", null, 0)));
        assertEquals(SqlErrorKind.CONNECTION, d.classify(new SQLNonTransientConnectionException("closed", "08000", 0)));
    }

    @Test
    void last_insert_id_values_are_read_back_as_signed_64_bit_values() {
        assertEquals(-3, LastInsertId.signed(new BigInteger("18446744073709551613")));
        assertEquals(Long.MIN_VALUE, LastInsertId.signed(new BigInteger("9223372036854775808")));
        assertEquals(Long.MAX_VALUE, LastInsertId.signed(new BigInteger("9223372036854775807")));
        assertEquals(-20, LastInsertId.signed(BigInteger.valueOf(-20)));
        assertEquals(42, LastInsertId.signed(42L));
        assertEquals(-1, LastInsertId.signed(new java.math.BigDecimal("18446744073709551615")));
        assertEquals(7, LastInsertId.signed("7"));
    }
}
