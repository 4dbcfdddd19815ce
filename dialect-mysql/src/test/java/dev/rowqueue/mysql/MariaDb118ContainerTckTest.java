package dev.rowqueue.mysql;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mariadb.MariaDBContainer;

/**
 * MariaDB 11.8 LTS in a container, REPEATABLE READ, where {@code innodb_snapshot_isolation} is ON by default (11.6.2+).
 * NOT RUN, with the reason, without a Docker engine or the image.
 */
@Testcontainers(disabledWithoutDocker = true)
class MariaDb118ContainerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.container(new MariaDBContainer(ContainerImages.require("mariadb:11.8"))
                        .withCommand("--max-connections=300"),
                "MariaDB 11.8 (Testcontainers, mariadb:11.8) via mariadb-java-client",
                new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "+05:45", false));
    }
}
