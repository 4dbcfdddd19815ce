package dev.rowqueue.testkit;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Wraps a real data source and injects one fault: the n-th statement execution, commit or connection request
 * fails, either before the call reaches the database (it never ran) or after (it ran, and then the answer was
 * lost, as when a connection dies mid-flight). The transaction contracts use it to prove that retries never apply an
 * operation twice.
 */
public final class FaultyDataSource extends InterceptingDataSource {

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

    private final AtomicReference<Fault> fault = new AtomicReference<>();
    private final AtomicInteger seen = new AtomicInteger();
    private final AtomicInteger fired = new AtomicInteger();

    /**
     * @param delegate the real data source
     */
    public FaultyDataSource(DataSource delegate) {
        super(delegate);
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

    private void strike(Point point, boolean afterCall) throws SQLException {
        Fault f = fault.get();
        if (f == null || f.point() != point || f.afterCall() != afterCall) {
            return;
        }
        if (seen.incrementAndGet() == f.nth() && fault.compareAndSet(f, null)) {
            fired.incrementAndGet();
            throw f.error().get();
        }
    }

    private Object guarded(Point point, Call call) throws Throwable {
        strike(point, false);
        Object result = call.proceed();
        strike(point, true);
        return result;
    }

    @Override
    protected void beforeConnect() throws SQLException {
        strike(Point.CONNECT, false);
    }

    @Override
    protected Object aroundConnection(Method method, Object[] args, Call call) throws Throwable {
        return method.getName().equals("commit") ? guarded(Point.COMMIT, call) : call.proceed();
    }

    @Override
    protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
        return EXECUTIONS.contains(method.getName()) ? guarded(Point.EXECUTE, call) : call.proceed();
    }
}
