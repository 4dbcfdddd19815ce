package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.WorkerListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A worker's heartbeats: on a thread of their own, extend the leases of its running and prefetched jobs, one
 * statement per batch, and report the jobs whose lease was lost (a prefetched one leaves the buffer).
 */
final class Heartbeats {
    private static final Logger log = LoggerFactory.getLogger(DefaultWorker.class);

    private final DefaultWorkQueue queue;
    private final WorkerListener listener;
    private final Map<Long, RunningJob> running;
    private final Supplier<List<Job>> buffered;
    private final Predicate<Job> unbuffer;
    private ScheduledExecutorService beats;

    /**
     * @param queue    the worker's queue
     * @param listener told of heartbeats, lost leases and failures
     * @param running  the running jobs by id
     * @param buffered a copy of the prefetched jobs
     * @param unbuffer removes a prefetched job, telling whether it was there
     */
    Heartbeats(DefaultWorkQueue queue, WorkerListener listener, Map<Long, RunningJob> running,
               Supplier<List<Job>> buffered, Predicate<Job> unbuffer) {
        this.queue = queue;
        this.listener = listener;
        this.running = running;
        this.buffered = buffered;
        this.unbuffer = unbuffer;
    }

    /**
     * Starts beating.
     *
     * @param periodMs the time between the end of one beat and the start of the next
     * @param threads  makes the heartbeat thread
     */
    void start(long periodMs, ThreadFactory threads) {
        beats = Executors.newSingleThreadScheduledExecutor(threads);
        beats.scheduleWithFixedDelay(this::beat, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Stops beating, interrupting a beat in progress. */
    void stop() {
        if (beats != null) {
            beats.shutdownNow();
        }
    }

    /** One beat: extends every held job's lease. */
    void beat() {
        List<Job> jobs = new ArrayList<>();
        // the run each job came from: a job retried by its handler can be claimed again and run a second time under
        // the same id while its first run still ends, and the first run's failed extension must not mark the second
        // run lost (which then skipped the second run's ack and left the job leased until its lease ran out)
        Map<Job, RunningJob> runs = new java.util.IdentityHashMap<>();
        running.values().forEach(r -> {
            if (r.beating()) {
                jobs.add(r.job);
                runs.put(r.job, r);
            }
        });
        jobs.addAll(buffered.get());
        if (jobs.isEmpty()) {
            return;
        }
        Duration lease = queue.options().leaseDuration();
        try {
            for (int from = 0; from < jobs.size(); from += Validation.MAX_BATCH) {
                List<Job> part = jobs.subList(from, Math.min(jobs.size(), from + Validation.MAX_BATCH));
                Set<Long> extended = queue.extendLeases(part, lease);
                Instant until = Instant.now().plus(lease);
                for (Job job : part) {
                    RunningJob r = runs.get(job);
                    if (extended.contains(job.id())) {
                        if (r != null) {
                            r.leaseUntil = until;
                        }
                    } else {
                        lost(job, r);
                    }
                }
                listener.heartbeat(part.size());
            }
        } catch (RuntimeException e) {
            listener.databaseError(e, 1);
            log.debug("rowqueue: worker of {}: heartbeat failed: {}", queue.name(), e.toString());
        }
    }

    private void lost(Job job, RunningJob r) {
        if (r != null) {
            if (!r.beating()) {
                return;
            }
            r.lost = true;
        } else if (!unbuffer.test(job)) {
            return;
        }
        log.warn("rowqueue: worker of {} lost the lease of job {} (a pause longer than the lease?); another"
                + " consumer may run it", queue.name(), job.id());
        listener.leaseLost(job);
    }
}
