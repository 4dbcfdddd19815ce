package dev.rowqueue.support;

import dev.rowqueue.spi.SqlErrorKind;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class SqlErrorsTest {

    @Test
    void a_missing_sqlstate_is_derived_from_the_kind_and_a_reported_one_is_kept() {
        assertEquals("HYT00", SqlErrors.STANDARD.sqlState(new SQLTimeoutException("lock wait")));
        assertEquals("55P03", SqlErrors.STANDARD.sqlState(new SQLException("lock wait", "55P03")));
        assertNull(SqlErrors.STANDARD.sqlState(new SQLException("something else")));
    }

    @Test
    void vendor_code_rules_apply_in_order_and_fall_back_to_the_standard_classification() {
        SqlErrors errors = SqlErrors.byVendorCode().kind(7, "taken", SqlErrorKind.DUPLICATE_KEY)
                .kind(8, SqlErrorKind.UNDEFINED_TABLE).state(7, "empty", "23502").state(7, "", "23000")
                .otherState("HY000").build();
        SQLException taken = new SQLException("key taken", null, 7);
        assertEquals(SqlErrorKind.DUPLICATE_KEY, errors.classify(taken));
        assertEquals("23505", errors.sqlState(taken));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, errors.classify(new SQLException("gone", null, 8)));
        assertEquals("42S02", errors.sqlState(new SQLException("gone", null, 8)));
        assertEquals(SqlErrorKind.OTHER, errors.classify(new SQLException("value empty", null, 7)));
        assertEquals("23502", errors.sqlState(new SQLException("value empty", null, 7)));
        assertEquals("23000", errors.sqlState(new SQLException("other", null, 7)));
        assertEquals("HY000", errors.sqlState(new SQLException("other", null, 9)));
        assertEquals(SqlErrorKind.ROLLED_BACK, errors.classify(new SQLException("conflict", "40001", 9)));
        assertEquals("40001", errors.sqlState(new SQLException("conflict", "40001", 9)));
    }

    @Test
    void syntax_and_privilege_errors_are_refusals_by_their_sqlstate_class_but_missing_and_existing_tables_are_not() {
        assertEquals(SqlErrorKind.REFUSED, SqlErrors.STANDARD.classify(new SQLException("permission denied", "42501")));
        assertEquals(SqlErrorKind.REFUSED, SqlErrors.STANDARD.classify(new SQLException("syntax error", "42601")));
        assertEquals(SqlErrorKind.REFUSED, SqlErrors.STANDARD.classify(new SQLException("bad password", "28000")));
        assertEquals(SqlErrorKind.REFUSED, SqlErrors.STANDARD.classify(new java.sql.SQLSyntaxErrorException("no")));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, SqlErrors.STANDARD.classify(new SQLException("gone", "42P01")));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, SqlErrors.STANDARD.classify(new SQLException("there", "42S01")));
        assertEquals(SqlErrorKind.OTHER, SqlErrors.STANDARD.classify(new SQLException("division by zero", "22012")));
        // a vendor code rule decides before the SQLState class
        SqlErrors vendor = SqlErrors.byVendorCode().kind(1146, SqlErrorKind.UNDEFINED_TABLE).build();
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, vendor.classify(new SQLException("no table", "42000", 1146)));
    }
}
