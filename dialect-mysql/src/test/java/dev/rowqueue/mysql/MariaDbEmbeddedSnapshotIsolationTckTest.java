package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit the way MariaDB 11.6.2+ runs by default: REPEATABLE READ with {@code innodb_snapshot_isolation=ON}
 * (write conflicts fail with error 1020 and must be retried). Through MySQL Connector/J, with the last-insert-id claim
 * and the single-writer REPLACE, so that each driver and each isolation level also meets the other claim and
 * single-writer statement.
 */
class MariaDbEmbeddedSnapshotIsolationTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.with(MySqlTargets.embedded("tck_snapshot_rr", EmbeddedMariaDb.Driver.MYSQL,
                                new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "+00:00", true)),
                        MySqlDialect.OPTION_CLAIM, "last-insert-id"),
                MySqlDialect.OPTION_SINGLE_WRITER, "replace");
    }
}
