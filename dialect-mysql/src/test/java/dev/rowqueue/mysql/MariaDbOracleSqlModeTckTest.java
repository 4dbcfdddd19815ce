package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

import java.util.List;

/**
 * The whole kit with the {@code mariadb} dialect on a MariaDB server whose {@code sql_mode} is set server-wide (a
 * server option, not the JDBC URL) to {@code ORACLE} (MariaDB's Oracle compatibility: {@code PIPES_AS_CONCAT},
 * {@code ANSI_QUOTES}, {@code IGNORE_SPACE}, {@code SIMULTANEOUS_ASSIGNMENT}, Oracle's PL/SQL grammar, under which
 * {@code BEGIN NOT ATOMIC ... DECLARE} does not parse) plus {@code NO_BACKSLASH_ESCAPES} and
 * {@code EMPTY_STRING_IS_NULL}: the dialect pins its own {@code sql_mode} on every connection it uses
 * ({@link MySqlDialect#SQL_MODE}).
 */
class MariaDbOracleSqlModeTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.dedicated("sql_mode=ORACLE,NO_BACKSLASH_ESCAPES,EMPTY_STRING_IS_NULL",
                List.of("--sql-mode=ORACLE,NO_BACKSLASH_ESCAPES,EMPTY_STRING_IS_NULL"), "");
    }
}
