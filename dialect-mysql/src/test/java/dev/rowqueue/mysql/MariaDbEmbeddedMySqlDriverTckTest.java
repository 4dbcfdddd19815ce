package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit on the embedded MariaDB through MySQL Connector/J (which reports the product as "MySQL"; the MariaDB
 * provider must still win), sessions at READ COMMITTED in another odd time zone, and the single-writer strategy as
 * {@code REPLACE ... SELECT} of "MySQL Queues, part II — groups of queues".
 */
class MariaDbEmbeddedMySqlDriverTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.embedded("tck_mysqldriver_rc", EmbeddedMariaDb.Driver.MYSQL,
                        new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "-09:30", false)),
                MySqlDialect.OPTION_SINGLE_WRITER, "replace");
    }
}
