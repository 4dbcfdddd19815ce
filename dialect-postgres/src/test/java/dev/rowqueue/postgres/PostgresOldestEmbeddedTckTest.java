package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

/** The whole kit on the oldest supported PostgreSQL major, embedded. */
class PostgresOldestEmbeddedTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return PgFixture.target(EmbeddedPostgresServer.shared(EmbeddedPostgresServer.OLDEST));
    }
}
