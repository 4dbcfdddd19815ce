package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

/**
 * The whole kit on the newest embedded PostgreSQL through pgjdbc-ng, a second JDBC driver independent of pgjdbc: it
 * refuses several commands in one prepared statement (SQLState 42601), and its connections are not
 * {@code org.postgresql.PGConnection}, so blocking claims poll instead of listening.
 */
class PostgresNewestEmbeddedPgjdbcNgTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return PgFixture.pgjdbcNgTarget(EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST));
    }
}
