package dev.rowqueue.jooq;

import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * A {@link DataSource} view of a jOOQ {@link ConnectionProvider}: {@code getConnection()} acquires a connection, and
 * closing the connection it returns releases that connection to the provider (once; later closes do nothing).
 * {@code unwrap(Connection.class)} answers the acquired connection, so rowqueue still recognises the physical
 * connection behind it.
 */
final class ConnectionProviderDataSource implements DataSource {
    private final ConnectionProvider provider;

    ConnectionProviderDataSource(ConnectionProvider provider) {
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection acquired;
        try {
            acquired = provider.acquire();
        } catch (DataAccessException e) {
            throw e.getCause() instanceof SQLException sql ? sql
                    : new SQLException("the jOOQ connection provider did not give a connection: " + e.getMessage(), e);
        }
        if (acquired == null) {
            throw new SQLException("the jOOQ connection provider " + provider + " gave no connection (null)");
        }
        return (Connection) Proxy.newProxyInstance(ConnectionProviderDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new Releasing(provider, acquired));
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("a jOOQ connection provider takes no user name and password");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // no log writer: the provider's own logging applies
    }

    @Override
    public void setLoginTimeout(int seconds) {
        // the provider decides how long acquiring waits
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging logger");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override
    public String toString() {
        return "DataSource[jOOQ " + provider + "]";
    }

    /** The connection handed out: everything goes to the acquired connection but {@code close()}. */
    private static final class Releasing implements InvocationHandler {
        private final ConnectionProvider provider;
        private final Connection acquired;
        private final AtomicBoolean released = new AtomicBoolean();

        Releasing(ConnectionProvider provider, Connection acquired) {
            this.provider = provider;
            this.acquired = acquired;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            int arity = args == null ? 0 : args.length;
            switch (name) {
                case "close":
                    if (arity == 0) {
                        release();
                        return null;
                    }
                    break;
                case "isClosed":
                    if (arity == 0 && released.get()) {
                        return true;
                    }
                    break;
                case "unwrap":
                    if (arity == 1 && ((Class<?>) args[0]).isInstance(acquired)) {
                        return acquired;
                    }
                    break;
                case "isWrapperFor":
                    if (arity == 1 && ((Class<?>) args[0]).isInstance(acquired)) {
                        return true;
                    }
                    break;
                case "equals":
                    if (arity == 1) {
                        return proxy == args[0];
                    }
                    break;
                case "hashCode":
                    if (arity == 0) {
                        return System.identityHashCode(proxy);
                    }
                    break;
                case "toString":
                    if (arity == 0) {
                        return "Connection[" + acquired + (released.get() ? ", released" : "") + "]";
                    }
                    break;
                default:
                    break;
            }
            if (released.get()) {
                throw new SQLException("connection already released to the jOOQ connection provider", "08003");
            }
            try {
                return method.invoke(acquired, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private void release() throws SQLException {
            if (released.compareAndSet(false, true)) {
                try {
                    provider.release(acquired);
                } catch (DataAccessException e) {
                    throw e.getCause() instanceof SQLException sql ? sql
                            : new SQLException("the jOOQ connection provider did not take its connection back: "
                                    + e.getMessage(), e);
                }
            }
        }
    }
}
