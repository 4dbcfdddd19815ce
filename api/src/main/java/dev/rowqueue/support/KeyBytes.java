package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.KeyCodec;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Arrays;

/**
 * Keys stored as their UTF-8 bytes in a binary key column, for databases whose text comparison would make two
 * different keys one (ignoring case, {@code 'a' = 'A'}, or padding blanks, {@code 'a' = 'a '}) or whose index limit
 * is too small for a text column long enough for any key.
 *
 * <p>A binary column compares byte by byte, whatever the collation. Some binary types still compare blank-padded
 * (Db2's {@code FOR BIT DATA}), so a key ending in a blank gets the byte {@code X'FF'} appended, which never occurs in
 * UTF-8: a stored key then never ends in a blank, and padding cannot make two stored keys equal. A key without a
 * trailing blank is stored as exactly its UTF-8 bytes.
 */
public final class KeyBytes {

    /** The bytes of the longest key: 3 UTF-8 bytes per Java {@code char} at most, plus the marker. */
    public static final int MAX_BYTES = 3 * Dialect.KEY_LENGTH + 1;

    /** Binds keys as their stored bytes ({@link #encode}) and reads them back ({@link #decode}). */
    public static final KeyCodec CODEC = new KeyCodec() {
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

    private static final byte MARKER = (byte) 0xFF;

    private KeyBytes() {
    }

    /**
     * @param key a key
     * @return the bytes stored for it
     */
    public static byte[] encode(String key) {
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
    public static String decode(byte[] stored) {
        if (stored == null) {
            return null;
        }
        int length = stored.length > 0 && stored[stored.length - 1] == MARKER ? stored.length - 1 : stored.length;
        return new String(stored, 0, length, StandardCharsets.UTF_8);
    }
}
