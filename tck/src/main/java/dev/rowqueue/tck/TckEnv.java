package dev.rowqueue.tck;

import dev.rowqueue.Capability;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.FaultyDataSource;
import org.junit.jupiter.api.Assumptions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a contract needs of the database under test: {@link RowQueues} instances on it (through a statement counter
 * and a fault injector), fresh queue names that are dropped after each test, direct JDBC access, and the dialect's
 * capabilities.
 */
public final class TckEnv {

    private final TckTarget target;
    private final DataSource raw;
    private final CountingDataSource counting;
    private final FaultyDataSource faults;
    private final RowQueues rq;
    private final Set<String> created = ConcurrentHashMap.newKeySet();

    /**
     * @param target the database under test
     */
    public TckEnv(TckTarget target) {
        this.target = target;
        this.raw = target.dataSource();
        this.counting = new CountingDataSource(StuckStatements.track(raw)); // a timeout names what is stuck
        this.faults = new FaultyDataSource(counting);
        this.rq = builder().build();
    }

    /** @return the database under test */
    public TckTarget target() {
        return target;
    }

    /** @return the shared instance for this target */
    public RowQueues rq() {
        return rq;
    }

    /**
     * A builder on the target, configured with its dialect and options, not recording activity: use it for a second
     * "node". Its scheduler is off ({@code scheduler(true)} turns it on), so that no contract but
     * {@link ScheduleContract} sees its statements.
     *
     * @return a builder on the target's data source (counted, fault-injectable)
     */
    public RowQueues.Builder builder() {
        // statement counts stay exact: activity is recorded only where a contract asks for it (JobContract)
        // and no node heartbeat either, where a contract does not ask for it (NodeContract)
        RowQueues.Builder b = RowQueues.builder(faults).recordActivity(false).registerNode(false).scheduler(false)
                .operationListener(Refusals.WATCH); // a refused statement fails a waiting rule at once
        target.dialect().ifPresent(b::dialect);
        target.dialectOptions().forEach(b::dialectOption);
        return b;
    }

    /** @return the statement counter in front of the database */
    public CountingDataSource counting() {
        return counting;
    }

    /** @return the fault injector in front of the database */
    public FaultyDataSource faults() {
        return faults;
    }

    /** @return the target's data source, untouched */
    public DataSource rawDataSource() {
        return raw;
    }

    /** @return what rowqueue detected */
    public DatabaseInfo database() {
        return rq.database();
    }

    /**
     * @param capability a capability
     * @return whether the dialect declares it on this database
     */
    public boolean has(Capability capability) {
        return database().capabilities().contains(capability);
    }

    /**
     * Skips the calling test, reported as skipped with the reason, unless the dialect declares the capability.
     * Only optional contracts may call this.
     *
     * @param capability the capability the test needs
     */
    public void assume(Capability capability) {
        Assumptions.assumeTrue(has(capability), () -> "optional: dialect '" + database().dialect()
                + "' does not declare " + capability + " on " + database().productName() + " "
                + database().productVersion());
    }

    /**
     * A fresh queue name, dropped after the test.
     *
     * @return a name like {@code tck_k3x9q2ab}
     */
    public String newName() {
        String name = randomName();
        created.add(name);
        return name;
    }

    /** @return a random name like {@code tck_k3x9q2ab}, not tracked */
    static String randomName() {
        StringBuilder b = new StringBuilder("tck_");
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < 8; i++) {
            b.append("abcdefghijklmnopqrstuvwxyz0123456789".charAt(r.nextInt(36)));
        }
        return b.toString();
    }

    /**
     * Tracks a name the test chose itself, so it is dropped after the test.
     *
     * @param name a queue name
     * @return the name
     */
    public String track(String name) {
        created.add(name.toLowerCase(Locale.ROOT));
        return name;
    }

    /**
     * Runs JDBC work on a connection of the raw data source, in auto-commit mode.
     *
     * @param work the work
     * @param <T>  its result
     * @return the result
     */
    public <T> T jdbc(JdbcWork<T> work) {
        try (Connection c = raw.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException("direct JDBC work failed: " + e.getMessage(), e);
        }
    }

    /**
     * Runs an SQL statement directly.
     *
     * @param sql the statement
     * @return its update count, or -1
     */
    public int execute(String sql) {
        return jdbc(c -> {
            try (var s = c.createStatement()) {
                return s.execute(sql) ? -1 : s.getUpdateCount();
            }
        });
    }

    /** Drops the queues of the last test. */
    public void cleanup() {
        faults.disarm();
        List<String> names = List.copyOf(created);
        created.clear();
        for (String name : names) {
            try {
                rq.dropQueue(name);
            } catch (RuntimeException e) {
                // a test may have broken the queue on purpose; nothing to clean then
            }
        }
    }

    /** JDBC work with a result. */
    @FunctionalInterface
    public interface JdbcWork<T> {
        /**
         * @param connection a connection in auto-commit mode
         * @return a result
         * @throws SQLException from the driver
         */
        T run(Connection connection) throws SQLException;
    }
}
