package dev.rowqueue.mysql;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.SqlErrorKind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the dialect does on a MySQL Group Replication member, without a server: detection from what the server
 * answers, the session setting, the classification of the group's errors, retries and schema DDL.
 */
class GroupReplicationDialectTest {

    private static final DatabaseProduct MYSQL = new DatabaseProduct("MySQL", "9.7.4-2", 9, 7, "MySQL Connector/J",
            "9.5.0", "jdbc:mysql://h/db");

    /**
     * A connection whose member-state query answers {@code state} (no row if null, a 1146 error if "missing") and
     * whose mode query answers {@code singlePrimary}; records SQL.
     */
    private static Connection connection(String state, String singlePrimary, List<String> sql, Connection physical) {
        return (Connection) Proxy.newProxyInstance(GroupReplicationDialectTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> switch (m.getName()) {
                    case "createStatement" -> statement(state, singlePrimary, sql);
                    case "isWrapperFor" -> physical != null;
                    case "unwrap" -> physical;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static Statement statement(String state, String singlePrimary, List<String> sql) {
        return (Statement) Proxy.newProxyInstance(GroupReplicationDialectTest.class.getClassLoader(),
                new Class<?>[] {Statement.class}, (p, m, a) -> switch (m.getName()) {
                    case "execute" -> {
                        sql.add((String) a[0]);
                        yield false;
                    }
                    case "executeQuery" -> {
                        String q = (String) a[0];
                        sql.add(q);
                        if (q.contains("replication_group_members")) {
                            if ("missing".equals(state)) {
                                throw new SQLSyntaxErrorException("Table doesn't exist", "42S02", 1146);
                            }
                            yield rows(state == null ? List.of() : List.of(state));
                        }
                        if (q.contains("wsrep_on")) {
                            yield rows(List.of());
                        }
                        yield rows(List.of(singlePrimary));
                    }
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static ResultSet rows(List<String> values) {
        int[] at = {-1};
        return (ResultSet) Proxy.newProxyInstance(GroupReplicationDialectTest.class.getClassLoader(),
                new Class<?>[] {ResultSet.class}, (p, m, a) -> switch (m.getName()) {
                    case "next" -> ++at[0] < values.size();
                    case "getString" -> values.get(at[0]);
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static MySqlDialect member(String singlePrimary) throws SQLException {
        return (MySqlDialect) new MySqlDialectProvider().create(MYSQL, Map.of(),
                connection("ONLINE", singlePrimary, new ArrayList<>(), null));
    }

    private static MySqlDialect plain() {
        return MySqlDialect.create(MySqlDialect.MYSQL, MYSQL, Map.of());
    }

    @Test
    void group_replication_and_its_mode_are_detected_from_the_members_own_state() throws SQLException {
        assertEquals(MySqlDialect.GroupReplication.SINGLE_PRIMARY, member("ON").groupReplication());
        assertEquals(MySqlDialect.GroupReplication.MULTI_PRIMARY, member("OFF").groupReplication());
        List<String> sql = new ArrayList<>();
        for (String state : List.of("ONLINE", "RECOVERING", "UNREACHABLE", "ERROR")) {
            assertEquals(MySqlDialect.GroupReplication.SINGLE_PRIMARY,
                    MySqlDialect.groupReplication(connection(state, "ON", sql, null)), state);
        }
        assertEquals(MySqlDialect.GroupReplication.NONE,
                MySqlDialect.groupReplication(connection("OFFLINE", "ON", sql, null)), "plugin loaded, not started");
        assertEquals(MySqlDialect.GroupReplication.NONE,
                MySqlDialect.groupReplication(connection(null, "ON", sql, null)), "no row: no plugin");
        assertEquals(MySqlDialect.GroupReplication.NONE,
                MySqlDialect.groupReplication(connection("missing", "ON", sql, null)), "MariaDB, no performance_schema");
        assertTrue(member("OFF").toString().contains("Group Replication, multi-primary"), member("OFF").toString());
    }

    @Test
    void each_physical_connection_of_a_member_asks_for_consistency_before_once() throws SQLException {
        MySqlDialect d = member("ON");
        List<String> sql = new ArrayList<>();
        Connection physical = connection("ONLINE", "ON", sql, null);
        d.prepareConnection(connection("ONLINE", "ON", sql, physical));
        d.prepareConnection(connection("ONLINE", "ON", sql, physical));
        assertEquals(List.of(MySqlDialect.SESSION + ", group_replication_consistency = 'BEFORE'"), sql);
        List<String> plainSql = new ArrayList<>();
        plain().prepareConnection(connection(null, "ON", plainSql, null));
        assertEquals(List.of(MySqlDialect.SESSION), plainSql, "elsewhere the sql_mode pin alone");
    }

    @Test
    void a_lost_certification_is_a_rolled_back_transaction() throws SQLException {
        MySqlDialect d = member("OFF");
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLException(
                "Plugin instructed the server to rollback the current transaction.", "40000", 3101)));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLException(
                "Got error 149 - 'Lock deadlock; Retry transaction' during COMMIT", "HY000", 1180)));
        assertEquals(SqlErrorKind.ROLLED_BACK, d.classify(new SQLTransactionRollbackException(
                "Deadlock found when trying to get lock; try restarting transaction", "40001", 1213)));
        assertEquals(SqlErrorKind.OTHER, d.classify(new SQLException("Got error 28 during COMMIT", "HY000", 1180)));
        assertEquals(SqlErrorKind.OTHER, plain().classify(new SQLException(
                "Got error 149 - 'Lock deadlock; Retry transaction' during COMMIT", "HY000", 1180)),
                "outside a group, 1180 keeps its old classification");
    }

    @Test
    void a_member_that_refuses_a_statement_refused_it_before_running_it_and_elsewhere_1290_is_read_only()
            throws SQLException {
        MySqlDialect d = member("ON");
        for (int code : new int[] {1290, 3032, 3100, 3796, 3797, 3798, 3799}) {
            SQLException e = new SQLException("refused", "HY000", code);
            assertEquals(SqlErrorKind.CONNECTION, d.classify(e), "code " + code);
            assertTrue(d.failedBeforeSending(e), "code " + code);
        }
        SQLException readOnly = new SQLException("The MySQL server is running with the --super-read-only option",
                "HY000", 1290);
        assertEquals(SqlErrorKind.READ_ONLY, plain().classify(readOnly));
        assertFalse(plain().failedBeforeSending(readOnly));
        assertFalse(d.failedBeforeSending(new SQLNonTransientConnectionException("lost", "08S01", 2013)));
    }

    @Test
    void multi_primary_retries_more_often_and_a_member_issues_schema_ddl_only_for_missing_tables()
            throws SQLException {
        RetryPolicy defaults = RetryPolicy.defaults();
        assertEquals(defaults, plain().policy().retryPolicy());
        assertEquals(defaults, member("ON").policy().retryPolicy());
        assertEquals(new RetryPolicy(MySqlDialect.GALERA_ATTEMPTS, defaults.initialBackoff(), defaults.maxBackoff()),
                member("OFF").policy().retryPolicy());
        assertTrue(plain().policy().reissuesExistingSchema());
        assertFalse(member("ON").policy().reissuesExistingSchema());
        assertFalse(member("OFF").policy().reissuesExistingSchema());
    }
}
