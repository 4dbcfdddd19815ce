package dev.rowqueue.testkit;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Set;
import java.util.logging.Logger;

/**
 * A data source whose connections and statements pass every call through an interceptor: the base of the kit's
 * statement counter and fault injector. Statements keep their SQL text (for prepared statements) so an interceptor
 * can see what runs.
 */
public abstract class InterceptingDataSource implements DataSource {

    /** Statement methods that send SQL to the database. */
    protected static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    /** The real data source. */
    protected final DataSource delegate;

    /**
     * @param delegate the real data source
     */
    protected InterceptingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    /** Proceeds with an intercepted call. */
    @FunctionalInterface
    protected interface Call {
        /**
         * @return the real call's result
         * @throws Throwable the real call's exception
         */
        Object proceed() throws Throwable;
    }

    /**
     * Around every call on a connection (statement creation included; the statements are wrapped afterwards).
     *
     * @param method the method
     * @param args   its arguments
     * @param call   proceeds with the real call
     * @return the result to return
     * @throws Throwable to throw instead
     */
    protected Object aroundConnection(Method method, Object[] args, Call call) throws Throwable {
        return call.proceed();
    }

    /**
     * Around every call on a statement.
     *
     * @param sql    the prepared statement's SQL, or {@code null} for a plain statement
     * @param method the method
     * @param args   its arguments
     * @param call   proceeds with the real call
     * @return the result to return
     * @throws Throwable to throw instead
     */
    protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
        return call.proceed();
    }

    /**
     * Called before a connection is requested.
     *
     * @throws SQLException to refuse it
     */
    protected void beforeConnect() throws SQLException {
    }

    @Override
    public Connection getConnection() throws SQLException {
        beforeConnect();
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        beforeConnect();
        return wrap(delegate.getConnection(username, password));
    }

    /**
     * @param connection a connection of the caller's
     * @return the same connection, intercepted
     */
    public Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(InterceptingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("unwrap") && args[0] == Connection.class) {
                        return connection;
                    }
                    Object result = aroundConnection(method, args, () -> invoke(connection, method, args));
                    if (result instanceof Statement s && !method.getName().equals("unwrap")) {
                        String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
                        return wrap(s, sql, (Connection) proxy);
                    }
                    return result;
                });
    }

    private Statement wrap(Statement statement, String sql, Connection connection) {
        Class<?> type = statement instanceof CallableStatement ? CallableStatement.class
                : statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        return (Statement) Proxy.newProxyInstance(InterceptingDataSource.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> method.getName().equals("getConnection") ? connection
                        : aroundStatement(sql, method, args, () -> invoke(statement, method, args)));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
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
