package dev.rowqueue.micrometer;

import dev.rowqueue.QueueStats;
import dev.rowqueue.WorkQueue;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * The four {@code rowqueue.queue.jobs} gauges of one work queue (tag {@code state}: ready, scheduled, leased, dead)
 * over one cached {@link QueueStats} snapshot. Create with {@link RowQueueMetrics#monitorDepth}.
 *
 * <p><b>Refreshed lazily, at most once per interval.</b> A gauge read (a scrape, a push to a backend, a call of
 * {@link #stats()}) serves the cached snapshot while it is younger than the refresh interval. The first read after
 * that runs {@link WorkQueue#stats()}, one statement, on the reading thread; reads of other threads meanwhile get
 * the previous snapshot at once rather than wait or query too. So a queue costs at most one statement per interval,
 * however many gauges, scrapes or registries read it, and nothing at all while nobody reads. The interval is measured
 * with the registry's {@link Clock}, from the start of one query to the start of the next.
 *
 * <p>No thread of its own: a scheduler would query every interval whether anyone looks or not, and would need closing.
 * The price is that one scrape per interval waits for the query (its cost is in {@code docs/micrometer.md}, and, when
 * {@link RowQueueMetrics} is also the instance's operation listener, in {@code rowqueue.operations{operation=stats}}).
 *
 * <p><b>Failures.</b> When the query fails, the gauges read {@code NaN} (no number rather than a stale one) until a
 * later refresh succeeds; the failed attempt counts as a refresh, so a database outage costs one attempt per interval.
 * The first failure of an outage is logged at WARN.
 */
public final class QueueDepthGauges implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueueDepthGauges.class);

    /** The gauges' name. */
    public static final String NAME = "rowqueue.queue.jobs";

    /** A snapshot; {@code stats} is {@code null} when the query failed. */
    private record Snapshot(QueueStats stats, long takenAt) {
    }

    private final WorkQueue queue;
    private final long refreshNanos;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Consumer<QueueDepthGauges> onClose;
    private final List<Meter> meters;
    private final ReentrantLock refreshing = new ReentrantLock();
    private final AtomicLong queries = new AtomicLong();
    private volatile Snapshot snapshot;
    private volatile boolean failing;

    QueueDepthGauges(MeterRegistry registry, Tags tags, WorkQueue queue, Duration refresh,
                     Consumer<QueueDepthGauges> onClose) {
        this.registry = registry;
        this.tags = tags;
        this.queue = queue;
        this.refreshNanos = refresh.toNanos();
        this.clock = registry.config().clock();
        this.onClose = onClose;
        this.meters = List.of(
                gauge("ready", QueueStats::ready, "claimable now (including jobs whose lease ended)"),
                gauge("scheduled", QueueStats::scheduled, "waiting for their delay or retry time"),
                gauge("leased", QueueStats::leased, "held by a consumer whose lease has not ended"),
                gauge("dead", QueueStats::dead, "exhausted their attempts (dead letters)"));
    }

    private Gauge gauge(String state, ToLongFunction<QueueStats> count, String what) {
        return Gauge.builder(NAME, this, g -> g.value(count))
                .description("jobs of a rowqueue work queue by state (" + state + ": " + what + "), cached, queried"
                        + " at most once per refresh interval")
                .tags("queue", queue.name(), "state", state)
                .tags(tags)
                .strongReference(true)
                .register(registry);
    }

    private double value(ToLongFunction<QueueStats> count) {
        QueueStats s = current();
        return s == null ? Double.NaN : count.applyAsLong(s);
    }

    /** @return the queue's name */
    public String queue() {
        return queue.name();
    }

    /** @return how old the cached counts may get */
    public Duration refreshInterval() {
        return Duration.ofNanos(refreshNanos);
    }

    /**
     * The counts the gauges show, refreshed first if they are older than the interval (the same rule as a gauge
     * read): for a health check that must not query on every call either.
     *
     * @return the counts, or empty if the last query failed
     */
    public Optional<QueueStats> stats() {
        return Optional.ofNullable(current());
    }

    /** @return how many stats queries these gauges ran (or tried) so far */
    public long queries() {
        return queries.get();
    }

    private QueueStats current() {
        Snapshot s = snapshot;
        if (s != null && clock.monotonicTime() - s.takenAt() < refreshNanos) {
            return s.stats();
        }
        if (s == null) {
            refreshing.lock(); // the very first read waits for the first counts
        } else if (!refreshing.tryLock()) {
            return s.stats(); // another thread queries now: the previous counts, without waiting
        }
        try {
            s = snapshot;
            long now = clock.monotonicTime();
            if (s != null && now - s.takenAt() < refreshNanos) {
                return s.stats(); // refreshed while this thread waited
            }
            QueueStats fresh = query();
            snapshot = new Snapshot(fresh, now);
            return fresh;
        } finally {
            refreshing.unlock();
        }
    }

    private QueueStats query() {
        queries.incrementAndGet();
        try {
            QueueStats stats = queue.stats();
            if (failing) {
                failing = false;
                log.info("rowqueue: depth gauges of {} read the queue again", queue.name());
            }
            return stats;
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("rowqueue: depth gauges of {} cannot read the queue's counts; they show NaN until a refresh"
                        + " succeeds (tried once per {}, logged once per outage): {}", queue.name(),
                        refreshInterval(), e.toString());
            } else {
                log.debug("rowqueue: depth gauges of {}: counts failed again: {}", queue.name(), e.toString());
            }
            return null;
        }
    }

    /** Removes the four gauges from the registry; {@link RowQueueMetrics#monitorDepth} may register them anew. */
    @Override
    public void close() {
        meters.forEach(registry::remove);
        onClose.accept(this);
    }

    @Override
    public String toString() {
        Snapshot s = snapshot;
        return "QueueDepthGauges[" + queue.name() + ", every " + refreshInterval() + ", "
                + (s == null ? "not read yet" : s.stats() == null ? "failing" : s.stats()) + "]";
    }
}
