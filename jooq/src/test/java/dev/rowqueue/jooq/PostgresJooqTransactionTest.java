package dev.rowqueue.jooq;

import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.jooq.SQLDialect;

/** The jOOQ binding on embedded PostgreSQL (zonky's binaries of the newest version the build tests). */
class PostgresJooqTransactionTest extends JooqTransactionContract {
    @Override
    JooqTarget open() {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared();
        return JooqTarget.of("PostgreSQL (embedded)", SQLDialect.POSTGRES, server.url(server.newDatabase("jooq")),
                "postgres", "");
    }
}
