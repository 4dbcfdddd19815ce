package dev.rowqueue.spi;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Set;

/**
 * How keys (ring groups, counter keys, rotation cursor names, job keys and unique keys) are bound and read. Most databases store a key as
 * it is ({@link #TEXT}). A database that would make two different keys one, by comparing text blank-padded
 * ({@code 'a' = 'a '}) or ignoring case, stores a form that keeps them apart; {@link Dialect#bind} applies the codec
 * to the parameters named in {@link #PARAMETERS}, and {@link Dialect#readKey} to key columns read back.
 */
public interface KeyCodec {

    /** The names of key parameters in the stores' statements. */
    Set<String> PARAMETERS = Set.of("grp", "key", "cursor", "ukey");

    /** Keys stored as they are: {@code setString} and {@code getString}. */
    KeyCodec TEXT = new KeyCodec() {
        @Override
        public void bind(PreparedStatement ps, int index, String key) throws SQLException {
            if (key == null) {
                ps.setNull(index, Types.VARCHAR);
            } else {
                ps.setString(index, key);
            }
        }

        @Override
        public String read(ResultSet rs, int column) throws SQLException {
            return rs.getString(column);
        }

        @Override
        public String read(ResultSet rs, String column) throws SQLException {
            return rs.getString(column);
        }

        @Override
        public String toString() {
            return "keys as text";
        }
    };

    /**
     * @param ps    a statement
     * @param index a 1-based parameter position
     * @param key   the key, or {@code null}
     * @throws SQLException from the driver
     */
    void bind(PreparedStatement ps, int index, String key) throws SQLException;

    /**
     * @param rs     a result set on a row
     * @param column a 1-based key column
     * @return the key, or {@code null}
     * @throws SQLException from the driver
     */
    String read(ResultSet rs, int column) throws SQLException;

    /**
     * @param rs     a result set on a row
     * @param column a key column's label
     * @return the key, or {@code null}
     * @throws SQLException from the driver
     */
    default String read(ResultSet rs, String column) throws SQLException {
        return read(rs, rs.findColumn(column));
    }
}
