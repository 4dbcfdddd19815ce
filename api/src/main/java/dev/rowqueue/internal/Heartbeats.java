package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.WorkerListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
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
 * A worker's leases: on a thread of their own, heartbeats extend the leases of its running and prefetched jobs, one
 * statement per batch; on another, a watch finds the leases whose known end passed without a successful extension
 * (a heartbeat that failed or hangs cannot tell). A lease found lost, either way, is reported once, its job leaves the
 * prefetch buffer, and its handler is interrupted if the worker's options ask for it.
 *
 * <p>A lease is known to end at the time its claim or last successful extension was sent, plus the lease, less the
 * worker's margin: the database ran the statement no earlier than it was sent, so its lease ends no earlier.
 */
final class Heartbeats {
    private static final Logger log = LoggerFactory.getLogger(DefaultWorker.class);
    /** How often the watch looks at the known lease ends, at most. */
    private static final long WATCH_MS = 50;

    private final WorkerQueue queue;
    private final WorkerListener listener;
    private final Map<Long, RunningJob> running;
    private final Supplier<List<RunningJob>> buffered;
    private final Predicate<RunningJob> unbuffer;
    private final boolean interrupt;
    /** The lease less the margin. */
    private final long knownLeaseNanos;
    private ScheduledExecutorService beats;
    private ScheduledExecutorService watch;
    private long periodNanos;
    /** How long one beat's statement may wait for the database: it must end before the lease it extends. */
    private long beatBoundMs;
    private volatile boolean failing;
    private volatile boolean inFlight;
    private volatile long sentNanos;
    /** Beats failed in a row; the heartbeat thread's own. */
    private int failures;

    /**
     * @param queue     the worker's queue
     * @param listener  told of heartbeats, lost leases and failures
     * @param running   the running jobs by id
     * @param buffered  a copy of the prefetched jobs
     * @param unbuffer  removes a prefetched job, telling whether it was there
     * @param margin    how much earlier than the database the worker takes a lease to end
     * @param interrupt whether to interrupt the handler of a job whose lease is lost
     */
    Heartbeats(WorkerQueue queue, WorkerListener listener, Map<Long, RunningJob> running,
               Supplier<List<RunningJob>> buffered, Predicate<RunningJob> unbuffer, Duration margin,
               boolean interrupt) {
        this.queue = queue;
        this.listener = listener;
        this.running = running;
        this.buffered = buffered;
        this.unbuffer = unbuffer;
        this.interrupt = interrupt;
        this.knownLeaseNanos = queue.options().leaseDuration().minus(margin).toNanos();
    }

    /**
     * @param sent {@link System#nanoTime()} when a claim or extension was sent
     * @return when the lease it set is known to end
     */
    long knownEnd(long sent) {
        return sent + knownLeaseNanos;
    }

    /**
     * Starts beating and watching.
     *
     * @param periodMs the time between the end of one beat and the start of the next
     * @param threads  makes the heartbeat and watch threads, given their role
     */
    void start(long periodMs, java.util.function.Function<String, ThreadFactory> threads) {
        periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
        // a beat starts at most a period after the last successful one was sent, and must end before that one's
        // lease does: within the lease, less the margin, less the period
        long leftMs = TimeUnit.NANOSECONDS.toMillis(knownLeaseNanos) - periodMs;
        beatBoundMs = leftMs > 0 ? leftMs : periodMs;
        beats = Executors.newSingleThreadScheduledExecutor(threads.apply("heartbeat"));
        beats.scheduleWithFixedDelay(this::beat, periodMs, periodMs, TimeUnit.MILLISECONDS);
        long watchMs = Math.max(1, Math.min(WATCH_MS, periodMs / 2));
        watch = Executors.newSingleThreadScheduledExecutor(threads.apply("lease-watch"));
        watch.scheduleWithFixedDelay(this::watch, watchMs, watchMs, TimeUnit.MILLISECONDS);
    }

    /** Stops beating and watching, interrupting a beat in progress. */
    void stop() {
        if (beats != null) {
            beats.shutdownNow();
            watch.shutdownNow();
        }
    }

    /**
     * @return whether the heartbeats reach the database: the last beat did not fail, and none has been in flight for
     *         more than two heartbeat periods. The worker claims nothing while they do not: it could not extend
     *         the leases it claimed
     */
    boolean reachable() {
        return !failing && !(inFlight && System.nanoTime() - sentNanos > 2 * periodNanos);
    }

    /** One beat: extends every held job's lease. */
    void beat() {
        // each run is its own object: a job retried by its handler can be claimed again and run a second time under
        // the same id while its first run still ends, and the first run's failed extension must not mark the second
        List<RunningJob> jobs = new ArrayList<>();
        running.values().forEach(r -> {
            if (r.beating()) {
                jobs.add(r);
            }
        });
        buffered.get().forEach(r -> {
            if (r.beating()) {
                jobs.add(r);
            }
        });
        if (jobs.isEmpty()) {
            failing = false; // nothing to extend: the next claim tells whether the database answers
            return;
        }
        Duration lease = queue.options().leaseDuration();
        try {
            for (int from = 0; from < jobs.size(); from += Validation.MAX_BATCH) {
                List<RunningJob> part = jobs.subList(from, Math.min(jobs.size(), from + Validation.MAX_BATCH));
                List<Job> sent = new ArrayList<>(part.size());
                part.forEach(r -> sent.add(r.job));
                long at = System.nanoTime();
                sentNanos = at;
                inFlight = true;
                Set<Long> extended = PooledExecutor.within(beatBoundMs, () -> queue.extendLeases(sent, lease));
                inFlight = false;
                for (RunningJob r : part) {
                    if (extended.contains(r.job.id())) {
                        r.extended(knownEnd(at));
                    } else {
                        lost(r, "a heartbeat found it acked, leased by another consumer or dead");
                    }
                }
                listener.heartbeat(part.size());
            }
            if (failures > 0) {
                log.info("rowqueue: worker of {}: heartbeats reach the database again after {} failures",
                        queue.name(), failures);
            }
            failures = 0;
            failing = false;
        } catch (RuntimeException e) {
            failing = true;
            failures++;
            listener.databaseError(e, 1);
            if (failures == 1) {
                log.warn("rowqueue: worker of {}: heartbeat failed ({}); no claim until one succeeds, leases not"
                        + " extended in time are reported lost; logged once per outage", queue.name(), e.toString());
            } else {
                log.debug("rowqueue: worker of {}: heartbeat failure {}: {}", queue.name(), failures, e.toString());
            }
        } finally {
            inFlight = false;
        }
    }

    /** Reports the held jobs whose known lease end passed. */
    void watch() {
        long now = System.nanoTime();
        for (RunningJob r : running.values()) {
            lostIfEnded(r, now);
        }
        for (RunningJob r : buffered.get()) {
            lostIfEnded(r, now);
        }
    }

    /**
     * Reports a job lost if its known lease end passed: the watch looks only every so often, and a handler that
     * returns between two looks must not be taken as having run within its lease.
     *
     * @param r   a held job
     * @param now {@link System#nanoTime()}
     * @return whether its lease is known lost (now or before)
     */
    boolean lostIfEnded(RunningJob r, long now) {
        if (r.beating() && r.leaseEnded(now)) {
            lost(r, "its lease ended with no successful heartbeat (the database unreachable or slow?)");
        }
        return r.lost();
    }

    private void lost(RunningJob r, String why) {
        if (!r.markLost()) {
            return; // settled by its handler, or reported already
        }
        boolean prefetched = unbuffer.test(r);
        log.warn("rowqueue: worker of {} lost the lease of job {}: {}; another consumer may run it", queue.name(),
                r.job.id(), why);
        listener.leaseLost(r.job);
        if (interrupt && !prefetched) {
            r.interrupt();
        }
    }
}
