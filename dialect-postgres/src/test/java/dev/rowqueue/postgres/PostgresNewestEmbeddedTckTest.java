package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

/** The whole kit on the newest PostgreSQL available as embedded binaries. */
class PostgresNewestEmbeddedTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return PgFixture.target(EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST));
    }
}
