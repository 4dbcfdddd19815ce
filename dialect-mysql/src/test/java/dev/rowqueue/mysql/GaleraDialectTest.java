package dev.rowqueue.mysql;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the dialect does on a Galera node, without a server: detection, session settings, errors, DDL, retries. */
class GaleraDialectTest {

    private static final DatabaseProduct MARIADB = new DatabaseProduct("MariaDB", "10.11.19-MariaDB-0+deb12u1", 10,
            11, "MariaDB Connector/J", "3.5.6", "jdbc:mariadb://h/db");

    /** A connection that answers {@code SHOW ... wsrep_on} with {@code wsrepOn} (no row if null), recording SQL. */
    private static Connection connection(String wsrepOn, List<String> sql, Connection physical) {
        return (Connection) Proxy.newProxyInstance(GaleraDialectTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> switch (m.getName()) {
                    case "createStatement" -> statement(wsrepOn, sql);
                    case "isWrapperFor" -> physical != null;
                    case "unwrap" -> physical;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static Statement statement(String wsrepOn, List<String> sql) {
        return (Statement) Proxy.newProxyInstance(GaleraDialectTest.class.getClassLoader(),
                new Class<?>[] {Statement.class}, (p, m, a) -> switch (m.getName()) {
                    case "execute" -> {
                        sql.add((String) a[0]);
                        yield false;
                    }
                    case "executeQuery" -> {
                        sql.add((String) a[0]);
                        yield rows(wsrepOn == null ? List.of() : List.of(wsrepOn));
                    }
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static ResultSet rows(List<String> values) {
        int[] at = {-1};
        return (ResultSet) Proxy.newProxyInstance(GaleraDialectTest.class.getClassLoader(),
                new Class<?>[] {ResultSet.class}, (p, m, a) -> switch (m.getName()) {
                    case "next" -> ++at[0] < values.size();
                    case "getString" -> (Integer) a[0] == 1 ? "wsrep_on" : values.get(at[0]);
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static MySqlDialect galera() throws SQLException {
        return (MySqlDialect) new MariaDbDialectProvider().create(MARIADB, Map.of(),
                connection("ON", new ArrayList<>(), null));
    }

    @Test
    void galera_is_detected_from_wsrep_on_and_nothing_else() throws SQLException {
        List<String> sql = new ArrayList<>();
        assertTrue(MySqlDialect.isGalera(connection("ON", sql, null)));
        assertEquals(List.of("SHOW GLOBAL VARIABLES WHERE Variable_name = 'wsrep_on'"), sql);
        assertFalse(MySqlDialect.isGalera(connection("OFF", sql, null)), "a wsrep build with replication off");
        assertFalse(MySqlDialect.isGalera(connection(null, sql, null)), "a server without wsrep has no such variable");
        assertTrue(galera().galera());
        Dialect plain = new MariaDbDialectProvider().create(MARIADB, Map.of(), connection(null, sql, null));
        assertFalse(((MySqlDialect) plain).galera());
        assertTrue(galera().toString().contains("Galera"), galera().toString());
    }

    @Test
    void each_physical_connection_gets_the_galera_session_once_and_other_servers_the_sql_mode_pin_alone() throws SQLException {
        MySqlDialect d = galera();
        List<String> sql = new ArrayList<>();
        Connection physical = connection("ON", sql, null);
        d.prepareConnection(connection("ON", sql, physical)); // a pool's proxy, borrowed twice
        d.prepareConnection(connection("ON", sql, physical));
        assertEquals(List.of(MySqlDialect.GALERA_SESSION), sql);
        assertTrue(MySqlDialect.GALERA_SESSION.contains("wsrep_retry_autocommit = 0"));
        assertTrue(MySqlDialect.GALERA_SESSION.contains("wsrep_sync_wait = 7"));
        d.prepareConnection(connection("ON", sql, connection("ON", sql, null)));
        assertEquals(2, sql.size(), "another physical connection is set too");

        List<String> plainSql = new ArrayList<>();
        MySqlDialect.create(MySqlDialect.MARIADB, MARIADB, Map.of()).prepareConnection(connection("OFF", plainSql,
                null));
        assertEquals(List.of(MySqlDialect.SESSION), plainSql);
    }

    @Test
    void a_certification_failure_on_any_statement_commit_included_is_a_rolled_back_transaction() throws SQLException {
        MySqlDialect d = galera();
        // What MariaDB Connector/J throws for a COMMIT (or any statement) that lost certification.
        SQLException deadlock = new SQLTransactionRollbackException(
                "(conn=13) Deadlock found when trying to get lock; try restarting transaction", "40001", 1213);
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(deadlock));
        assertTrue(d.classify(deadlock).transientFailure());
    }

    @Test
    void a_node_outside_the_primary_component_refused_the_statement_before_running_it() throws SQLException {
        MySqlDialect d = galera();
        SQLException notPrepared = new SQLNonTransientConnectionException(
                "WSREP has not yet prepared node for application use", "08S01", 1047);
        assertEquals(SqlErrorKind.CONNECTION, d.classify(notPrepared));
        assertTrue(d.failedBeforeSending(notPrepared));
        assertFalse(d.failedBeforeSending(new SQLNonTransientConnectionException("lost", "08S01", 2013)));
    }

    @Test
    void a_node_that_lost_the_cluster_while_replicating_a_commit_cannot_tell_its_outcome() throws SQLException {
        MySqlDialect d = galera();
        // What a stalled or cut-off node answered in the fault campaign (docs/reliability.md): the write set may have
        // reached the others, so this is a connection lost at commit (an unknown outcome), not a rollback to retry
        SQLException lostCluster = new SQLException("(conn=16) Error while appending streaming replication"
                + " fragment(provider status: Not connected to Primary Component)", "HY000", 1180);
        assertEquals(SqlErrorKind.CONNECTION, d.classify(lostCluster));
        assertFalse(d.failedBeforeSending(lostCluster));
    }

    @Test
    void rings_get_no_trigger_on_galera_and_keep_it_elsewhere() throws SQLException {
        RingTables t = RingTables.of("rq");
        RingOptions safe = RingOptions.ofCapacity(10);
        assertFalse(String.join("\n", galera().ddl().ring(t, safe)).contains("TRIGGER"));
        assertFalse(galera().triggerPush());
        MySqlDialect plain = MySqlDialect.create(MySqlDialect.MARIADB, MARIADB, Map.of());
        assertTrue(String.join("\n", plain.ddl().ring(t, safe)).contains("CREATE TRIGGER"));
    }

    @Test
    void galera_retries_more_often_with_the_same_backoff() throws SQLException {
        RetryPolicy d = RetryPolicy.defaults();
        assertEquals(d, MySqlDialect.create(MySqlDialect.MARIADB, MARIADB, Map.of()).policy().retryPolicy());
        assertEquals(new RetryPolicy(MySqlDialect.GALERA_ATTEMPTS, d.initialBackoff(), d.maxBackoff()),
                galera().policy().retryPolicy());
    }
}
