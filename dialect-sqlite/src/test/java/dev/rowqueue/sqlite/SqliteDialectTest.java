package dev.rowqueue.sqlite;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SqliteDialectTest {

    private final SqliteDialectProvider provider = new SqliteDialectProvider();
    private final SqliteDialect dialect = new SqliteDialect(DatabaseProduct.assumed("SQLite", 3, 54));

    @Test
    void sqlite_is_recognised_and_versions_before_3_35_are_refused_with_the_reason() {
        assertTrue(provider.supports(DatabaseProduct.assumed("SQLite", 3, 35)));
        assertFalse(provider.supports(DatabaseProduct.assumed("H2", 2, 3)));
        assertEquals("sqlite", provider.create(DatabaseProduct.assumed("SQLite", 3, 35), Map.of()).name());
        IllegalStateException old = assertThrows(IllegalStateException.class,
                () -> provider.create(DatabaseProduct.assumed("SQLite", 3, 34), Map.of()));
        assertTrue(old.getMessage().contains("3.35 or later (RETURNING)"), old.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> provider.create(DatabaseProduct.assumed("SQLite", 3, 54), Map.of("x", "y")));
    }

    @Test
    void sqlite_result_codes_are_classified_and_get_an_sqlstate() {
        SQLException busy = new SQLiteException("database is locked", SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT);
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, dialect.classify(busy));
        assertEquals("HYT00", dialect.sqlState(busy));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT,
                dialect.classify(new SQLiteException("locked", SQLiteErrorCode.SQLITE_LOCKED)));
        SQLException duplicate = new SQLiteException("UNIQUE constraint failed: t.k",
                SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY);
        assertEquals(SqlErrorKind.DUPLICATE_KEY, dialect.classify(duplicate));
        assertEquals("23505", dialect.sqlState(duplicate));
        SQLException notNull = new SQLiteException("NOT NULL constraint failed: t.v",
                SQLiteErrorCode.SQLITE_CONSTRAINT_NOTNULL);
        assertEquals(SqlErrorKind.OTHER, dialect.classify(notNull));
        assertEquals("23502", dialect.sqlState(notNull));
        SQLException missing = new SQLiteException("no such table: q", SQLiteErrorCode.SQLITE_ERROR);
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, dialect.classify(missing));
        assertEquals("42S02", dialect.sqlState(missing));
        // the name, for the look-up in the catalog that tells a stale schema from a dropped table
        assertEquals("q", dialect.sqlErrors().missingTable(missing));
        assertEquals("main.tck_a1", dialect.sqlErrors().missingTable(new SQLiteException(
                "[SQLITE_ERROR] SQL error or missing database (no such table: main.tck_a1)", SQLiteErrorCode.SQLITE_ERROR)));
        assertNull(dialect.sqlErrors().missingTable(busy));
        SQLException syntax = new SQLiteException("near \"SELEC\": syntax error", SQLiteErrorCode.SQLITE_ERROR);
        assertEquals(SqlErrorKind.OTHER, dialect.classify(syntax));
        assertEquals("HY000", dialect.sqlState(syntax));
    }

    @Test
    void job_ids_are_never_handed_out_again_and_restart_where_an_import_says(@TempDir Path dir) throws SQLException {
        WorkTables t = WorkTables.of("jobs");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("ids.db"));
             Statement s = c.createStatement()) {
            for (String ddl : dialect.ddl().work(t)) {
                s.execute(ddl);
            }
            String insert = "INSERT INTO jobs (payload, prio, state, due_ms, attempts, enqueued_ms)"
                    + " VALUES ('p', 0, 0, 0, 0, 0)";
            s.execute(insert);
            s.execute(insert);
            s.execute("DELETE FROM jobs WHERE id = 2");
            s.execute(insert);
            assertEquals(3, maxId(s), "AUTOINCREMENT: the deleted newest id 2 is not reused");
            for (String sql : dialect.ddl().restartIdentity(t, 100)) {
                s.execute(sql);
            }
            s.execute(insert);
            assertEquals(100, maxId(s));
            for (String sql : dialect.ddl().restartIdentity(t, 50)) { // never backwards
                s.execute(sql);
            }
            s.execute(insert);
            assertEquals(101, maxId(s));
        }
    }

    private static long maxId(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT MAX(id) FROM jobs")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
