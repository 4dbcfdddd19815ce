package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hand-off of a finished job from the handler thread to the dispatcher's next ack: a job whose handler returned
 * is either still running (its lease extended by heartbeats) or waiting for its ack, never both. When it was both, the
 * dispatcher could ack it while a heartbeat still counted it as running: the heartbeat found it gone and reported a
 * lost lease (a warning and {@link WorkerListener#leaseLost}) for a job that was acked.
 */
class WorkerHandoffTest {

    @Test
    void a_job_acked_while_its_thread_finishes_is_not_reported_lost() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:worker_handoff;DB_CLOSE_DELAY=-1");
        List<Job> lost = new CopyOnWriteArrayList<>();
        AtomicInteger beats = new AtomicInteger();
        CountDownLatch succeeded = new CountDownLatch(1);
        WorkerListener listener = new WorkerListener() {
            @Override
            public void succeeded(Job job, Duration running) {
                // holds the handler thread between the handler's return and its end, as a preempted thread would,
                // for several heartbeats
                int seen = beats.get();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (beats.get() < seen + 5 && lost.isEmpty() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                succeeded.countDown();
            }

            @Override
            public void heartbeat(int jobs) {
                beats.incrementAndGet();
            }

            @Override
            public void leaseLost(Job job) {
                lost.add(job);
            }
        };
        try (RowQueues rq = RowQueues.builder(h2).build()) {
            WorkQueue q = rq.workQueue("handoff", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(30)));
            q.enqueue("a");
            Worker w = q.worker(job -> { }, WorkerOptions.defaults().withThreads(1).withHeartbeat(Duration.ofMillis(20))
                    .withListener(listener)).start();
            try {
                assertTrue(succeeded.await(30, TimeUnit.SECONDS), "the handler's thread never finished");
            } finally {
                assertTrue(w.close(Duration.ofSeconds(10)));
            }
            assertEquals(0, q.stats().total(), "the job was acked");
        }
        assertEquals(List.of(), lost, "a lease reported lost");
    }
}
