package dev.rowqueue.jooq;

import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/** A jOOQ connection provider of another kind than jOOQ's own: acquires from a pool, releases to it, and counts. */
final class CountingProvider implements ConnectionProvider {
    private final DataSource pool;
    final AtomicInteger acquired = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();
    volatile Connection last;

    CountingProvider(DataSource pool) {
        this.pool = pool;
    }

    @Override
    public Connection acquire() {
        try {
            Connection c = pool.getConnection();
            acquired.incrementAndGet();
            last = c;
            return c;
        } catch (SQLException e) {
            throw new DataAccessException("cannot acquire a connection", e);
        }
    }

    @Override
    public void release(Connection connection) {
        try {
            connection.close();
            released.incrementAndGet();
        } catch (SQLException e) {
            throw new DataAccessException("cannot release a connection", e);
        }
    }
}
