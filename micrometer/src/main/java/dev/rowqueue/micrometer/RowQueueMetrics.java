package dev.rowqueue.micrometer;

import dev.rowqueue.Operation;
import dev.rowqueue.OperationEvent;
import dev.rowqueue.OperationListener;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleListener;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * rowqueue's meters on one {@link MeterRegistry}: an {@link OperationListener} for every operation, a
 * {@link WorkerListener} per worker, and cached depth gauges per work queue. The meters are listed in
 * {@code docs/micrometer.md}.
 *
 * <pre>{@code
 * RowQueueMetrics metrics = new RowQueueMetrics(meterRegistry);
 * RowQueues rq = RowQueues.builder(dataSource).operationListener(metrics).build();   // rowqueue.operations
 * WorkQueue mail = rq.workQueue("mail");
 * metrics.monitorDepth(mail);                                                        // rowqueue.queue.jobs
 * mail.worker(handler, WorkerOptions.defaults().withThreads(4)
 *         .withListener(metrics.workerListener("mail"))).start();                    // rowqueue.worker.*
 * }</pre>
 *
 * <p>One instance per registry is enough for any number of {@code RowQueues} instances, queues and workers; meters
 * are created on first use and cached, so recording an operation costs one map lookup and one timer update. An
 * application with queues of the same name in several databases gives each database's instance a tag of its own
 * ({@link #RowQueueMetrics(MeterRegistry, Iterable)}). Thread-safe.
 */
public final class RowQueueMetrics implements OperationListener, ScheduleListener {

    /** How old a queue's cached counts may get before a gauge read queries them again: 10 seconds. */
    public static final Duration DEFAULT_DEPTH_REFRESH = Duration.ofSeconds(10);

    static final String OPERATIONS = "rowqueue.operations";
    static final String OPERATION_ITEMS = "rowqueue.operation.items";

    private static final String[] OPERATION_TAGS = new String[Operation.values().length];
    private static final String[] OUTCOME_TAGS = new String[OperationEvent.Outcome.values().length];
    private static final String[] KIND_TAGS = new String[QueueKind.values().length];

    static {
        for (Operation op : Operation.values()) {
            OPERATION_TAGS[op.ordinal()] = tagValue(op.name());
        }
        for (OperationEvent.Outcome o : OperationEvent.Outcome.values()) {
            OUTCOME_TAGS[o.ordinal()] = tagValue(o.name());
        }
        for (QueueKind k : QueueKind.values()) {
            KIND_TAGS[k.ordinal()] = tagValue(k.name());
        }
    }

    private final MeterRegistry registry;
    private final Tags tags;
    private final ConcurrentMap<TimerKey, Timer> timers = new ConcurrentHashMap<>();
    private final ConcurrentMap<ItemsKey, Counter> items = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, WorkerMeters> workers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, QueueDepthGauges> depths = new ConcurrentHashMap<>();

    /**
     * @param registry where the meters go
     */
    public RowQueueMetrics(MeterRegistry registry) {
        this(registry, Tags.empty());
    }

    /**
     * @param registry where the meters go
     * @param tags     added to every meter of this instance, e.g. {@code Tags.of("database", "orders")}
     */
    public RowQueueMetrics(MeterRegistry registry, Iterable<Tag> tags) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /** @return the registry the meters go to */
    public MeterRegistry registry() {
        return registry;
    }

    /** @return the tags added to every meter of this instance */
    public Tags tags() {
        return tags;
    }

    static String tagValue(String constant) {
        return constant.toLowerCase(Locale.ROOT);
    }

    // ---------------------------------------------------------------- operations

    private record TimerKey(String queue, Operation operation, OperationEvent.Outcome outcome,
                            Class<?> exception) {
    }

    private record ItemsKey(String queue, Operation operation) {
    }

    /**
     * Records one operation: {@code rowqueue.operations} (a timer tagged {@code queue}, {@code kind},
     * {@code operation}, {@code outcome}, {@code exception}) and {@code rowqueue.operation.items} (a counter tagged
     * {@code queue}, {@code kind}, {@code operation}).
     *
     * @param event the operation
     */
    @Override
    public void onOperation(OperationEvent event) {
        Class<?> exception = event.error() == null ? null : event.error().getClass();
        TimerKey key = new TimerKey(event.queue(), event.operation(), event.outcome(), exception);
        Timer timer = timers.get(key);
        if (timer == null) {
            timer = timers.computeIfAbsent(key, this::timer);
        }
        timer.record(event.nanos(), TimeUnit.NANOSECONDS);
        ItemsKey itemsKey = new ItemsKey(event.queue(), event.operation());
        Counter counter = items.get(itemsKey);
        if (counter == null) {
            counter = items.computeIfAbsent(itemsKey, this::itemsCounter);
        }
        if (event.items() > 0) {
            counter.increment(event.items());
        }
    }

    private Timer timer(TimerKey key) {
        return Timer.builder(OPERATIONS)
                .description("rowqueue operations: calls of the queue handles' methods, including a worker's claims,"
                        + " acks, nacks and heartbeats")
                .tags(Tags.of("queue", key.queue(),
                        "kind", KIND_TAGS[key.operation().kind().ordinal()],
                        "operation", OPERATION_TAGS[key.operation().ordinal()],
                        "outcome", OUTCOME_TAGS[key.outcome().ordinal()],
                        "exception", key.exception() == null ? "none" : exceptionTag(key.exception())))
                .tags(tags)
                .register(registry);
    }

    private Counter itemsCounter(ItemsKey key) {
        return Counter.builder(OPERATION_ITEMS)
                .description("entries, jobs or counters handled by successful rowqueue operations")
                .tags(Tags.of("queue", key.queue(),
                        "kind", KIND_TAGS[key.operation().kind().ordinal()],
                        "operation", OPERATION_TAGS[key.operation().ordinal()]))
                .tags(tags)
                .register(registry);
    }

    static String exceptionTag(Class<?> type) {
        String simple = type.getSimpleName();
        return simple.isEmpty() ? type.getName() : simple;
    }

    // ---------------------------------------------------------------- workers

    /**
     * A listener to pass to {@link dev.rowqueue.WorkerOptions#withListener} of a worker of this queue: it records
     * the {@code rowqueue.worker.*} meters, tagged {@code queue}. Workers of one queue share the meters (the
     * running gauge is their sum).
     *
     * @param queue the worker's queue name
     * @return the listener
     */
    public WorkerListener workerListener(String queue) {
        return workerListener(queue, new WorkerListener() { });
    }

    /**
     * Like {@link #workerListener(String)}, and tells {@code next} everything afterwards: the way to keep a listener
     * of one's own.
     *
     * @param queue the worker's queue name
     * @param next  told about every event after the meters recorded it
     * @return the listener
     */
    public WorkerListener workerListener(String queue, WorkerListener next) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(next, "next");
        WorkerMeters meters = workers.computeIfAbsent(queue.toLowerCase(Locale.ROOT),
                q -> new WorkerMeters(registry, q, tags));
        return new MeteredWorkerListener(meters, next);
    }

    /**
     * @param queue the worker's queue
     * @return {@link #workerListener(String) workerListener(queue.name())}
     */
    public WorkerListener workerListener(WorkQueue queue) {
        return workerListener(queue.name());
    }

    // ---------------------------------------------------------------- depth

    /**
     * Registers the {@code rowqueue.queue.jobs} gauges of a work queue (states ready, scheduled, leased, dead),
     * refreshed at most every {@link #DEFAULT_DEPTH_REFRESH}.
     *
     * @param queue a work queue of a {@code RowQueues} instance (not one bound with {@code using(connection)})
     * @return the queue's gauges
     */
    public QueueDepthGauges monitorDepth(WorkQueue queue) {
        return monitorDepth(queue, DEFAULT_DEPTH_REFRESH);
    }

    /**
     * Registers the {@code rowqueue.queue.jobs} gauges of a work queue. The four gauges share one cached
     * {@link dev.rowqueue.QueueStats} snapshot: reading a gauge whose snapshot is older than {@code refresh} runs one
     * {@link WorkQueue#stats()} query (one statement) on the reading thread, whatever the number of gauges, scrapes
     * and registries. A queue already monitored keeps its gauges and interval.
     *
     * @param queue   a work queue of a {@code RowQueues} instance
     * @param refresh how old the counts may get, positive
     * @return the queue's gauges
     */
    public QueueDepthGauges monitorDepth(WorkQueue queue, Duration refresh) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(refresh, "refresh");
        if (refresh.isNegative() || refresh.isZero()) {
            throw new IllegalArgumentException("refresh must be positive, got " + refresh);
        }
        return depths.computeIfAbsent(queue.name(),
                name -> new QueueDepthGauges(registry, tags, queue, refresh, g -> depths.remove(name, g)));
    }

    /**
     * Registers depth gauges, refreshed at most every {@link #DEFAULT_DEPTH_REFRESH}, for every work queue in the
     * instance's catalog now ({@link RowQueues#queues()}); queues created later need {@link #monitorDepth}.
     *
     * @param rowQueues the instance
     * @return the gauges, one per work queue
     */
    public List<QueueDepthGauges> monitorDepths(RowQueues rowQueues) {
        List<QueueDepthGauges> result = new ArrayList<>();
        for (QueueInfo q : rowQueues.queues()) {
            if (q.kind() == QueueKind.WORK) {
                result.add(monitorDepth(rowQueues.workQueue(q.name())));
            }
        }
        return result;
    }

    // ---------------------------------------------------------------- schedules

    static final String SCHEDULE_SLOTS = "rowqueue.schedule.slots";
    static final String SCHEDULE_LAG = "rowqueue.schedule.lag";

    private record SlotKey(String schedule, String outcome) {
    }

    private final ConcurrentMap<SlotKey, Counter> slots = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Timer> lags = new ConcurrentHashMap<>();

    private Counter slots(String schedule, String outcome) {
        return slots.computeIfAbsent(new SlotKey(schedule, outcome), k -> Counter.builder(SCHEDULE_SLOTS)
                .description("slots of a schedule by outcome: fired on time, fired late, missed (no job of their own)")
                .tags(Tags.of("schedule", k.schedule(), "outcome", k.outcome())).tags(tags).register(registry));
    }

    private void lag(String schedule, Duration lag) {
        lags.computeIfAbsent(schedule, s -> Timer.builder(SCHEDULE_LAG)
                .description("from a slot's time to its job's enqueue, by the database's clock")
                .tags(Tags.of("schedule", s)).tags(tags).register(registry)).record(lag);
    }

    /**
     * Counts a slot fired on time ({@code rowqueue.schedule.slots{outcome=fired}}) and records its lag
     * ({@code rowqueue.schedule.lag}). Register with {@code RowQueues.Builder.scheduleListener(metrics)}.
     */
    @Override
    public void fired(String schedule, java.time.Instant slot, long jobId, Duration lag) {
        slots(schedule, "fired").increment();
        lag(schedule, lag);
    }

    /** Counts a slot fired late ({@code outcome=late}) and records its lag. */
    @Override
    public void late(String schedule, java.time.Instant slot, long jobId, Duration lag) {
        slots(schedule, "late").increment();
        lag(schedule, lag);
    }

    /** Counts slots that got no job of their own ({@code outcome=missed}). */
    @Override
    public void missed(String schedule, java.time.Instant first, java.time.Instant last, long count) {
        slots(schedule, "missed").increment(count);
    }

    @Override
    public String toString() {
        return "RowQueueMetrics[" + registry.getClass().getSimpleName() + "]";
    }
}
