package dev.rowqueue.db2;

import dev.rowqueue.spi.Dialect;

import dev.rowqueue.spi.KeyCodec;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Arrays;

/**
 * How keys (ring groups, counter keys, rotation cursor names) are stored on Db2, so that keys differing only in case
 * or trailing blanks stay different keys.
 *
 * <p>Db2 compares character strings, FOR BIT DATA included, after padding the shorter one with blanks, and unique
 * indexes follow the same rule: in a {@code VARCHAR} key column {@code 'a'} and {@code 'a '} are duplicates. Binary
 * strings ({@code VARBINARY}) compare exactly, but cannot be compared with character strings at all. rowqueue
 * stores a key as its UTF-8 bytes in a {@code VARCHAR(601) FOR BIT DATA} column (compared byte by byte, whatever the
 * database's collation, so {@code 'a'} and {@code 'A'} differ too) and, when the key ends with a blank, appends the
 * byte {@code X'FF'}, which never occurs in UTF-8. A stored key therefore never ends with a blank, and blank padding
 * can no longer make two stored keys equal. A key without trailing blanks is stored as exactly its UTF-8 bytes, so
 * {@code WHERE grp = 'g'} still finds group {@code g} in a Unicode database.
 */
final class Db2Keys {

    /** The bytes of the longest key: 3 UTF-8 bytes per Java {@code char} at most, plus the marker. */
    static final int MAX_BYTES = 3 * Dialect.KEY_LENGTH + 1;
    /** The key column type. */
    static final String COLUMN_TYPE = "VARCHAR(" + MAX_BYTES + ") FOR BIT DATA";
    private static final byte MARKER = (byte) 0xFF;

    private Db2Keys() {
    }

    /**
     * @param key a key
     * @return the bytes stored for it
     */
    static byte[] encode(String key) {
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        if (utf8.length == 0 || utf8[utf8.length - 1] != ' ') {
            return utf8;
        }
        byte[] marked = Arrays.copyOf(utf8, utf8.length + 1);
        marked[utf8.length] = MARKER;
        return marked;
    }

    /**
     * @param stored the bytes of a key column, or {@code null}
     * @return the key, or {@code null}
     */
    static String decode(byte[] stored) {
        if (stored == null) {
            return null;
        }
        int length = stored.length > 0 && stored[stored.length - 1] == MARKER ? stored.length - 1 : stored.length;
        return new String(stored, 0, length, StandardCharsets.UTF_8);
    }

    /** Binds keys as their stored bytes ({@link #encode}) and reads them back ({@link #decode}). */
    static final KeyCodec CODEC = new KeyCodec() {
        @Override
        public void bind(PreparedStatement ps, int index, String key) throws SQLException {
            if (key == null) {
                ps.setNull(index, Types.VARBINARY);
            } else {
                ps.setBytes(index, encode(key));
            }
        }

        @Override
        public String read(ResultSet rs, int column) throws SQLException {
            return decode(rs.getBytes(column));
        }

        @Override
        public String read(ResultSet rs, String column) throws SQLException {
            return decode(rs.getBytes(column));
        }

        @Override
        public String toString() {
            return "keys as UTF-8 bytes, marked after a trailing blank";
        }
    };
}
