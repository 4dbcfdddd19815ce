package dev.rowqueue.support;

import dev.rowqueue.portable.PortableDialect;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlErrorKind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Jdbc#insertUnlessExists}: what a failed savepoint release means. */
class JdbcTest {

    private final Dialect dialect = new PortableDialect(DatabaseProduct.assumed("SQL", 1, 0));

    /** A connection whose savepoint calls are recorded and whose release fails as told. */
    private static Connection connection(List<String> calls, SQLException onRelease) {
        Savepoint sp = (Savepoint) Proxy.newProxyInstance(JdbcTest.class.getClassLoader(),
                new Class<?>[] {Savepoint.class}, (p, m, a) -> null);
        return (Connection) Proxy.newProxyInstance(JdbcTest.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    calls.add(m.getName());
                    return switch (m.getName()) {
                        case "setSavepoint" -> sp;
                        case "releaseSavepoint" -> {
                            if (onRelease != null) {
                                throw onRelease;
                            }
                            yield null;
                        }
                        default -> null;
                    };
                });
    }

    @Test
    void a_release_failing_because_the_transaction_is_gone_is_not_swallowed() {
        // MariaDB Galera: a transaction that lost certification fails on its next statement, here the release
        SQLException lost = new SQLException("Deadlock found when trying to get lock", "40001", 1213);
        List<String> calls = new ArrayList<>();
        SQLException thrown = assertThrows(SQLException.class,
                () -> Jdbc.insertUnlessExists(connection(calls, lost), dialect, () -> { }));
        assertSame(lost, thrown, "the caller must not commit and report the insert");
        assertEquals(List.of("setSavepoint", "releaseSavepoint"), calls);
    }

    @Test
    void a_driver_that_cannot_release_savepoints_is_ignored_and_a_duplicate_rolls_back_to_the_savepoint()
            throws SQLException {
        List<String> calls = new ArrayList<>();
        assertTrue(Jdbc.insertUnlessExists(connection(calls, new SQLFeatureNotSupportedException("no")), dialect,
                () -> { }));
        List<String> duplicate = new ArrayList<>();
        assertFalse(Jdbc.insertUnlessExists(connection(duplicate, null), dialect, () -> {
            throw new SQLException("duplicate key", "23505");
        }));
        assertEquals(List.of("setSavepoint", "rollback"), duplicate);
    }

    @Test
    void without_savepoints_a_lost_creation_race_runs_the_transaction_again() throws SQLException {
        Connection noSavepoints = (Connection) Proxy.newProxyInstance(JdbcTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> {
                    if (m.getName().equals("setSavepoint")) {
                        throw new SQLFeatureNotSupportedException("setSavepoint");
                    }
                    return null;
                });
        assertTrue(Jdbc.insertUnlessExists(noSavepoints, dialect, () -> { }));
        SQLException duplicate = new SQLException("duplicate key", "23505");
        SQLException thrown = assertThrows(SQLException.class, () -> Jdbc.insertUnlessExists(noSavepoints, dialect,
                () -> {
                    throw duplicate;
                }));
        assertEquals("40001", thrown.getSQLState(), "a serialization failure: the core runs the transaction again");
        assertSame(duplicate, thrown.getCause());
        assertEquals(SqlErrorKind.ROLLED_BACK, dialect.classify(thrown));
    }
}
