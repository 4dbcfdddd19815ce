package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/** The whole kit on the oldest supported PostgreSQL major, embedded. */
class PostgresOldestEmbeddedTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return EmbeddedPostgresServer.shared(EmbeddedPostgresServer.OLDEST).target();
    }
}
