package dev.rowqueue.mysql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Reads the value a statement gave {@code LAST_INSERT_ID(expr)}: the server sends it in the statement's OK packet
 * (the C API's {@code mysql_insert_id()}), and both drivers expose it as the generated key, so it costs no round
 * trip. {@code LAST_INSERT_ID()} is a BIGINT UNSIGNED: a negative counter value arrives as its two's complement
 * (-3 as 18446744073709551613), which {@link #signed(Object)} turns back. Drivers return no key when the value is
 * 0; then, and only then, the value is asked of the server on the same connection.
 */
final class LastInsertId {

    private static final String ASK = "SELECT LAST_INSERT_ID()";

    private LastInsertId() {
    }

    /**
     * @param c  the connection the statement ran on
     * @param ps an executed statement prepared with {@link Statement#RETURN_GENERATED_KEYS}
     * @return the statement's {@code LAST_INSERT_ID(expr)} value, as a signed 64-bit value
     * @throws SQLException from the driver
     */
    static long read(Connection c, PreparedStatement ps) throws SQLException {
        try (ResultSet keys = ps.getGeneratedKeys()) {
            if (keys.next()) {
                Object value = keys.getObject(1);
                if (value != null) {
                    return signed(value);
                }
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(ASK)) {
            if (!rs.next()) {
                throw new SQLException(ASK + " returned no row");
            }
            return signed(rs.getObject(1));
        }
    }

    /**
     * @param value a driver's representation of a BIGINT UNSIGNED (Long, BigInteger, BigDecimal or text)
     * @return the same 64 bits as a signed value
     */
    static long signed(Object value) {
        if (value instanceof BigInteger b) {
            return b.longValue();
        }
        if (value instanceof BigDecimal d) {
            return d.toBigIntegerExact().longValue();
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        return new BigInteger(value.toString().strip()).longValue();
    }
}
