package dev.rowqueue.tck;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Wraps a real data source and injects one fault: the n-th statement execution, commit or connection request
 * fails, either before the call reaches the database (it never ran) or after (it ran, and then the answer was
 * lost, as when a connection dies mid-flight). The transaction contracts use it to prove that retries never apply an
 * operation twice.
 */
public final class FaultyDataSource implements DataSource {

    /** Where a fault strikes. */
    public enum Point {
        /** {@code DataSource.getConnection()}. */
        CONNECT,
        /** A statement's {@code execute*} call. */
        EXECUTE,
        /** {@code Connection.commit()}. */
        COMMIT
    }

    private record Fault(Point point, int nth, boolean afterCall, Supplier<SQLException> error) {
    }

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final DataSource delegate;
    private final AtomicReference<Fault> fault = new AtomicReference<>();
    private final AtomicInteger seen = new AtomicInteger();
    private final AtomicInteger fired = new AtomicInteger();

    /**
     * @param delegate the real data source
     */
    public FaultyDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    /**
     * Arms one fault.
     *
     * @param point     where
     * @param nth       on the n-th call there, from 1
     * @param afterCall {@code true} to let the call reach the database first
     * @param error     the exception to throw
     */
    public void arm(Point point, int nth, boolean afterCall, Supplier<SQLException> error) {
        seen.set(0);
        fault.set(new Fault(point, nth, afterCall, error));
    }

    /** Disarms any fault. */
    public void disarm() {
        fault.set(null);
    }

    /** @return how many faults were thrown since creation */
    public int fired() {
        return fired.get();
    }

    private boolean strikes(Point point, boolean afterCall) {
        Fault f = fault.get();
        if (f == null || f.point() != point || f.afterCall() != afterCall) {
            return false;
        }
        if (seen.incrementAndGet() == f.nth() && fault.compareAndSet(f, null)) {
            fired.incrementAndGet();
            return true;
        }
        return false;
    }

    private Object guarded(Point point, Object target, Method method, Object[] args) throws Throwable {
        Fault f = fault.get();
        if (f != null && strikes(point, false)) {
            throw f.error().get();
        }
        Object result = CountingDataSource.invokeTarget(target, method, args);
        if (f != null && strikes(point, true)) {
            throw f.error().get();
        }
        return result;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Fault f = fault.get();
        if (f != null && strikes(Point.CONNECT, false)) {
            throw f.error().get();
        }
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(delegate.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new InvocationHandler() {
                    @Override
                    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                        if (method.getName().equals("commit")) {
                            return guarded(Point.COMMIT, connection, method, args);
                        }
                        Object result = CountingDataSource.invokeTarget(connection, method, args);
                        if (result instanceof Statement s && !method.getName().equals("unwrap")) {
                            Class<?> type = s instanceof CallableStatement ? CallableStatement.class
                                    : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                            return Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(),
                                    new Class<?>[] {type}, (p, m, a) -> EXECUTIONS.contains(m.getName())
                                            ? guarded(Point.EXECUTE, s, m, a)
                                            : m.getName().equals("getConnection") ? proxy
                                            : CountingDataSource.invokeTarget(s, m, a));
                        }
                        return result;
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }
}
