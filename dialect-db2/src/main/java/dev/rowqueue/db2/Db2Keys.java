package dev.rowqueue.db2;

import dev.rowqueue.support.KeyBytes;

/**
 * How keys (ring groups, counter keys, rotation cursor names) are stored on Db2, so that keys differing only in case
 * or trailing blanks stay different keys.
 *
 * <p>Db2 compares character strings, FOR BIT DATA included, after padding the shorter one with blanks, and unique
 * indexes follow the same rule: in a {@code VARCHAR} key column {@code 'a'} and {@code 'a '} are duplicates. Binary
 * strings ({@code VARBINARY}) compare exactly, but cannot be compared with character strings at all. rowqueue
 * stores a key as its UTF-8 bytes in a {@code VARCHAR(601) FOR BIT DATA} column, marked after a trailing blank
 * ({@link KeyBytes}), so {@code WHERE grp = 'g'} still finds group {@code g} in a Unicode database.
 */
final class Db2Keys {

    /** The key column type. */
    static final String COLUMN_TYPE = "VARCHAR(" + KeyBytes.MAX_BYTES + ") FOR BIT DATA";

    private Db2Keys() {
    }
}
