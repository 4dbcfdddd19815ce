package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A handler that returns just after its lease's known end, before the lease watch's next look, is not taken as having
 * run within its lease: it is reported lost (once), never succeeded, and its job is not acked by this worker. Without
 * the check at settle time the outcome depended on the watch's phase (seen: a job counted succeeded, then its late ack
 * reported the lease lost, while another consumer held it).
 */
class LeaseEndAtSettleTest {

    @Test
    void a_handler_returning_after_its_known_lease_end_is_lost_not_succeeded() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lease_end_at_settle;DB_CLOSE_DELAY=-1");
        List<Job> succeeded = new CopyOnWriteArrayList<>();
        List<Job> lost = new CopyOnWriteArrayList<>();
        CountDownLatch finished = new CountDownLatch(5);
        WorkerListener listener = new WorkerListener() {
            @Override
            public void succeeded(Job job, Duration running) {
                succeeded.add(job);
            }

            @Override
            public void leaseLost(Job job) {
                lost.add(job);
            }

            @Override
            public void finished(Job job, Duration running) {
                finished.countDown();
            }
        };
        try (RowQueues rq = RowQueues.builder(h2).build()) {
            WorkQueue q = rq.workQueue("lease_end_at_settle",
                    WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMillis(400)));
            Set<Long> ids = Set.copyOf(q.enqueueAll(List.of("a", "b", "c", "d", "e"), dev.rowqueue.Enqueue.defaults()));
            // no heartbeat in time; each handler returns right after its lease's known end, well before the watch's
            // next look (every 50 ms) could have found it
            try (Worker w = q.worker(ctx -> {
                Instant end = ctx.leaseUntil();
                while (!Instant.now().isAfter(end)) {
                    Thread.onSpinWait();
                }
            }, WorkerOptions.defaults().withThreads(5).withHeartbeat(Duration.ofHours(1))
                    .withInterruptOnLeaseLoss(false).withListener(listener)).start()) {
                assertTrue(finished.await(30, TimeUnit.SECONDS), "the five handlers returned");
            }
            assertEquals(List.of(), succeeded, "no handler that outlived its known lease counts as succeeded");
            // under load the worker may claim a job again after its first lease ended, before close: that run loses
            // its lease too; what must hold is one report per lease (claim token) and every job's first lease lost
            assertEquals(lost.size(), lost.stream().map(j -> j.id() + "/" + j.leaseToken()).distinct().count(),
                    "each lost lease is reported once: " + lost);
            assertEquals(ids, lost.stream().map(Job::id).collect(Collectors.toSet()),
                    "every job's lease was lost: " + lost);
            // one snapshot: ready and leased read by two calls could miss a job whose lease ended between them (a
            // run claimed again before close, its lease ending then); an acked job is a deleted one
            QueueStats stats = q.stats();
            assertEquals(5, stats.total(), "no job was acked by the worker that lost it: " + stats + ", "
                    + ids.stream().map(id -> q.job(id).map(Object::toString).orElse(id + " gone")).toList());
        }
    }
}
