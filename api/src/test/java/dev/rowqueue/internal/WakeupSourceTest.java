package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.spi.WorkTables;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** How blocking claims use a dialect's {@link WakeupSource}: ticket first, then claim, then wait on the ticket. */
class WakeupSourceTest {

    /** Records calls; a ticket's wait ends when {@link #signal()} is called after the ticket was taken. */
    static final class RecordingSource implements WakeupSource {
        final List<String> events = new CopyOnWriteArrayList<>();
        private long version;
        boolean closed;

        synchronized void signal() {
            version++;
            notifyAll();
        }

        @Override
        public synchronized Ticket ticket(WorkTables tables) {
            events.add("ticket " + tables.queue());
            long seen = version;
            return maxNanos -> {
                events.add("await");
                synchronized (RecordingSource.this) {
                    long end = System.nanoTime() + maxNanos;
                    while (version == seen && System.nanoTime() < end) {
                        TimeUnit.NANOSECONDS.timedWait(RecordingSource.this, end - System.nanoTime());
                    }
                }
            };
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private final RecordingSource source = new RecordingSource();

    private RowQueues rq(String db) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
        return RowQueues.builder(ds).registerDialect(TestDialects.provider("signalling", product -> new Dialect(product) {
            @Override
            public String name() {
                return "signalling";
            }

            @Override
            public Optional<WakeupSource> wakeupSource(DataSource dataSource, Duration pollInterval) {
                return Optional.of(source);
            }
        })).build();
    }

    @Test
    void a_blocking_claim_takes_its_ticket_before_claiming_and_sleeps_on_it_until_signalled() throws Exception {
        try (RowQueues rq = rq("wakeup_signalled")) {
            WorkQueue q = rq.workQueue("signalled");
            CompletableFuture<List<Job>> waiting = CompletableFuture.supplyAsync(() -> q.claim(1, Duration.ofMinutes(1)));
            while (!source.events.contains("await")) {
                TimeUnit.MILLISECONDS.sleep(5);
            }
            TimeUnit.MILLISECONDS.sleep(200);
            assertThat(waiting).isNotDone();
            assertThat(source.events).containsExactly("ticket signalled", "await");
            long id = q.enqueue("wake up");
            source.signal();
            assertThat(waiting.get(30, TimeUnit.SECONDS)).extracting(Job::id).containsExactly(id);
            assertThat(source.events).containsExactly("ticket signalled", "await", "ticket signalled");
        }
        assertThat(source.closed).as("closing RowQueues closes the source").isTrue();
    }

    @Test
    void a_claim_that_may_not_wait_takes_no_ticket() {
        try (RowQueues rq = rq("wakeup_nowait")) {
            WorkQueue q = rq.workQueue("no_wait");
            assertThat(q.claim(1, Duration.ZERO)).isEmpty();
            assertThat(q.claim(1)).isEmpty();
            assertThat(source.events).isEmpty();
        }
    }

    @Test
    void a_blocking_claim_returns_empty_when_its_wait_ends_without_a_signal() {
        try (RowQueues rq = rq("wakeup_timeout")) {
            assertThat(rq.workQueue("quiet").claim(1, Duration.ofMillis(300))).isEmpty();
            assertThat(source.events).startsWith("ticket quiet", "await");
        }
    }
}
