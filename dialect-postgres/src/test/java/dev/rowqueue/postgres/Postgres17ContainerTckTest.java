package dev.rowqueue.postgres;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The whole kit on PostgreSQL 17 in a container: the image {@code postgres:17-alpine}, pulled, or the image of that name
 * {@code .ci/images/build} makes from Debian's {@code postgresql-17}. Without a Docker engine, or without the image,
 * the report says NOT RUN with the reason ({@link ContainerImages#require(String)}).
 */
@Testcontainers(disabledWithoutDocker = true)
class Postgres17ContainerTckTest extends RowQueueTck {

    static final String IMAGE = "postgres:17-alpine";

    @Override
    protected TckTarget target() {
        PostgreSQLContainer postgres = new PostgreSQLContainer(ContainerImages.require(IMAGE));
        postgres.start();
        try {
            TckTargets.Target pooled = PostgresTargets.pooled("PostgreSQL 17 (Testcontainers, " + IMAGE + ")",
                    postgres.getJdbcUrl(), postgres.getUsername(), postgres.getPassword());
            return TckTargets.of(pooled.name(), pooled.dataSource(), () -> {
                pooled.close();
                postgres.stop();
            });
        } catch (RuntimeException e) {
            postgres.stop();
            throw e;
        }
    }
}
