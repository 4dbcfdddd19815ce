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
 */
public record DatabaseInfo(String productName, String productVersion, String driver, String dialect,
                           Set<Capability> capabilities, int maxPayloadLength) {
    /** Copies the capability set. */
    public DatabaseInfo {
        capabilities = Set.copyOf(capabilities);
    }
}
