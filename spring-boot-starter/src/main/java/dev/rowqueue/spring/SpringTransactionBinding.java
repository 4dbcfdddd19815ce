package dev.rowqueue.spring;

import dev.rowqueue.spi.TransactionBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Joins the Spring-managed transaction of the calling thread: inside a {@code @Transactional} method (or a
 * {@code TransactionTemplate}), rowqueue's operations run on the transaction's connection, obtained and released with
 * {@link DataSourceUtils} as {@code JdbcTemplate} does, and commit or roll back with it. Outside an actual
 * transaction, and in one that does not hold a connection of rowqueue's data source (a transaction manager of another
 * data source), they run in a transaction of their own.
 *
 * <p>Works with the transaction managers that bind a connection of the data source to the thread
 * ({@code DataSourceTransactionManager}, {@code JdbcTransactionManager}, {@code JpaTransactionManager} with the data
 * source set, as Spring Boot configures them) and with JTA, whose data source hands out an enlisted connection.
 * Registered by {@link RowQueueAutoConfiguration} unless {@code rowqueue.transactions.join=false}.
 */
public final class SpringTransactionBinding implements TransactionBinding {
    private static final Logger log = LoggerFactory.getLogger(SpringTransactionBinding.class);

    /**
     * @return the transaction's connection when the thread is in an actual transaction that covers
     *         {@code dataSource}, otherwise {@code null}
     */
    @Override
    public Connection currentConnection(DataSource dataSource) throws SQLException {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return null;
        }
        Connection c = DataSourceUtils.doGetConnection(dataSource);
        boolean autoCommit;
        try {
            autoCommit = c.getAutoCommit();
        } catch (SQLException | RuntimeException e) {
            DataSourceUtils.releaseConnection(c, dataSource);
            throw e;
        }
        if (autoCommit) {
            // the thread's transaction is another data source's: this connection would commit each statement
            log.debug("rowqueue: the current transaction holds no connection of {}; running on a connection of its"
                    + " own", dataSource);
            DataSourceUtils.doReleaseConnection(c, dataSource);
            return null;
        }
        return c;
    }

    @Override
    public void release(Connection connection, DataSource dataSource) throws SQLException {
        DataSourceUtils.doReleaseConnection(connection, dataSource);
    }

    /**
     * Registers {@code action} as a transaction synchronization's {@code afterCommit} when the thread's actual
     * transaction covers {@code dataSource} (the rule of {@link #currentConnection}) and synchronization is active.
     */
    @Override
    public boolean afterCommit(DataSource dataSource, Runnable action) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        Connection c;
        try {
            c = currentConnection(dataSource);
        } catch (SQLException | RuntimeException e) {
            log.debug("rowqueue: cannot tell whether the current transaction covers {}; waking at once", dataSource,
                    e);
            return false;
        }
        if (c == null) {
            return false;
        }
        DataSourceUtils.releaseConnection(c, dataSource);
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
        return true;
    }

    @Override
    public String toString() {
        return "SpringTransactionBinding";
    }
}
