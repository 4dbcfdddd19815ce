package dev.rowqueue.internal;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.portable.PortableDialect;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PooledExecutorTest {

    private final JdbcDataSource ds = new JdbcDataSource();
    private final PooledExecutor executor;

    PooledExecutorTest() {
        ds.setURL("jdbc:h2:mem:executor;DB_CLOSE_DELAY=-1");
        executor = new PooledExecutor(ds, new PortableDialect(DatabaseProduct.assumed("H2", 2, 5)),
                new RetryPolicy(3, Duration.ZERO, Duration.ZERO));
    }

    /** Fails with {@code error} the first {@code failures} times, then returns the attempt number. */
    private static SqlOp<Integer> failing(int failures, SQLException error, AtomicInteger attempts) {
        return c -> {
            int n = attempts.incrementAndGet();
            if (n <= failures) {
                throw error;
            }
            return n;
        };
    }

    @Test
    void a_transaction_that_deadlocks_is_retried_until_it_succeeds() {
        AtomicInteger attempts = new AtomicInteger();
        int result = executor.run("op", SqlOp.transaction(failing(2,
                new SQLTransactionRollbackException("deadlock", "40001"), attempts)));
        assertThat(result).isEqualTo(3);
    }

    @Test
    void retries_stop_at_the_policy_with_a_transient_exception_naming_the_attempts() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> executor.run("op", SqlOp.transaction(failing(5,
                new SQLTransactionRollbackException("deadlock", "40001"), attempts))))
                .isInstanceOf(TransientRowQueueException.class).hasMessageContaining("after 3 attempts");
        assertThat(attempts).hasValue(3);
    }

    @Test
    void a_statement_that_loses_its_connection_mid_flight_is_reported_not_retried() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> executor.run("op", SqlOp.statement(failing(1,
                new SQLException("connection reset", "08S01"), attempts))))
                .isInstanceOf(UnknownCommitOutcomeException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void a_read_that_loses_its_connection_is_retried() {
        AtomicInteger attempts = new AtomicInteger();
        assertThat(executor.run("op", SqlOp.read(failing(1, new SQLException("reset", "08S01"), attempts))))
                .isEqualTo(2);
    }

    @Test
    void a_statement_on_a_connection_known_to_be_closed_is_retried() {
        AtomicInteger attempts = new AtomicInteger();
        assertThat(executor.run("op", SqlOp.statement(failing(1, new SQLException("closed", "08003"), attempts))))
                .isEqualTo(2);
    }

    @Test
    void a_transaction_that_loses_its_connection_before_commit_is_retried() {
        AtomicInteger attempts = new AtomicInteger();
        assertThat(executor.run("op", SqlOp.transaction(failing(1, new SQLException("reset", "08S01"), attempts))))
                .isEqualTo(2);
    }

    @Test
    void a_duplicate_key_is_retried_only_where_the_operation_allows_it() {
        SQLException dup = new SQLIntegrityConstraintViolationException("dup", "23505");
        AtomicInteger a = new AtomicInteger();
        assertThatThrownBy(() -> executor.run("op", SqlOp.statement(failing(1, dup, a))))
                .isInstanceOf(RowQueueException.class).isNotInstanceOf(TransientRowQueueException.class);
        AtomicInteger b = new AtomicInteger();
        assertThat(executor.run("op", SqlOp.statement(failing(1, dup, b)).retryingDuplicateKey())).isEqualTo(2);
    }

    @Test
    void a_write_refused_by_a_read_only_database_fails_at_once_with_a_clear_error() {
        AtomicInteger attempts = new AtomicInteger();
        SQLException readOnly = new SQLException("ERROR: cannot execute UPDATE in a read-only transaction", "25006");
        assertThat(new PortableDialect(DatabaseProduct.assumed("H2", 2, 5)).classify(readOnly)).isEqualTo(SqlErrorKind.READ_ONLY);
        assertThatThrownBy(() -> executor.run("claim from mail", SqlOp.statement(failing(5, readOnly, attempts))))
                .isExactlyInstanceOf(RowQueueException.class)
                .hasMessageContaining("claim from mail failed: the database is read-only")
                .hasMessageContaining("targetServerType=primary")
                .satisfies(e -> assertThat(((RowQueueException) e).sqlState()).isEqualTo("25006"));
        assertThat(attempts).as("not retried: the same pool reaches the same read-only server").hasValue(1);
    }

    @Test
    void a_transaction_runs_at_read_committed_and_the_connection_is_restored() throws SQLException {
        int isolation = executor.run("op", SqlOp.transaction(c -> {
            assertThat(c.getAutoCommit()).isFalse();
            return c.getTransactionIsolation();
        }));
        assertThat(isolation).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
        boolean autoCommit = executor.run("op", SqlOp.statement(Connection::getAutoCommit));
        assertThat(autoCommit).isTrue();
    }

    @Test
    void errors_keep_their_sqlstate_and_vendor_code() {
        assertThatThrownBy(() -> executor.run("select", SqlOp.read(c -> {
            c.createStatement().executeQuery("SELECT * FROM no_such_table");
            return null;
        }))).isInstanceOfSatisfying(RowQueueException.class, e -> {
            assertThat(e.sqlState()).startsWith("42S0");
            assertThat(e.vendorCode()).isNotZero();
            assertThat(e.getMessage()).contains("select failed").contains(e.sqlState());
        });
    }

    /**
     * A pool's connection at REPEATABLE READ whose physical connection dies right after the statement committed: the
     * pool swaps in a closed stand-in whose every method throws (HikariCP's, {@code hashCode} included), so putting the
     * level back fails. The committed result still comes back, and nothing else breaks.
     */
    @Test
    void a_level_that_cannot_be_put_back_after_a_statement_does_not_fail_it() throws SQLException {
        Connection real = ds.getConnection();
        real.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        AtomicInteger sets = new AtomicInteger();
        Object closedStandIn = java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> {
                    throw new SQLException("Connection is closed", "08003");
                });
        Connection pooled = (Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> switch (m.getName()) {
                    case "isWrapperFor" -> true;
                    case "unwrap" -> sets.get() > 1 ? closedStandIn : real;
                    case "setTransactionIsolation" -> {
                        if (sets.incrementAndGet() > 1) {
                            throw new SQLException("terminating connection due to administrator command", "57P01");
                        }
                        yield m.invoke(real, a);
                    }
                    case "close" -> null;
                    default -> m.invoke(real, a);
                });
        javax.sql.DataSource one = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class},
                (p, m, a) -> m.getName().equals("getConnection") ? pooled : m.invoke(ds, a));
        PooledExecutor strict = new PooledExecutor(one, new dev.rowqueue.spi.Dialect(DatabaseProduct.assumed("H2", 2, 5)) {
            @Override
            public String name() {
                return "strict";
            }

            @Override
            public dev.rowqueue.spi.DialectPolicy policy() {
                return dev.rowqueue.spi.DialectPolicy.DEFAULTS.withReadCommittedStatements(true);
            }
        }, new RetryPolicy(3, Duration.ZERO, Duration.ZERO));
        SqlOp<Integer> first = SqlOp.statement(c -> 42);
        SqlOp<Integer> second = SqlOp.statement(c -> 43);
        assertThat((int) strict.run("op", first)).isEqualTo(42);
        assertThat(sets).hasValue(2);
        assertThat((int) strict.run("op again", second)).as("the stand-in's throwing hashCode is no key")
                .isEqualTo(43);
        real.close();
    }
}
