package dev.rowqueue.jooq;

/** The jOOQ binding on embedded PostgreSQL (zonky's binaries of the newest version the build tests). */
class PostgresJooqTransactionTest extends JooqTransactionContract {
    @Override
    JooqTarget open() {
        return EmbeddedServers.postgres();
    }
}
