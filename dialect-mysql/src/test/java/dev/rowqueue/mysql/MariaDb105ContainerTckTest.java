package dev.rowqueue.mysql;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mariadb.MariaDBContainer;

/**
 * MariaDB 10.5 in a container: the last MariaDB without SKIP LOCKED, so the last-insert-id claim runs by default, and
 * the first with {@code INSERT ... RETURNING}. NOT RUN, with the reason, without a Docker engine or the image.
 */
@Testcontainers(disabledWithoutDocker = true)
class MariaDb105ContainerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.container(new MariaDBContainer(ContainerImages.require("mariadb:10.5"))
                        .withCommand("--max-connections=300"),
                "MariaDB 10.5 (Testcontainers, mariadb:10.5) via mariadb-java-client",
                new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "-03:30", false));
    }
}
