package dev.rowqueue.mysql;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/**
 * MySQL 5.7 in a container: no SKIP LOCKED (the last-insert-id claim by default), no NO PAD binary collation (VARBINARY
 * keys), {@code VALUES()} in upserts. NOT RUN, with the reason, without a Docker engine or the image.
 */
@Testcontainers(disabledWithoutDocker = true)
class MySql57ContainerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.container(new MySQLContainer(ContainerImages.require("mysql:5.7"))
                        .withCommand("--max-connections=300"),
                "MySQL 5.7 (Testcontainers, mysql:5.7) via mysql-connector-j",
                new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+05:45", false));
    }
}
