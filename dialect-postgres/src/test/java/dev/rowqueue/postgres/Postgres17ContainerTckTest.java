package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/** The whole kit on PostgreSQL in a container; disabled, and reported NOT RUN, where there is no Docker engine. */
@Testcontainers(disabledWithoutDocker = true)
class Postgres17ContainerTckTest extends RowQueueTck {

    @Container
    static final PostgreSQLContainer POSTGRES = new PostgreSQLContainer("postgres:17-alpine");

    @Override
    protected TckTarget target() {
        return PostgresTargets.pooled("PostgreSQL 17 (Testcontainers)", POSTGRES.getJdbcUrl(), POSTGRES.getUsername(),
                POSTGRES.getPassword());
    }
}
