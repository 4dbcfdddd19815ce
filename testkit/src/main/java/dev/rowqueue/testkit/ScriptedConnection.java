package dev.rowqueue.testkit;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A fake JDBC connection for dialect unit tests, for databases that cannot run where the tests run: it reaches no
 * database, records every statement a store executes (its SQL text as prepared, the values bound by position and
 * how, and cursor settings) and answers from a script. With it a dialect module pins the exact SQL each store
 * operation sends, and tests the store's logic around the answers (an empty result, a duplicate key, an out
 * parameter left NULL).
 *
 * <p>Answers are consumed in order, one per execution ({@code executeQuery}, {@code executeUpdate},
 * {@code execute}, {@code executeBatch}): rows for a query (or for {@code getGeneratedKeys} after an update, or the
 * value of a callable statement's out parameter), an update count, or an exception to throw. With no answer left, a
 * query returns no rows, an update counts 0 and an out parameter is NULL.
 */
public final class ScriptedConnection {

    /** One execution: the SQL, the values bound (by 1-based position, in order) and how each was bound. */
    public record Execution(String sql, Map<Integer, Object> values, Map<Integer, String> setters, int fetchSize,
                            int maxRows) {
        /**
         * @param position a 1-based parameter position
         * @return the value bound there ({@code byte[]} for {@code setBytes}, {@code null} for {@code setNull})
         */
        public Object value(int position) {
            return values.get(position);
        }
    }

    private final Deque<Object> answers = new ArrayDeque<>();
    private final List<Execution> executions = Collections.synchronizedList(new ArrayList<>());
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private boolean autoCommit = true;

    /**
     * Answers the next execution with rows; each row maps column labels to values, in select-list order.
     *
     * @param rows the rows
     * @return this
     */
    @SafeVarargs
    public final ScriptedConnection rows(Map<String, Object>... rows) {
        answers.add(List.of(rows));
        return this;
    }

    /**
     * Answers the next execution with an update count (or, for a batch, every row's count).
     *
     * @param count the count
     * @return this
     */
    public ScriptedConnection updated(int count) {
        answers.add(count);
        return this;
    }

    /**
     * Makes the next execution throw.
     *
     * @param e the exception
     * @return this
     */
    public ScriptedConnection fails(SQLException e) {
        answers.add(e);
        return this;
    }

    /**
     * @param labelsAndValues column label, value, label, value, ...
     * @return a row for {@link #rows}
     */
    public static Map<String, Object> row(Object... labelsAndValues) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 0; i + 1 < labelsAndValues.length; i += 2) {
            row.put(String.valueOf(labelsAndValues[i]), labelsAndValues[i + 1]);
        }
        return row;
    }

    /** @return the executions so far, in order */
    public List<Execution> executions() {
        return List.copyOf(executions);
    }

    /** @return the SQL of the executions so far, in order */
    public List<String> sql() {
        return executions().stream().map(Execution::sql).toList();
    }

    /** @return connection calls other than preparing statements (setSavepoint, rollback, commit, ...), in order */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    /** @return whether every answer of the script was used */
    public boolean scriptUsed() {
        return answers.isEmpty();
    }

    /** @return the fake connection */
    public Connection connection() {
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "prepareStatement", "prepareCall" -> statement((String) a[0], m.getName().equals("prepareCall"));
            case "getAutoCommit" -> autoCommit;
            case "setAutoCommit" -> {
                autoCommit = (Boolean) a[0];
                yield null;
            }
            case "setSavepoint" -> {
                calls.add("setSavepoint");
                yield proxy(Savepoint.class, (p2, m2, a2) -> m2.getName().equals("toString") ? "savepoint" : 0);
            }
            case "rollback", "commit", "releaseSavepoint" -> {
                calls.add(m.getName() + (a == null ? "" : "(savepoint)"));
                yield null;
            }
            case "isClosed" -> false;
            case "close" -> null;
            case "getTransactionIsolation" -> Connection.TRANSACTION_READ_COMMITTED;
            case "toString" -> "ScriptedConnection";
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("ScriptedConnection." + m.getName());
        });
    }

    private Object statement(String sql, boolean callable) {
        Map<Integer, Object> values = new TreeMap<>();
        Map<Integer, String> setters = new TreeMap<>();
        int[] cursor = {0, 0};
        Object[] last = {null};
        Class<?> type = callable ? CallableStatement.class : PreparedStatement.class;
        return proxy(type, (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("set") && a != null && a.length >= 2 && a[0] instanceof Integer position
                    && !name.equals("setFetchSize") && !name.equals("setMaxRows")) {
                values.put(position, name.equals("setNull") ? null : a[1]);
                setters.put(position, name);
                return null;
            }
            switch (name) {
                case "setFetchSize":
                    cursor[0] = (Integer) a[0];
                    return null;
                case "setMaxRows":
                    cursor[1] = (Integer) a[0];
                    return null;
                case "registerOutParameter", "close", "clearParameters":
                    return null;
                case "addBatch":
                    executions.add(execution(sql, values, setters, cursor));
                    values.clear();
                    setters.clear();
                    return null;
                case "executeBatch":
                    Object batch = next();
                    return batch instanceof Integer count ? new int[] {count} : new int[0];
                case "executeQuery", "executeUpdate", "execute":
                    executions.add(execution(sql, values, setters, cursor));
                    last[0] = next();
                    if (name.equals("executeQuery")) {
                        return resultSet(last[0] instanceof List<?> rows ? rows : List.of());
                    }
                    if (name.equals("executeUpdate")) {
                        return last[0] instanceof Integer count ? count : last[0] instanceof List<?> ? 1 : 0;
                    }
                    return last[0] instanceof List<?> && !callable;
                case "getGeneratedKeys", "getResultSet":
                    return resultSet(last[0] instanceof List<?> rows ? rows : List.of());
                case "getLong", "getObject", "getString", "getInt":
                    return outValue(last[0], name);
                case "wasNull":
                    return outValue(last[0], "getObject") == null;
                case "toString":
                    return "scripted[" + sql + "]";
                case "hashCode":
                    return System.identityHashCode(p);
                case "equals":
                    return p == a[0];
                default:
                    throw new UnsupportedOperationException("ScriptedConnection statement." + name);
            }
        });
    }

    private static Execution execution(String sql, Map<Integer, Object> values, Map<Integer, String> setters,
                                       int[] cursor) {
        return new Execution(sql, nonNull(values), Collections.unmodifiableMap(new TreeMap<>(setters)), cursor[0],
                cursor[1]);
    }

    private static Map<Integer, Object> nonNull(Map<Integer, Object> values) {
        Map<Integer, Object> copy = new TreeMap<>();
        values.forEach((k, v) -> copy.put(k, v == null ? NULL : v));
        return Collections.unmodifiableMap(copy);
    }

    /** Stands for a bound SQL NULL in {@link Execution#values()}. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "NULL";
        }
    };

    private static Object outValue(Object answer, String getter) {
        Object v = answer instanceof List<?> rows && !rows.isEmpty()
                ? ((Map<?, ?>) rows.get(0)).values().iterator().next() : null;
        if (v == null) {
            return switch (getter) {
                case "getLong" -> 0L;
                case "getInt" -> 0;
                default -> null;
            };
        }
        return switch (getter) {
            case "getLong" -> ((Number) v).longValue();
            case "getInt" -> ((Number) v).intValue();
            case "getString" -> String.valueOf(v);
            default -> v;
        };
    }

    private Object next() throws SQLException {
        Object answer = answers.poll();
        if (answer instanceof SQLException e) {
            throw e;
        }
        return answer;
    }

    private static ResultSet resultSet(List<?> rows) {
        int[] at = {-1};
        Object[] lastValue = {null};
        return proxy(ResultSet.class, (p, m, a) -> {
            switch (m.getName()) {
                case "next":
                    return ++at[0] < rows.size();
                case "close":
                    return null;
                case "wasNull":
                    return lastValue[0] == null;
                case "getLong", "getInt", "getString", "getBytes", "getObject":
                    Map<?, ?> row = (Map<?, ?>) rows.get(at[0]);
                    Object v = a[0] instanceof Integer i ? new ArrayList<>(row.values()).get(i - 1)
                            : row.get(((String) a[0]).toLowerCase(Locale.ROOT));
                    lastValue[0] = v;
                    return switch (m.getName()) {
                        case "getLong" -> v == null ? 0L : ((Number) v).longValue();
                        case "getInt" -> v == null ? 0 : ((Number) v).intValue();
                        case "getString" -> v == null ? null : String.valueOf(v);
                        default -> v;
                    };
                default:
                    throw new UnsupportedOperationException("ScriptedConnection result set." + m.getName());
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return (T) Proxy.newProxyInstance(ScriptedConnection.class.getClassLoader(), new Class<?>[] {type},
                (p, m, a) -> {
                    try {
                        return handler.invoke(p, m, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public String toString() {
        return "ScriptedConnection" + Arrays.toString(sql().toArray());
    }
}
