package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.QueueConflictException;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Consumers never create a work queue; the producer side does (issue 24, item 4). A misspelt queue name shows as one
 * warning instead of an empty queue of its own.
 */
class MissingQueueTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream before;
    private JdbcDataSource h2;
    private final AtomicBoolean down = new AtomicBoolean();
    private DataSource ds;

    @BeforeEach
    void setUp() {
        before = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:missing_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && down.get()) {
                        throw new SQLException("connection refused (simulated outage)", "08001");
                    }
                    try {
                        return method.invoke(h2, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @AfterEach
    void tearDown() throws SQLException {
        System.setErr(before);
        down.set(false);
        try (Connection c = h2.getConnection()) {
            c.createStatement().execute("SHUTDOWN");
        }
    }

    private List<String> missingWarnings(String queue) {
        return err.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("WARN") && l.contains("queue '" + queue + "' does not exist yet")).toList();
    }

    @Test
    void a_consumer_on_a_missing_queue_creates_nothing_gets_nothing_and_is_warned_once() {
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            WorkQueue typo = rq.workQueue("nc_never");
            assertThat(typo.claim(1)).isEmpty();
            assertThat(typo.claim(1, Duration.ofMillis(30))).isEmpty();
            assertThat(typo.rotate("c", 5)).isEmpty();
            assertThat(typo.ackAndClaim(List.of(), 3).claimed()).isEmpty();
            assertThat(typo.stats()).isEqualTo(new QueueStats(0, 0, 0, 0));
            assertThat(typo.statsByKey(5)).isEmpty();
            assertThat(typo.deadLetters(5)).isEmpty();
            assertThat(typo.revive(1)).isFalse();
            assertThat(typo.reviveAll()).isZero();
            assertThat(typo.purgeDead()).isZero();
            assertThat(rq.queues()).isEmpty();
            assertThat(missingWarnings("nc_never")).hasSize(1);
            assertThat(missingWarnings("nc_never").get(0)).contains("nc_never");
        }
    }

    @Test
    void a_worker_may_start_before_the_producer_and_takes_the_first_jobs() throws Exception {
        try (RowQueues consumer = RowQueues.builder(ds).pollInterval(Duration.ofMillis(50)).build(); RowQueues producer = RowQueues.builder(ds).build()) {
            List<String> seen = new CopyOnWriteArrayList<>();
            try (Worker w = consumer.workQueue("orders").worker(ctx -> seen.add(ctx.job().payload()),
                    WorkerOptions.defaults()).start()) {
                Thread.sleep(200);
                assertThat(consumer.queues()).isEmpty();
                producer.workQueue("orders").enqueue("first");
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (seen.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
            assertThat(seen).containsExactly("first");
            assertThat(missingWarnings("orders")).hasSize(1);
        }
    }

    @Test
    void a_table_whose_first_read_fails_while_another_node_creates_it_is_read_once_more_not_reported() {
        try (RowQueues producer = RowQueues.builder(ds).build()) {
            producer.workQueue("racy").enqueue("made by a migration tool");
        }
        try (Connection c = h2.getConnection()) {
            c.createStatement().execute("DELETE FROM rowqueue_catalog WHERE queue_name = 'racy'"); // not registered
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();
        DataSource racing = failingFirstRead(ds, "SELECT * FROM racy", looks);
        try (RowQueues consumer = RowQueues.builder(racing).build()) {
            assertThat(consumer.workQueue("racy").claim(1)).extracting(Job::payload)
                    .containsExactly("made by a migration tool");
        }
        assertThat(looks.get()).as("the failed look, then the look that found the table").isEqualTo(2);
        assertThat(missingWarnings("racy")).isEmpty();
    }

    /**
     * Connections whose first {@code SELECT} containing {@code fragment} fails as H2 fails a read racing the table's
     * creation ("not found (candidates are: ...)", a state H2's dialect knows, given here as a general error).
     */
    private static DataSource failingFirstRead(DataSource real, String fragment,
                                               java.util.concurrent.atomic.AtomicInteger reads) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(real, method, args);
                    if (!(result instanceof Connection c)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (cp, cm, ca) -> {
                                Object r = invoke(c, cm, ca);
                                if (!(r instanceof java.sql.Statement st) || r instanceof java.sql.PreparedStatement) {
                                    return r;
                                }
                                return Proxy.newProxyInstance(java.sql.Statement.class.getClassLoader(),
                                        new Class<?>[] {java.sql.Statement.class}, (sp, sm, sa) -> {
                                            if (sm.getName().equals("executeQuery") && sa[0] instanceof String sql
                                                    && sql.contains(fragment) && reads.incrementAndGet() == 1) {
                                                throw new SQLException("Table \"RACY\" not found (candidates are:"
                                                        + " \"RACY\") (simulated)", "HY000", 0);
                                            }
                                            return invoke(st, sm, sa);
                                        });
                            });
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void the_producer_side_creates_the_queue() {
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            WorkQueue mail = rq.workQueue("mail");
            assertThat(rq.queues()).isEmpty();
            mail.enqueue("hello");
            assertThat(rq.queues()).extracting(q -> q.name() + ":" + q.kind()).containsExactly("mail:" + QueueKind.WORK);
            rq.workQueue("explicit").create();
            assertThat(rq.queues()).hasSize(2);
            assertThat(rq.workQueue("explicit").claim(1)).isEmpty();
            assertThat(missingWarnings("explicit")).isEmpty();
            List<Job> jobs = rq.workQueue("mail").claim(5);
            assertThat(jobs).extracting(Job::payload).containsExactly("hello");
        }
    }

    @Test
    void a_queue_of_another_kind_still_conflicts_when_the_handle_is_made() {
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            rq.ring("fruit", 3).push("g", "apple");
            assertThatThrownBy(() -> rq.workQueue("fruit")).isInstanceOf(QueueConflictException.class);
        }
    }

    @Test
    void a_database_outage_is_still_thrown() {
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            WorkQueue q = rq.workQueue("later");
            down.set(true);
            assertThatThrownBy(() -> q.claim(1)).isInstanceOf(RowQueueException.class);
            assertThat(missingWarnings("later")).isEmpty();
        }
    }
}
