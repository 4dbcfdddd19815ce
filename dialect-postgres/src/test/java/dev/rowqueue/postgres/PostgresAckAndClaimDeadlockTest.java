package dev.rowqueue.postgres;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Consumers looping on {@code ackAndClaim} in batches must not deadlock. The statement runs its acks' {@code DELETE}
 * to the end before its claim locks anything, so it waits for a row lock only while holding none of the claim's;
 * were the acks to run after the claim, a claim's {@code FOR UPDATE SKIP LOCKED} could hold a job that another
 * consumer is acking while waiting for one of its own. Counted by {@code pg_stat_database.deadlocks} over 16
 * consumers, with retries off so that a deadlock would also fail the loop.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresAckAndClaimDeadlockTest {

    private static final int CONSUMERS = 16;
    private static final int JOBS = 40_000;

    private PgFixture db;
    private RowQueues rq;

    @BeforeAll
    void open() {
        db = PgFixture.newest("handoff");
        rq = db.builder().retry(RetryPolicy.none()).build();
    }

    @AfterAll
    void close() {
        rq.close();
        db.close();
    }

    @Test
    void consumers_looping_on_ack_and_claim_in_batches_never_deadlock() throws Exception {
        WorkQueue q = rq.workQueue("handoff");
        for (int i = 0; i < JOBS; i += 1000) {
            q.enqueueAll(Collections.nCopies(1000, "job"), Enqueue.defaults());
        }
        long before = deadlocks();
        AtomicInteger acked = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CONSUMERS);
        try {
            List<Future<?>> consumers = new ArrayList<>();
            for (int t = 0; t < CONSUMERS; t++) {
                consumers.add(pool.submit(() -> {
                    List<Job> held = q.claim(10);
                    while (!held.isEmpty()) {
                        Handoff h = q.ackAndClaim(held, 10);
                        acked.addAndGet(held.size() - h.lost().size());
                        held = h.claimed();
                    }
                    return null;
                }));
            }
            for (Future<?> f : consumers) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(JOBS, acked.get(), "every job acked once");
        assertEquals(0, q.stats().total());
        assertEquals(0, deadlocks() - before, "deadlocks detected by the server");
    }

    private long deadlocks() {
        return db.queryLong("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
    }
}
