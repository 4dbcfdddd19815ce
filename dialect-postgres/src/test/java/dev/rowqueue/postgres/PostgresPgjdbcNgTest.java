package dev.rowqueue.postgres;

import dev.rowqueue.Capability;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.DriverManagerDataSource;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the dialect says of a driver that lacks what {@code LISTEN} needs: through pgjdbc-ng, whose connections are not
 * {@code org.postgresql.PGConnection}, blocking claims poll, and the dialect's description (the TCK report's "Dialect
 * settings", shown before the first rule) names the driver and the interface; through pgjdbc it says nothing of it.
 */
class PostgresPgjdbcNgTest {

    @Test
    void the_dialect_names_what_a_driver_lacks_for_listen() {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST);
        String database = server.newDatabase("ng");
        DatabaseInfo ng;
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource("jdbc:pgsql://127.0.0.1:" + server.port()
                + "/" + database, "postgres", "")).build()) {
            ng = rq.database();
        }
        assertEquals(PostgresDialect.NAME, ng.dialect());
        assertTrue(ng.driver().startsWith("pgjdbc-ng"), ng.driver());
        assertTrue(ng.dialectSettings().contains("blocking claims poll")
                && ng.dialectSettings().contains("org.postgresql.PGConnection"), ng.dialectSettings());
        assertFalse(ng.capabilities().contains(Capability.WAKEUP), ng.capabilities().toString());

        DatabaseInfo pgjdbc;
        try (RowQueues rq = RowQueues.builder(server.dataSource(database)).build()) {
            pgjdbc = rq.database();
        }
        assertFalse(pgjdbc.dialectSettings().contains("PGConnection"), pgjdbc.dialectSettings());
        assertTrue(pgjdbc.capabilities().contains(Capability.WAKEUP), pgjdbc.capabilities().toString());
    }
}
