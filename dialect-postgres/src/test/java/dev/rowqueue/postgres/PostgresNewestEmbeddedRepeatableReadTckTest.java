package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

/**
 * The whole kit on the newest embedded PostgreSQL with a pool whose default isolation is REPEATABLE READ (a common HikariCP setting): rowqueue's own
 * operations run at READ COMMITTED whatever the pool hands out.
 */
class PostgresNewestEmbeddedRepeatableReadTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return PgFixture.target(EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST),
                "TRANSACTION_REPEATABLE_READ");
    }
}
