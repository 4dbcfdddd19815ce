package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

/**
 * The whole kit on the newest embedded PostgreSQL in a database a DBA configured for every session with
 * {@code ALTER DATABASE ... SET} (not the URL, not the pool): {@code default_transaction_isolation = serializable},
 * a {@code search_path} that starts at another schema, and {@code statement_timeout} and {@code lock_timeout} of
 * 100 ms. The dialect pins the timeouts to 0 once per physical connection, runs at READ COMMITTED through JDBC, and
 * creates and finds its tables in the schema the path names.
 */
class PostgresNewestEmbeddedDatabaseSettingsTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST);
        String database = PgFixture.configuredDatabase(server, PostgresSessionSettingsTest.DBA_SETTINGS,
                PostgresSessionSettingsTest.DBA_SQL);
        HikariDataSource pool = server.pool(database, 24);
        return TckTargets.of("PostgreSQL " + server.version() + " (embedded, zonky binaries, ALTER DATABASE SET "
                + String.join(", ", PostgresSessionSettingsTest.DBA_SETTINGS) + ")", pool, pool::close);
    }
}
