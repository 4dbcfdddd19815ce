package dev.rowqueue.bench;

import dev.rowqueue.testkit.SimpleDataSource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A few connections opened up front and handed out in turn, with no validation query, no reset and no
 * housekeeping: what the round-trip count sees is what the operation sends, nothing a pool adds. Only for counting.
 */
final class FixedPool extends SimpleDataSource implements AutoCloseable {

    private final List<Connection> all = new ArrayList<>();
    private final BlockingQueue<Connection> idle;

    FixedPool(String url, String user, String password, int size) throws SQLException {
        idle = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            Connection c = DriverManager.getConnection(url, user, password);
            all.add(c);
            idle.add(c);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c;
        try {
            c = idle.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted", e);
        }
        if (c == null) {
            throw new SQLException("no connection free in 60 s");
        }
        Connection real = c;
        boolean[] closed = {false};
        return (Connection) Proxy.newProxyInstance(FixedPool.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close" -> {
                            if (!closed[0]) {
                                closed[0] = true;
                                idle.add(real);
                            }
                            return null;
                        }
                        case "isClosed" -> {
                            return closed[0];
                        }
                        case "unwrap" -> {
                            return ((Class<?>) args[0]).isInstance(real) ? real : real.unwrap((Class<?>) args[0]);
                        }
                        default -> {
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                    }
                });
    }

    @Override
    public void close() {
        for (Connection c : all) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing
            }
        }
    }
}
