package dev.rowqueue.tck;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Wraps a data source and counts what reaches the database: statement executions, commits and rollbacks, and the
 * SQL text executed. The bad-input contracts use it to prove that nothing was sent; benchmarks use it to count
 * statements per operation.
 */
public final class CountingDataSource implements DataSource {

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final DataSource delegate;
    private final AtomicLong executions = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong rollbacks = new AtomicLong();
    private final List<String> recent = new CopyOnWriteArrayList<>();
    private volatile boolean recording;

    /**
     * @param delegate the real data source
     */
    public CountingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    /** @return statement executions so far (a batch counts once) */
    public long executions() {
        return executions.get();
    }

    /** @return explicit commits so far */
    public long commits() {
        return commits.get();
    }

    /** @return explicit rollbacks so far */
    public long rollbacks() {
        return rollbacks.get();
    }

    /**
     * Starts recording executed SQL text (cleared).
     */
    public void record() {
        recent.clear();
        recording = true;
    }

    /** @return the SQL recorded since {@link #record()} (prepared statements by their text) */
    public List<String> recorded() {
        recording = false;
        return List.copyOf(recent);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(delegate.getConnection(username, password));
    }

    /**
     * @param connection a connection of the caller's
     * @return the same connection, counted
     */
    public Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler(connection));
    }

    private final class ConnectionHandler implements InvocationHandler {
        private final Connection target;

        ConnectionHandler(Connection target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("commit")) {
                commits.incrementAndGet();
            } else if (name.equals("rollback") && (args == null || args.length == 0)) {
                rollbacks.incrementAndGet();
            } else if (name.equals("unwrap") && args[0] == Connection.class) {
                return target;
            }
            Object result = invokeTarget(target, method, args);
            if (result instanceof Statement s && !name.equals("unwrap")) {
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
                Class<?> type = s instanceof CallableStatement ? CallableStatement.class
                        : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                return Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type},
                        new StatementHandler(s, sql, (Connection) proxy));
            }
            return result;
        }
    }

    private final class StatementHandler implements InvocationHandler {
        private final Statement target;
        private final String sql;
        private final Connection connection;

        StatementHandler(Statement target, String sql, Connection connection) {
            this.target = target;
            this.sql = sql;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (EXECUTIONS.contains(name)) {
                executions.incrementAndGet();
                if (recording) {
                    recent.add(args != null && args.length > 0 && args[0] instanceof String text ? text : sql);
                }
            } else if (name.equals("getConnection")) {
                return connection;
            }
            return invokeTarget(target, method, args);
        }
    }

    static Object invokeTarget(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
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
