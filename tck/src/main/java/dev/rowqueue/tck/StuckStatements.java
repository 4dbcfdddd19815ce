package dev.rowqueue.tck;

import dev.rowqueue.testkit.InterceptingDataSource;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the kit's connections are running, so that a rule that times out names the stuck statements and what they
 * wait on instead of failing with a bare {@link TimeoutException}. Every statement execution and commit through a
 * {@link #track tracked} data source is registered while it runs (its SQL, its thread, since when). At a timeout,
 * {@link #await} fails with the statements that have run longest and, where the database has a lock view, its rows
 * (all on one line, which is what a report shows of a failure):
 * the lock views below are probed in turn on a connection of the tracked data source (the first query the database
 * accepts is used; none is chosen by the product's name), within {@link #VIEW_PATIENCE}.
 */
public final class StuckStatements extends InterceptingDataSource {

    /** Lock and session views tried in turn, each a query that lists who holds or waits for what. */
    static final List<String> LOCK_VIEWS = List.of(
            "SELECT * FROM pg_locks WHERE NOT granted",
            "SELECT * FROM performance_schema.data_lock_waits",
            "SELECT * FROM information_schema.innodb_lock_waits",
            "SELECT * FROM SYSCS_DIAG.LOCK_TABLE",
            "SELECT * FROM INFORMATION_SCHEMA.SYSTEM_SESSIONS",
            "SELECT * FROM INFORMATION_SCHEMA.LOCKS",
            "SELECT * FROM MON$STATEMENTS WHERE MON$STATE = 1",
            "SELECT * FROM SYSIBMADM.MON_LOCKWAITS",
            "SELECT * FROM V$LOCK WHERE REQUEST > 0 OR BLOCK > 0",
            "SELECT * FROM sys.dm_tran_locks WHERE request_status = 'WAIT'");
    /** How long the lock view may take to answer (the database may be stuck itself). */
    static final Duration VIEW_PATIENCE = Duration.ofSeconds(10);
    /** Statements and lock rows listed at most. */
    static final int MAX_ROWS = 20;

    /** A statement running now. */
    record Running(String thread, String sql, long sinceNanos) {
    }

    private static final ConcurrentHashMap<Long, Running> RUNNING = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();
    private static volatile StuckStatements latest;
    private volatile String lockView;
    private volatile boolean probed;

    private StuckStatements(DataSource delegate) {
        super(delegate);
    }

    /**
     * @param dataSource the database under test
     * @return it, with its running statements tracked; the data source {@link #await} asks for lock views
     */
    public static DataSource track(DataSource dataSource) {
        StuckStatements s = new StuckStatements(dataSource);
        latest = s;
        return s;
    }

    @Override
    protected Object aroundConnection(Method method, Object[] args, Call call) throws Throwable {
        String name = method.getName();
        return name.equals("commit") || name.equals("rollback") ? running(name.toUpperCase(java.util.Locale.ROOT),
                call) : call.proceed();
    }

    @Override
    protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
        if (!EXECUTIONS.contains(method.getName())) {
            return call.proceed();
        }
        String text = sql != null ? sql : args != null && args.length > 0 && args[0] instanceof String s ? s
                : "(a batch)";
        return running(text, call);
    }

    private static Object running(String sql, Call call) throws Throwable {
        long id = IDS.incrementAndGet();
        RUNNING.put(id, new Running(Thread.currentThread().getName(), sql, System.nanoTime()));
        try {
            return call.proceed();
        } finally {
            RUNNING.remove(id);
        }
    }

    /** @return the statements running now, longest first */
    static List<Running> running() {
        List<Running> list = new ArrayList<>(RUNNING.values());
        list.sort(Comparator.comparingLong(Running::sinceNanos));
        return list;
    }

    /**
     * Waits for a step of a rule; at the timeout, fails with what is stuck.
     *
     * @param step    the step
     * @param timeout how long it may take
     * @param what    the step, for the message, e.g. "8 producers"
     * @param <T>     its result type
     * @return its result
     * @throws AssertionError          at the timeout: the step, the statements running longest, and the lock view's
     *                                 rows where the database has one
     * @throws ExecutionException      if the step failed
     * @throws InterruptedException    if interrupted
     */
    public static <T> T await(Future<T> step, Duration timeout, String what)
            throws ExecutionException, InterruptedException {
        try {
            return step.get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            AssertionError stuck = new AssertionError(what + " did not finish within " + timeout + ". " + describe(),
                    e);
            throw stuck;
        }
    }

    /** @return the statements running longest and the lock view's rows, as text */
    public static String describe() {
        StringBuilder b = new StringBuilder();
        List<Running> list = running();
        long now = System.nanoTime();
        if (list.isEmpty()) {
            b.append("No statement of the kit's connections is running (the wait is in Java, not in the database).");
        } else {
            b.append("Statements running (longest first):");
            for (Running r : list.subList(0, Math.min(MAX_ROWS, list.size()))) {
                b.append(" [").append(TimeUnit.NANOSECONDS.toMillis(now - r.sinceNanos())).append(" ms on thread '")
                        .append(r.thread()).append("': ").append(r.sql().replace('\n', ' ')).append(']');
            }
        }
        StuckStatements s = latest;
        if (s != null) {
            b.append(' ').append(s.lockRows());
        }
        return b.toString();
    }

    /** @return the probed lock view's rows, or why there are none */
    String lockRows() {
        ExecutorService one = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "rowqueue-tck-lock-view");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<String> rows = one.submit(this::readLockView);
            return rows.get(VIEW_PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "The lock view did not answer within " + VIEW_PATIENCE + ".";
        } catch (ExecutionException e) {
            return "The lock view could not be read: " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "Interrupted while reading the lock view.";
        } finally {
            one.shutdownNow();
        }
    }

    private String readLockView() throws SQLException {
        try (Connection c = delegate.getConnection()) {
            if (!probed) {
                for (String view : LOCK_VIEWS) {
                    if (rows(c, view) != null) {
                        lockView = view;
                        break;
                    }
                }
                probed = true;
            }
            String view = lockView;
            if (view == null) {
                return "The database has none of the lock views the kit knows (" + LOCK_VIEWS.size() + " tried).";
            }
            List<String> rows = rows(c, view);
            return rows == null ? "The lock view failed: " + view
                    : "Lock view (" + view + "): " + (rows.isEmpty() ? "no rows"
                    : "[" + String.join("] [", rows) + "]");
        }
    }

    /** @return the query's rows as text, at most {@link #MAX_ROWS}, or {@code null} if the database refused it */
    private static List<String> rows(Connection c, String query) {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            ResultSetMetaData md = rs.getMetaData();
            List<String> rows = new ArrayList<>();
            while (rs.next() && rows.size() < MAX_ROWS) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    Object v = rs.getObject(i);
                    if (v != null) {
                        row.append(row.length() == 0 ? "" : ", ").append(md.getColumnLabel(i)).append('=')
                                .append(String.valueOf(v).strip());
                    }
                }
                rows.add(row.toString());
            }
            return rows;
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }
}
