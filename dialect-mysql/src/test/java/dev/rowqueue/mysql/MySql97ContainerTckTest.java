package dev.rowqueue.mysql;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/**
 * MySQL 9.7 in a container (the image {@code mysql:9.7}, pulled, or the image of that name {@code .ci/images/build}
 * makes from Debian sid's {@code mysql-server-core}), REPEATABLE READ, with the last-insert-id claim and the
 * single-writer REPLACE forced, so that both run on MySQL proper too. NOT RUN, with the reason, without a Docker
 * engine or the image.
 */
@Testcontainers(disabledWithoutDocker = true)
class MySql97ContainerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.with(MySqlTargets.container(
                                new MySQLContainer(ContainerImages.require("mysql:9.7"))
                                        .withCommand("--max-connections=300"),
                                "MySQL 9.7 (Testcontainers, mysql:9.7) via mysql-connector-j",
                                new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "-09:30", false)),
                        MySqlDialect.OPTION_CLAIM, "last-insert-id"),
                MySqlDialect.OPTION_SINGLE_WRITER, "replace");
    }
}
