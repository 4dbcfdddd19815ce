package dev.rowqueue;

import java.util.Set;

/**
 * The database a {@link RowQueues} talks to and the dialect serving it.
 *
 * @param productName    as reported by {@code DatabaseMetaData}
 * @param productVersion as reported by {@code DatabaseMetaData}
 * @param driver         driver name and version
 * @param dialect        the dialect's name
 * @param capabilities   what the dialect offers on this version
 * @param maxPayloadLength the longest payload accepted, in characters
 * @param dialectSettings what the dialect chose or found on this database, in words (for the portable dialect, its
 *                        probes' answers: identity syntax, key column type, row limit clause, ...); for reports
 */
public record DatabaseInfo(String productName, String productVersion, String driver, String dialect,
                           Set<Capability> capabilities, int maxPayloadLength, String dialectSettings) {
    /** Copies the capability set. */
    public DatabaseInfo {
        capabilities = Set.copyOf(capabilities);
        dialectSettings = dialectSettings == null ? "" : dialectSettings;
    }

    /**
     * Without dialect settings.
     *
     * @param productName      as reported by {@code DatabaseMetaData}
     * @param productVersion   as reported by {@code DatabaseMetaData}
     * @param driver           driver name and version
     * @param dialect          the dialect's name
     * @param capabilities     what the dialect offers on this version
     * @param maxPayloadLength the longest payload accepted, in characters
     */
    public DatabaseInfo(String productName, String productVersion, String driver, String dialect,
                        Set<Capability> capabilities, int maxPayloadLength) {
        this(productName, productVersion, driver, dialect, capabilities, maxPayloadLength, "");
    }
}
