package dev.rowqueue.console;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RateWindow;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.Schedules;
import dev.rowqueue.SchemaException;
import dev.rowqueue.WorkQueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@link ConsoleData} on a {@link RowQueues}: one public API call per method, handles opened only for queues the
 * catalog lists (with a ring's recorded capacity and strategy), reads reused for {@code cacheMillis}. Several readers
 * of one stale entry wait for one query instead of each running it.
 */
final class RowQueuesConsoleData implements ConsoleData {
    private final RowQueues rq;
    private final long cacheNanos;
    private final Map<String, Slot> cache = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    RowQueuesConsoleData(RowQueues rq, long cacheMillis) {
        this(rq, cacheMillis, System::nanoTime);
    }

    /** With a clock of the tests' own, so that they count statements per interval without waiting for one. */
    RowQueuesConsoleData(RowQueues rq, long cacheMillis, LongSupplier nanoTime) {
        this.rq = Objects.requireNonNull(rq, "rowQueues");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        if (cacheMillis < 0) {
            throw new IllegalArgumentException("cacheMillis must be 0 or more, got " + cacheMillis);
        }
        this.cacheNanos = cacheMillis * 1_000_000L;
    }

    /** One cached value; its monitor makes concurrent readers of a stale value wait for one load. */
    private static final class Slot {
        private Object value;
        private long loadedAt;
        private boolean loaded;
    }

    @SuppressWarnings("unchecked")
    private <T> T cached(String key, Supplier<T> load) {
        if (cacheNanos == 0) {
            return load.get();
        }
        Slot slot = cache.computeIfAbsent(key, k -> new Slot());
        synchronized (slot) {
            long now = nanoTime.getAsLong();
            if (!slot.loaded || now - slot.loadedAt >= cacheNanos) {
                slot.value = load.get();
                slot.loadedAt = now;
                slot.loaded = true;
            }
            return (T) slot.value;
        }
    }

    /** Drops what a change to this queue makes stale: its reads (the overview reads its counts through them). */
    private void changed(String queue) {
        cache.keySet().removeIf(k -> k.endsWith(":" + queue));
    }

    @Override
    public DatabaseInfo database() {
        return rq.database();
    }

    @Override
    public List<QueueInfo> queues() {
        return cached("catalog", () -> {
            try {
                return rq.queues();
            } catch (SchemaException e) {
                return List.of(); // no catalog table: a database rowqueue never used
            }
        });
    }

    @Override
    public List<QueueSummary> overview() {
        List<QueueSummary> rows = new ArrayList<>();
        Instant now = Instant.now();
        for (QueueInfo q : queues()) {
            if (q.kind() != QueueKind.WORK) {
                rows.add(QueueSummary.of(q, null));
                continue;
            }
            QueueStats stats = stats(q.name());
            // the oldest ready job: the ready job of the lowest id, asked for only when there is one
            Instant due = stats.ready() == 0 ? null : oldestReadyDue(q.name());
            Duration age = due == null ? null : Duration.between(due, now).isNegative() ? Duration.ZERO
                    : Duration.between(due, now);
            rows.add(new QueueSummary(q, stats, age, activity(q.name())));
        }
        return List.copyOf(rows);
    }

    private Instant oldestReadyDue(String workQueue) {
        return cached("oldest:" + workQueue, () -> {
            List<JobInfo> first = work(workQueue).jobs(JobQuery.all().withState(JobState.READY).oldestFirst().withLimit(1)).jobs();
            return first.isEmpty() ? null : first.get(0).dueAt();
        });
    }

    @Override
    public QueueActivity activity(String workQueue) {
        return cached("activity:" + workQueue, () -> work(workQueue).activity());
    }

    @Override
    public Optional<RateWindow> rateWindow(String workQueue) {
        // kept through the console's changes (no change of it starts a job): not a ":<queue>" key
        return cached("rate/" + workQueue, () -> work(workQueue).rateWindow());
    }

    @Override
    public JobPage jobs(String workQueue, JobQuery query) {
        return work(workQueue).jobs(query);
    }

    @Override
    public Optional<JobInfo> job(String workQueue, long id) {
        return work(workQueue).job(id);
    }

    @Override
    public CancelOutcome cancel(String workQueue, long id) {
        return change(workQueue, q -> q.cancel(id));
    }

    @Override
    public QueueStats stats(String workQueue) {
        return cached("stats:" + workQueue, () -> work(workQueue).stats());
    }

    @Override
    public List<Job> deadLetters(String workQueue, int limit) {
        return cached("dead " + limit + ":" + workQueue, () -> work(workQueue).deadLetters(limit));
    }

    @Override
    public boolean revive(String workQueue, long id) {
        return change(workQueue, q -> q.revive(id));
    }

    @Override
    public int reviveAll(String workQueue) {
        return change(workQueue, WorkQueue::reviveAll);
    }

    @Override
    public int purgeDead(String workQueue) {
        return change(workQueue, WorkQueue::purgeDead);
    }

    /** Runs a change and drops the queue's cached reads, even when the change failed (it may have committed). */
    private <T> T change(String workQueue, java.util.function.Function<WorkQueue, T> change) {
        try {
            return change.apply(work(workQueue));
        } finally {
            changed(workQueue);
        }
    }

    /**
     * Through {@link RowQueues#existingSchedules()}: no schedule table is created and no scheduler thread started
     * (a database without schedule tables costs one probe per interval and shows none).
     */
    @Override
    public List<dev.rowqueue.NodeInfo> nodes() {
        return cached("nodes", () -> {
            try {
                return rq.nodes();
            } catch (RuntimeException e) { // no nodes table (schema creation off): the pages say the holder is unknown
                return List.of();
            }
        });
    }

    @Override
    public Map<String, Instant> lastFires() {
        return cached("lastFires", () -> rq.existingSchedules().map(Schedules::lastFires).orElse(Map.of()));
    }

    @Override
    public List<ScheduleInfo> schedules() {
        return cached("schedules", () -> rq.existingSchedules().map(Schedules::list).orElse(List.of()));
    }

    @Override
    public boolean pauseSchedule(String name) {
        return scheduleChange(s -> s.pause(name), false);
    }

    @Override
    public boolean resumeSchedule(String name) {
        return scheduleChange(s -> s.resume(name), false);
    }

    @Override
    public OptionalLong triggerSchedule(String name) {
        return scheduleChange(s -> {
            try {
                long id = s.triggerNow(name);
                cache.clear(); // a job more in the schedule's work queue: its counts are stale
                return OptionalLong.of(id);
            } catch (NoSuchElementException e) {
                return OptionalLong.empty();
            }
        }, OptionalLong.empty());
    }

    /** Runs a change of the schedules, if the tables exist, and drops the cached list either way. */
    private <T> T scheduleChange(java.util.function.Function<Schedules, T> change, T absent) {
        try {
            Optional<Schedules> schedules = rq.existingSchedules();
            return schedules.isEmpty() ? absent : change.apply(schedules.get());
        } finally {
            cache.remove("schedules");
        }
    }

    @Override
    public List<String> groups(String ring) {
        return cached("groups:" + ring, () -> ring(ring).groups());
    }

    @Override
    public List<RingEntry> newestEntries(String ring, String group, int limit) {
        return ring(ring).newestFirst(group, limit);
    }

    @Override
    public Map<String, Long> counters(String table) {
        return cached("counters:" + table, () -> new TreeMap<>(counterTable(table).all()));
    }

    @Override
    public long counter(String table, String key) {
        return counterTable(table).get(key);
    }

    private QueueInfo require(String name, QueueKind kind) {
        QueueInfo info = queue(name).orElseThrow(() -> new IllegalArgumentException("no queue named '" + name + "'"));
        if (info.kind() != kind) {
            throw new IllegalArgumentException("'" + name + "' is not a " + kind);
        }
        return info;
    }

    private WorkQueue work(String name) {
        return rq.workQueue(require(name, QueueKind.WORK).name());
    }

    private RingQueue ring(String name) {
        QueueInfo info = require(name, QueueKind.RING);
        return rq.ring(info.name(), new RingOptions(info.capacity(), info.strategy()));
    }

    private dev.rowqueue.Counters counterTable(String name) {
        return rq.counters(require(name, QueueKind.COUNTERS).name());
    }
}
