package dev.rowqueue.oracle;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the Oracle dialect stores payloads, chosen with the dialect option {@code payload}
 * ({@code RowQueues.builder(ds).dialectOption("payload", "clob")}). Oracle stores '' as NULL, so payload columns are
 * nullable on Oracle and a NULL payload reads back as the empty string.
 *
 * <p>The character limits assume an AL32UTF8 database (the default since 12.2), where one Java {@code char} takes
 * at most 3 bytes (a character outside the BMP is two {@code char}s and 4 bytes): the limit is the column's byte
 * size divided by 3, so every payload of that many characters fits, whatever its characters. Longer payloads are
 * refused with an {@link IllegalArgumentException} before any SQL runs ({@code maxPayloadLength}).
 */
public enum OraclePayload {
    /** {@code VARCHAR2(4000 BYTE)}, the default; payloads up to 1,333 characters. */
    VARCHAR2("varchar2", "VARCHAR2(4000 BYTE)", 4000 / 3),
    /**
     * {@code VARCHAR2(32767 BYTE)}, for databases with {@code MAX_STRING_SIZE = EXTENDED} only; payloads up to
     * 10,922 characters.
     */
    VARCHAR2_EXTENDED("varchar2-extended", "VARCHAR2(32767 BYTE)", 32767 / 3),
    /** {@code CLOB}; payloads up to 1,000,000 characters, at the cost of LOB storage and reads. */
    CLOB("clob", "CLOB", 1_000_000);

    /** The dialect option's name. */
    public static final String OPTION = "payload";

    private final String optionValue;
    private final String columnType;
    private final int maxLength;

    OraclePayload(String optionValue, String columnType, int maxLength) {
        this.optionValue = optionValue;
        this.columnType = columnType;
        this.maxLength = maxLength;
    }

    /** @return the value of the {@code payload} option that selects this storage */
    public String optionValue() {
        return optionValue;
    }

    /** @return the payload column type */
    public String columnType() {
        return columnType;
    }

    /** @return the longest payload, in characters, that always fits */
    public int maxLength() {
        return maxLength;
    }

    /** @return whether a payload can be bound into a PL/SQL block (PL/SQL VARCHAR2 binds hold 32,767 bytes) */
    boolean fitsPlSql() {
        return this != CLOB;
    }

    /**
     * @param value an option value, case-insensitive
     * @return the storage it names
     * @throws IllegalArgumentException naming the accepted values if it names none
     */
    public static OraclePayload of(String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        for (OraclePayload p : values()) {
            if (p.optionValue.equals(v)) {
                return p;
            }
        }
        throw new IllegalArgumentException("oracle dialect option '" + OPTION + "' must be one of "
                + Arrays.stream(values()).map(OraclePayload::optionValue).collect(Collectors.joining(", "))
                + "; got '" + value + "'");
    }
}
