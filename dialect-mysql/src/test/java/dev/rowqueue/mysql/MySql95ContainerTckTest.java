package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/**
 * MySQL 9.5 in a container, REPEATABLE READ, with the last-insert-id claim and the single-writer REPLACE forced, so
 * that both run on MySQL proper too. NOT RUN without a Docker engine.
 */
@Testcontainers(disabledWithoutDocker = true)
class MySql95ContainerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.with(MySqlTargets.container(
                                new MySQLContainer("mysql:9.5").withCommand("--max-connections=300"),
                                "MySQL 9.5 (Testcontainers, mysql:9.5) via mysql-connector-j",
                                new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "-09:30", false)),
                        MySqlDialect.OPTION_CLAIM, "last-insert-id"),
                MySqlDialect.OPTION_SINGLE_WRITER, "replace");
    }
}
