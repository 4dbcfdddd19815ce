package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit on the embedded MariaDB through MariaDB Connector/J, sessions at REPEATABLE READ (InnoDB's default)
 * in an odd time zone, with the defaults the server gets: SKIP LOCKED claims, single-writer {@code upsert}, VARCHAR
 * keys with {@code utf8mb4_nopad_bin}.
 */
class MariaDbEmbeddedTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.embedded("tck_mariadb_rr", EmbeddedMariaDb.Driver.MARIADB,
                new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "+05:45", false));
    }
}
