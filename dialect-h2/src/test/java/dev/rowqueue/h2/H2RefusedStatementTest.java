package dev.rowqueue.h2;

import dev.rowqueue.RowQueues;
import dev.rowqueue.StatementRefusedException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.testkit.DriverManagerDataSource;
import dev.rowqueue.testkit.H2Grants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker whose database user has no rights on the queue's table (H2's NOT_ENOUGH_RIGHTS_FOR_1): the refusal is
 * permanent, so the worker logs it once at ERROR with the operation's name, reports it ({@link Worker#refused()},
 * the health checks' DOWN), tries again only at its longest backoff, and works again once the rights are granted.
 */
class H2RefusedStatementTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream before;

    @BeforeEach
    void captureStandardError() {
        before = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStandardError() {
        System.setErr(before);
    }

    @Test
    void a_user_without_rights_on_the_queue_is_told_at_once_backs_off_and_recovers_after_the_grant()
            throws Exception {
        // the database outlives connections by the owner's setting: a user without admin rights may not set it
        String url = "jdbc:h2:mem:refused_" + UUID.randomUUID().toString().replace("-", "");
        DataSource admin = new DriverManagerDataSource(url + ";DB_CLOSE_DELAY=-1", "sa", "");
        String queue = "mail";
        try (RowQueues owner = RowQueues.builder(admin).build()) {
            owner.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(LEASE)).enqueue("hello");
        }
        H2Grants clerkGrants = H2Grants.create(admin, "clerk", "clerk");

        AtomicInteger errors = new AtomicInteger();
        AtomicInteger recovered = new AtomicInteger();
        List<String> done = new CopyOnWriteArrayList<>();
        CountDownLatch ran = new CountDownLatch(1);
        WorkerListener counting = new WorkerListener() {
            @Override
            public void databaseError(RuntimeException error, int consecutive) {
                errors.incrementAndGet();
            }

            @Override
            public void databaseRecovered(int failures) {
                recovered.incrementAndGet();
            }
        };
        try (RowQueues clerk = RowQueues.builder(new DriverManagerDataSource(url, "clerk", "clerk"))
                .createSchema(false).build()) {
            WorkQueue mail = clerk.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(LEASE));
            Worker worker = mail.worker(job -> {
                done.add(job.payload());
                ran.countDown();
            }, WorkerOptions.defaults().withThreads(1).withListener(counting));
            clerkGrants.revoke(queue); // a DBA takes the rights away from the application's user
            try {
                worker.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (errors.get() == 0) {
                    assertTrue(System.nanoTime() < deadline, "no claim failed: " + err);
                    Thread.sleep(10);
                }
                StatementRefusedException refused = worker.refused().orElseThrow(() -> new AssertionError(
                        "the worker does not report the refusal: " + err));
                assertTrue(refused.operation().contains(queue), refused.operation());
                assertEquals("90096", refused.sqlState() == null ? String.valueOf(refused.vendorCode())
                        : refused.sqlState(), refused.getMessage());

                // a window of 4 s: at the longest backoff (the lease, 2 s, jittered down to 1 s at least) no more
                // than 1 + 4 attempts; the ordinary backoff starting at 50 ms makes 7 in the same window
                int atStart = errors.get();
                Thread.sleep(4_000);
                int attempts = errors.get() - atStart;
                assertTrue(attempts <= 4, attempts + " attempts in 4 s after the first refusal");
                String log = err.toString(StandardCharsets.UTF_8);
                long errorLines = log.lines().filter(l -> l.contains("ERROR") && l.contains("refuses")).count();
                assertEquals(1, errorLines, log);
                assertTrue(log.lines().anyMatch(l -> l.contains("ERROR") && l.contains(refused.operation())), log);
                assertTrue(worker.refused().isPresent());

                clerkGrants.grant(queue);
                assertTrue(ran.await(30, TimeUnit.SECONDS), "the worker never ran the job after the grant: " + err);
                assertEquals(List.of("hello"), done);
                assertTrue(worker.refused().isEmpty(), "the refusal is over");
                assertEquals(1, recovered.get());
            } finally {
                worker.close(Duration.ofSeconds(5));
            }
        }
    }
}
