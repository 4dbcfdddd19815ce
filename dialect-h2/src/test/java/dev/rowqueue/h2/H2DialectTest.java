package dev.rowqueue.h2;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class H2DialectTest {

    private final H2DialectProvider provider = new H2DialectProvider();

    @Test
    void h2_2_is_recognised_and_h2_1_is_left_to_the_portable_dialect() {
        assertTrue(provider.supports(DatabaseProduct.assumed("H2", 2, 3)));
        assertFalse(provider.supports(DatabaseProduct.assumed("H2", 1, 4)));
        assertFalse(provider.supports(DatabaseProduct.assumed("PostgreSQL", 16, 0)));
    }

    @Test
    void unknown_options_are_refused() {
        assertThrows(IllegalArgumentException.class,
                () -> provider.create(DatabaseProduct.assumed("H2", 2, 3), Map.of("x", "y")));
    }

    @Test
    void h2_error_codes_are_classified() {
        H2Dialect d = new H2Dialect(DatabaseProduct.assumed("H2", 2, 3));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLException("concurrent update", "90131", 90131)));
        assertEquals(SqlErrorKind.LOCK_TIMEOUT, d.classify(new SQLException("timeout", "HYT00", 50200)));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, d.classify(new SQLException("not found", "42S04", 42104)));
        assertEquals(SqlErrorKind.DUPLICATE_KEY, d.classify(new SQLException("dup", "23505", 23505)));
        // a syntax error and a privilege error are permanent: the same statement fails the same way (issue 41)
        assertEquals(SqlErrorKind.REFUSED, d.classify(new SQLException("syntax", "42001", 42001)));
        assertEquals(SqlErrorKind.REFUSED, d.classify(new SQLException("not enough rights", "90096", 90096)));
        assertEquals(SqlErrorKind.OTHER, d.classify(new SQLException("division by zero", "22012", 22012)));
    }

    @Test
    void the_ring_ddl_is_idempotent_and_uses_the_shared_column_names() {
        H2Dialect d = new H2Dialect(DatabaseProduct.assumed("H2", 2, 3));
        String ddl = String.join(";", d.ddl().ring(RingTables.of("recent_views"), RingOptions.ofCapacity(10)));
        assertTrue(ddl.contains("CREATE TABLE IF NOT EXISTS recent_views (grp VARCHAR(200) NOT NULL, slot INTEGER"), ddl);
        assertTrue(ddl.contains("CREATE TABLE IF NOT EXISTS recent_views_head (grp VARCHAR(200) NOT NULL, last_seq BIGINT"), ddl);
        assertFalse(ddl.contains("recent_views_seq"), "the safe strategy reads the newest entries through the head row");
        String singleWriter = String.join(";", d.ddl().ring(RingTables.of("recent_views"),
                RingOptions.ofCapacity(10).withStrategy(RingStrategy.SINGLE_WRITER)));
        assertTrue(singleWriter.contains("CREATE UNIQUE INDEX IF NOT EXISTS recent_views_seq ON recent_views (grp, seq)"),
                "the single writer's MAX(seq) needs the index: " + singleWriter);
    }
}
