package dev.rowqueue.testkit;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a data source and counts what reaches the database: connection requests, statement executions (round trips
 * that carry SQL), commits and rollbacks, and the SQL text executed. The bad-input contracts use it to prove that
 * nothing was sent; benchmarks use it to count statements per operation.
 */
public final class CountingDataSource extends InterceptingDataSource {

    private final AtomicLong executions = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong rollbacks = new AtomicLong();
    private final AtomicLong sessionCalls = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final List<String> recent = new CopyOnWriteArrayList<>();
    private volatile boolean recording;

    /**
     * @param delegate the real data source
     */
    public CountingDataSource(DataSource delegate) {
        super(delegate);
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
     * @return calls that change or read session state and may cost a round trip depending on the driver
     *         ({@code setAutoCommit}, {@code setTransactionIsolation}, {@code getTransactionIsolation},
     *         {@code setSavepoint}, {@code rollback(Savepoint)}, {@code releaseSavepoint})
     */
    public long sessionCalls() {
        return sessionCalls.get();
    }

    /** @return connections requested so far ({@code getConnection} calls, answered or not) */
    public long connections() {
        return connections.get();
    }

    /** Starts recording executed SQL text (cleared). */
    public void record() {
        recent.clear();
        recording = true;
    }

    /** @return how many statements were recorded since {@link #record()}, recording on */
    public int recordedSoFar() {
        return recent.size();
    }

    /** @return the SQL recorded since {@link #record()} (prepared statements by their text) */
    public List<String> recorded() {
        recording = false;
        return List.copyOf(recent);
    }

    @Override
    protected void beforeConnect() {
        connections.incrementAndGet();
    }

    @Override
    protected Object aroundConnection(Method method, Object[] args, Call call) throws Throwable {
        switch (method.getName()) {
            case "commit" -> commits.incrementAndGet();
            case "rollback" -> (args == null || args.length == 0 ? rollbacks : sessionCalls).incrementAndGet();
            case "setAutoCommit", "setTransactionIsolation", "getTransactionIsolation", "setSavepoint",
                    "releaseSavepoint" -> sessionCalls.incrementAndGet();
            default -> {
            }
        }
        return call.proceed();
    }

    @Override
    protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
        if (EXECUTIONS.contains(method.getName())) {
            executions.incrementAndGet();
            if (recording) {
                recent.add(args != null && args.length > 0 && args[0] instanceof String text ? text : sql);
            }
        }
        return call.proceed();
    }
}
