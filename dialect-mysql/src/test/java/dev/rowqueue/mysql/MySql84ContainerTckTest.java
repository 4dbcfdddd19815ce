package dev.rowqueue.mysql;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/**
 * MySQL 8.4 LTS in a container, through MySQL Connector/J, READ COMMITTED: SKIP LOCKED claims, {@code utf8mb4_0900_bin}
 * keys, the row alias instead of {@code VALUES()}. NOT RUN, with the reason, without a Docker engine or the image.
 */
@Testcontainers(disabledWithoutDocker = true)
class MySql84ContainerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.container(new MySQLContainer(ContainerImages.require("mysql:8.4"))
                        .withCommand("--max-connections=300"),
                "MySQL 8.4 (Testcontainers, mysql:8.4) via mysql-connector-j",
                new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+05:45", false));
    }
}
