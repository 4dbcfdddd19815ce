package dev.rowqueue.internal;

import dev.rowqueue.RowQueueException;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.portable.PortableDialect;
import dev.rowqueue.spi.SqlOp;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Operations on a caller's connection that lose it: in the caller's transaction nothing committed (transient); a
 * statement in auto-commit mode, or the commit of the operation's own transaction, may have committed (unknown).
 */
class BoundExecutorTest {

    private final PortableDialect dialect = new PortableDialect(DatabaseProduct.assumed("H2", 2, 5));
    private final Connection real;

    BoundExecutorTest() throws SQLException {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:bound;DB_CLOSE_DELAY=-1");
        real = ds.getConnection();
    }

    @AfterEach
    void close() throws SQLException {
        real.close();
    }

    private static SqlOp<Integer> lost() {
        return c -> {
            throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
        };
    }

    /** The caller's connection, whose commit loses the connection, after which it is closed. */
    private Connection dyingAtCommit() {
        boolean[] dead = {false};
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    if (dead[0] && !m.getName().equals("close")) {
                        throw new SQLException("This connection has been closed.", "08003");
                    }
                    if (m.getName().equals("commit")) {
                        dead[0] = true;
                        throw new SQLException("FATAL: terminating connection due to administrator command", "08006");
                    }
                    return m.invoke(real, a);
                });
    }

    @Test
    void a_statement_in_auto_commit_mode_that_loses_the_connection_is_of_unknown_outcome() {
        assertThatThrownBy(() -> new BoundExecutor(real, dialect).run("enqueue", SqlOp.statement(lost())))
                .isInstanceOf(UnknownCommitOutcomeException.class).hasMessageContaining("caller's connection")
                .hasMessageContaining("08006");
    }

    @Test
    void a_commit_of_the_operations_own_transaction_that_loses_the_connection_is_of_unknown_outcome() {
        SqlOp<Integer> op = SqlOp.transaction(c -> 1);
        assertThatThrownBy(() -> new BoundExecutor(dyingAtCommit(), dialect).run("rotate", op))
                .isInstanceOfSatisfying(UnknownCommitOutcomeException.class,
                        e -> assertThat(e.sqlState()).as("the commit's failure, not the closed connection's after it")
                                .isEqualTo("08006"));
    }

    @Test
    void a_connection_lost_before_the_commit_of_the_operations_own_transaction_is_transient() throws SQLException {
        assertThatThrownBy(() -> new BoundExecutor(real, dialect).run("rotate", SqlOp.transaction(lost())))
                .isInstanceOf(TransientRowQueueException.class);
        assertThat(real.getAutoCommit()).as("the caller's connection is back in auto-commit mode").isTrue();
    }

    @Test
    void in_the_callers_transaction_a_lost_connection_is_transient_as_nothing_was_committed() throws SQLException {
        real.setAutoCommit(false);
        assertThatThrownBy(() -> new BoundExecutor(real, dialect).run("enqueue", SqlOp.statement(lost())))
                .isInstanceOf(TransientRowQueueException.class);
        real.rollback();
    }

    @Test
    void a_statement_on_a_connection_known_to_be_closed_is_transient() {
        SqlOp<Integer> closed = c -> {
            throw new SQLException("This connection has been closed.", "08003");
        };
        assertThatThrownBy(() -> new BoundExecutor(real, dialect).run("enqueue", SqlOp.statement(closed)))
                .isInstanceOf(TransientRowQueueException.class);
    }

    @Test
    void a_read_only_database_is_named_as_such() {
        SqlOp<Integer> readOnly = c -> {
            throw new SQLException("ERROR: cannot execute INSERT in a read-only transaction", "25006");
        };
        assertThatThrownBy(() -> new BoundExecutor(real, dialect).run("enqueue", SqlOp.statement(readOnly)))
                .isExactlyInstanceOf(RowQueueException.class).hasMessageContaining("read-only")
                .hasMessageContaining("primary");
    }
}
