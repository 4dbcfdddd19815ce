package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit with the last-insert-id claim forced ({@code UPDATE ... id = LAST_INSERT_ID(id) ... LIMIT 1}, the path
 * of MySQL 5.7 and MariaDB before 10.6), so that it is proven under the concurrency contracts on a real server, not
 * only written; and with the VARBINARY keys of servers without a NO PAD binary collation. MariaDB Connector/J, READ
 * COMMITTED.
 */
class MariaDbEmbeddedLastInsertIdClaimTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.with(MySqlTargets.embedded("tck_liid_rc", EmbeddedMariaDb.Driver.MARIADB,
                                new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "-03:30", false)),
                        MySqlDialect.OPTION_CLAIM, "last-insert-id"),
                MySqlDialect.OPTION_KEY_TYPE, "varbinary");
    }
}
