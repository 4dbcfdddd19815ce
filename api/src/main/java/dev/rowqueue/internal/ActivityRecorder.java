package dev.rowqueue.internal;

import dev.rowqueue.QueueActivity;
import dev.rowqueue.spi.ActivityStore;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Counts what work queues do per minute in memory and writes the counts of every queue in one batched
 * {@code INSERT} per minute (one row per queue and minute), on a daemon thread started by the first count; every
 * {@value #CLEANUP_EVERY}th write also deletes rows older than an hour. No statement runs per job. On close, what is
 * left is written. Reads add this process's counts not yet written to the table's.
 */
final class ActivityRecorder {
    private static final Logger log = LoggerFactory.getLogger(ActivityRecorder.class);

    static final int ENQUEUED = 0;
    static final int FINISHED = 1;
    static final int FAILED = 2;
    /** First attempts claimed, the sum and the longest of their waits from enqueue ({@link #started}). */
    static final int STARTED = 3;
    static final int WAIT_SUM = 4;
    static final int WAIT_MAX = 5;
    private static final int SERIES = 6;
    /** How many flushes run between two deletions of old rows. */
    static final int CLEANUP_EVERY = 10;
    private static final long MINUTE_MS = 60_000L;
    /** How long close() waits for the last counts to be written. */
    static final long CLOSE_WAIT_MS = 5_000L;
    private static final long HOUR_MS = QueueActivity.MINUTES * MINUTE_MS;

    /** A recorder that counts nothing (activity recording off): reads see only the table. */
    static ActivityRecorder off(Dialect dialect, Executor executor) {
        return new ActivityRecorder(dialect, executor, false, System::currentTimeMillis);
    }

    private record Bucket(String queue, long minute) {
    }

    private final ActivityStore store;
    private final Executor executor;
    private final boolean enabled;
    private final LongSupplier clock;
    private final Map<Bucket, long[]> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();
    private volatile ScheduledExecutorService timer;
    private volatile boolean closed;
    private int flushes;

    /**
     * @param dialect  the dialect, whose {@link ActivityStore} runs the statements
     * @param executor a pooled executor (never a caller's transaction)
     * @param enabled  whether to count
     * @param clock    epoch milliseconds
     */
    ActivityRecorder(Dialect dialect, Executor executor, boolean enabled, LongSupplier clock) {
        this.store = dialect.activityStore();
        this.executor = executor;
        this.enabled = enabled;
        this.clock = clock;
    }

    /**
     * Counts in memory: no statement.
     *
     * @param queue the work queue
     * @param what  {@link #ENQUEUED}, {@link #FINISHED} or {@link #FAILED}
     * @param n     how many
     */
    void record(String queue, int what, long n) {
        if (!enabled || n <= 0 || closed) {
            return;
        }
        count(queue, c -> c[what] += n);
    }

    /**
     * Counts claimed first attempts and their waits from enqueue to now, in memory: no statement.
     *
     * @param queue the work queue
     * @param jobs  the jobs a claim handed out (those of later attempts are left out)
     */
    void started(String queue, List<dev.rowqueue.Job> jobs) {
        if (!enabled || jobs.isEmpty() || closed) {
            return;
        }
        long now = clock.getAsLong();
        long n = 0;
        long sum = 0;
        long max = 0;
        for (dev.rowqueue.Job j : jobs) {
            if (j.failures() == 0) {
                long wait = Math.max(0, now - j.enqueuedAt().toEpochMilli());
                n++;
                sum += wait;
                max = Math.max(max, wait);
            }
        }
        if (n == 0) {
            return;
        }
        long started = n;
        long total = sum;
        long longest = max;
        count(queue, c -> {
            c[STARTED] += started;
            c[WAIT_SUM] += total;
            c[WAIT_MAX] = Math.max(c[WAIT_MAX], longest);
        });
    }

    private void count(String queue, java.util.function.Consumer<long[]> add) {
        long minute = Math.floorDiv(clock.getAsLong(), MINUTE_MS) * MINUTE_MS;
        pending.compute(new Bucket(queue, minute), (b, counts) -> {
            long[] c = counts == null ? new long[SERIES] : counts;
            add.accept(c);
            return c;
        });
        if (started.compareAndSet(false, true)) {
            start();
        }
    }

    private void start() {
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "rowqueue-activity");
            thread.setDaemon(true);
            return thread;
        });
        long now = clock.getAsLong();
        long toNextMinute = MINUTE_MS - Math.floorMod(now, MINUTE_MS) + 1_000; // a second into the next minute
        t.scheduleAtFixedRate(this::tick, toNextMinute, MINUTE_MS, TimeUnit.MILLISECONDS);
        timer = t;
    }

    private void tick() {
        try {
            flush(false);
        } catch (RuntimeException e) {
            log.debug("rowqueue: writing activity failed", e);
        }
    }

    /**
     * Writes the pending counts: of minutes that have ended, or all of them; every {@value #CLEANUP_EVERY}th call
     * deletes rows older than an hour.
     *
     * @param all whether to write the current minute too (on close)
     * @return how many rows were written
     */
    synchronized int flush(boolean all) {
        long now = clock.getAsLong();
        long current = Math.floorDiv(now, MINUTE_MS) * MINUTE_MS;
        List<ActivityStore.Minute> rows = new ArrayList<>();
        for (Bucket b : List.copyOf(pending.keySet())) {
            if (all || b.minute() < current) {
                long[] n = pending.remove(b); // atomic with record's compute: a later count makes a new entry
                if (n != null) {
                    rows.add(new ActivityStore.Minute(b.queue(), b.minute(), n[ENQUEUED], n[FINISHED], n[FAILED],
                            n[STARTED], n[WAIT_SUM], n[WAIT_MAX]));
                }
            }
        }
        boolean clean = ++flushes % CLEANUP_EVERY == 0;
        if (rows.isEmpty() && !clean) {
            return 0;
        }
        long flushId = ThreadLocalRandom.current().nextLong();
        try {
            executor.run("write the activity of " + rows.size() + " queue minutes", SqlOp.transaction(c -> {
                if (!rows.isEmpty()) {
                    store.insert(rows, flushId).run(c);
                }
                if (clean) {
                    store.deleteBefore(current - HOUR_MS).run(c);
                }
                return null;
            }));
        } catch (RuntimeException e) {
            if (warned.compareAndSet(false, true)) {
                log.warn("rowqueue: cannot write work queues' activity to {} ({}); the counts of {} queue minutes are"
                        + " lost. If the table is missing, run RowQueues.schema().catalog()'s statements for it (logged"
                        + " once, at DEBUG after)", Dialect.ACTIVITY_TABLE, e.getMessage(), rows.size());
            } else {
                log.debug("rowqueue: cannot write work queues' activity: {}", e.getMessage());
            }
            return 0;
        }
        return rows.size();
    }

    /**
     * @param queue    a work queue
     * @param executor the executor of the calling handle
     * @return the last hour per minute: the table's rows and this process's pending counts
     */
    QueueActivity read(String queue, Executor executor) {
        long now = clock.getAsLong();
        long current = Math.floorDiv(now, MINUTE_MS) * MINUTE_MS;
        long since = current - (QueueActivity.MINUTES - 1) * MINUTE_MS;
        long[][] series = new long[SERIES][QueueActivity.MINUTES];
        for (ActivityStore.Minute m : executor.run("read the activity of " + queue, store.read(queue, since))) {
            add(series, (int) ((m.minuteMs() - since) / MINUTE_MS), new long[] {m.enqueued(), m.finished(),
                    m.failed(), m.started(), m.waitSumMs(), m.waitMaxMs()});
        }
        pending.forEach((b, counts) -> {
            if (b.queue().equals(queue) && b.minute() >= since) {
                add(series, (int) ((b.minute() - since) / MINUTE_MS), counts);
            }
        });
        return new QueueActivity(Instant.ofEpochMilli(since), list(series[ENQUEUED]), list(series[FINISHED]),
                list(series[FAILED]), list(series[STARTED]), list(series[WAIT_SUM]), list(series[WAIT_MAX]));
    }

    private static void add(long[][] series, int i, long[] counts) {
        if (i >= 0 && i < QueueActivity.MINUTES) {
            for (int s = 0; s < SERIES; s++) {
                series[s][i] = s == WAIT_MAX ? Math.max(series[s][i], counts[s]) : series[s][i] + counts[s];
            }
        }
    }

    private static List<Long> list(long[] values) {
        return Arrays.stream(values).boxed().toList();
    }

    /** Stops the timer and writes what is left. */
    void close() {
        closed = true;
        ScheduledExecutorService t = timer;
        if (t != null) {
            t.shutdownNow();
        }
        if (pending.isEmpty()) {
            return;
        }
        // the counts are statistics: closing never waits long for them (a database that does not answer, a commit
        // waiting for a synchronous standby that is gone, would otherwise hold close() for ever)
        Thread last = new Thread(() -> {
            try {
                flush(true);
            } catch (RuntimeException e) {
                log.debug("rowqueue: writing activity on close failed", e);
            }
        }, "rowqueue-activity-close");
        last.setDaemon(true);
        last.start();
        try {
            last.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (last.isAlive()) {
            log.warn("rowqueue: the last activity counts were not written: the database did not answer within {} ms;"
                    + " closing without them", CLOSE_WAIT_MS);
        }
    }
}
