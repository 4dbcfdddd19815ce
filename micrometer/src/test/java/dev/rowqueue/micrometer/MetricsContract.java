package dev.rowqueue.micrometer;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.Operation;
import dev.rowqueue.OperationEvent;
import dev.rowqueue.OperationListener;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The meters against a real database, with a {@link SimpleMeterRegistry}: run on H2 ({@link H2MetricsTest}) and on
 * embedded PostgreSQL ({@link PostgresMetricsTest}).
 */
abstract class MetricsContract {
    private static final AtomicInteger QUEUES = new AtomicInteger();

    /** @return a database for one test (a fresh one, or a shared one: queue names are unique) */
    abstract DataSource dataSource();

    static String unique(String prefix) {
        return prefix + "_" + QUEUES.incrementAndGet();
    }

    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within a minute: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    static Timer operations(MeterRegistry r, String queue, String operation, String outcome) {
        return r.get("rowqueue.operations").tags("queue", queue, "operation", operation, "outcome", outcome).timer();
    }

    static double items(MeterRegistry r, String queue, String operation) {
        return r.get("rowqueue.operation.items").tags("queue", queue, "operation", operation).counter().count();
    }

    static double jobs(MeterRegistry r, String queue, String outcome) {
        return r.get("rowqueue.worker.jobs").tags("queue", queue, "outcome", outcome).counter().count();
    }

    /** Counts the stats queries an instance runs. */
    static final class StatsCounter implements OperationListener {
        final AtomicInteger stats = new AtomicInteger();

        @Override
        public void onOperation(OperationEvent event) {
            if (event.operation() == Operation.STATS) {
                stats.incrementAndGet();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ operations

    @Test
    void operations_are_counted_and_timed_by_queue_operation_and_outcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        String work = unique("ops_work");
        String ring = unique("ops_ring");
        String counters = unique("ops_counters");
        try (RowQueues rq = RowQueues.builder(dataSource()).operationListener(metrics).build()) {
            WorkQueue q = rq.workQueue(work);
            q.enqueue("a");
            q.enqueue("b", Enqueue.defaults().withPriority(1));
            q.enqueueAll(List.of("c", "d", "e", "f", "g"), Enqueue.defaults());
            List<Job> claimed = q.claim(3);
            claimed.forEach(q::ack);
            q.nack(q.claim(1).get(0));
            assertThatThrownBy(() -> q.enqueue(null)).isInstanceOf(IllegalArgumentException.class);

            RingQueue r = rq.ring(ring, 2);
            r.push("g", "1");
            r.pushAll("g", List.of("2", "3", "4"));
            Counters c = rq.counters(counters);
            c.increment("k");
            c.allocate("k", 100);
        }

        Timer enqueue = operations(registry, work, "enqueue", "success");
        assertThat(enqueue.count()).isEqualTo(2);
        assertThat(enqueue.totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(enqueue.getId().getTag("kind")).isEqualTo("work");
        assertThat(enqueue.getId().getTag("exception")).isEqualTo("none");
        assertThat(items(registry, work, "enqueue")).isEqualTo(2);
        assertThat(operations(registry, work, "enqueue_all", "success").count()).isEqualTo(1);
        assertThat(items(registry, work, "enqueue_all")).isEqualTo(5);
        assertThat(operations(registry, work, "claim", "success").count()).isEqualTo(2);
        assertThat(items(registry, work, "claim")).isEqualTo(4);
        assertThat(operations(registry, work, "ack", "success").count()).isEqualTo(3);
        assertThat(items(registry, work, "ack")).isEqualTo(3);
        assertThat(operations(registry, work, "nack", "success").count()).isEqualTo(1);

        Timer refused = operations(registry, work, "enqueue", "invalid_input");
        assertThat(refused.count()).isEqualTo(1);
        assertThat(refused.getId().getTag("exception")).isEqualTo("IllegalArgumentException");

        assertThat(operations(registry, ring, "push", "success").getId().getTag("kind")).isEqualTo("ring");
        assertThat(items(registry, ring, "push_all")).isEqualTo(3);
        assertThat(operations(registry, counters, "increment", "success").count()).isEqualTo(1);
        assertThat(operations(registry, counters, "allocate", "success").count())
                .as("allocate is one operation, not an increment too").isEqualTo(1);
        assertThat(items(registry, counters, "allocate")).isEqualTo(100);
    }

    // ------------------------------------------------------------------------------------------------ workers

    @Test
    void a_worker_records_successes_running_handlers_handler_time_and_wait() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        String name = unique("workers");
        int n = 40;
        int threads = 4;
        CountDownLatch hold = new CountDownLatch(1);
        AtomicInteger own = new AtomicInteger();
        WorkerListener mine = new WorkerListener() {
            @Override
            public void succeeded(Job job, Duration running) {
                own.incrementAndGet();
            }
        };
        try (RowQueues rq = RowQueues.builder(dataSource()).operationListener(metrics).build()) {
            WorkQueue q = rq.workQueue(name);
            q.enqueueAll(IntStream.range(0, n).mapToObj(i -> "job-" + i).toList(), Enqueue.defaults());
            WorkerListener listener = metrics.workerListener(name, mine);
            Gauge running = registry.get("rowqueue.worker.running").tag("queue", name).gauge();
            assertThat(running.value()).isZero();
            try (Worker w = q.worker(job -> {
                hold.await();
                TimeUnit.MILLISECONDS.sleep(2);
            }, WorkerOptions.defaults().withThreads(threads).withListener(listener)).start()) {
                eventually("all threads busy", () -> running.value() == threads);
                assertThat(w.running()).isEqualTo(threads);
                hold.countDown();
                eventually("all succeeded", () -> jobs(registry, name, "succeeded") == n);
                eventually("nothing running", () -> running.value() == 0);
                eventually("all acked", () -> q.stats().total() == 0);
            }
            assertThat(own.get()).as("the user's own listener heard too").isEqualTo(n);
            assertThat(jobs(registry, name, "failed")).isZero();
            assertThat(jobs(registry, name, "dead")).isZero();
            Timer handler = registry.get("rowqueue.worker.handler").tag("queue", name).timer();
            assertThat(handler.count()).isEqualTo(n);
            assertThat(handler.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(2.0 * n);
            Timer wait = registry.get("rowqueue.worker.wait").tag("queue", name).timer();
            assertThat(wait.count()).isEqualTo(n);
            assertThat(wait.max(TimeUnit.NANOSECONDS)).isPositive();
            double claimed = items(registry, name, "claim") + registry.find("rowqueue.operation.items")
                    .tags("queue", name, "operation", "ack_and_claim").counters().stream()
                    .mapToDouble(c -> c.count()).sum();
            assertThat(claimed).as("the worker's claims are operations too").isEqualTo(n);
        }
    }

    @Test
    void failed_and_dead_jobs_and_lost_leases_are_counted() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        String name = unique("failing");
        int n = 6;
        try (RowQueues rq = RowQueues.builder(dataSource()).operationListener(metrics).build()) {
            WorkQueue q = rq.workQueue(name, WorkQueueOptions.defaults().withMaxAttempts(2)
                    .withRetryBackoff(Duration.ofMillis(1), Duration.ofMillis(1)));
            q.enqueueAll(IntStream.range(0, n).mapToObj(i -> "bad-" + i).toList(), Enqueue.defaults());
            try (Worker w = q.worker(job -> {
                throw new IllegalStateException("handler failure (test)");
            }, WorkerOptions.defaults().withThreads(2).withListener(metrics.workerListener(q))).start()) {
                eventually("every job dead", () -> jobs(registry, name, "dead") == n);
            }
            assertThat(jobs(registry, name, "failed")).as("first attempts").isEqualTo(n);
            assertThat(jobs(registry, name, "succeeded")).isZero();
            assertThat(registry.get("rowqueue.worker.handler").tag("queue", name).timer().count()).isEqualTo(2L * n);
            assertThat(registry.get("rowqueue.worker.running").tag("queue", name).gauge().value()).isZero();
            assertThat(q.stats().dead()).isEqualTo(n);

            // a lease lost: the handler outlives its lease (no heartbeat in time), another consumer takes the job.
            // The handler is not interrupted: interrupted, it would end, and the worker's free thread would compete
            // with that consumer for the job (and, winning five times, make it dead)
            String slow = unique("lost");
            WorkQueue s = rq.workQueue(slow, WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMillis(300)));
            s.enqueue("slow");
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stolen = new CountDownLatch(1);
            List<Job> taken = new ArrayList<>();
            try (Worker w = s.worker(job -> {
                started.countDown();
                stolen.await();
            }, WorkerOptions.defaults().withThreads(1).withHeartbeat(Duration.ofHours(1))
                    .withInterruptOnLeaseLoss(false).withListener(metrics.workerListener(slow))).start()) {
                assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
                eventually("the lease ended and another consumer claimed the job", () -> {
                    taken.addAll(s.claim(1));
                    return !taken.isEmpty();
                });
                assertThat(taken.get(0).failures()).as("the worker's run was the first attempt").isEqualTo(1);
                stolen.countDown();
                eventually("the worker's handler ended", () -> w.running() == 0);
            }
            assertThat(registry.get("rowqueue.worker.lease.lost").tag("queue", slow).counter().count())
                    .as("the lost lease is reported once: by the watch, not again by the late ack").isEqualTo(1);
            assertThat(jobs(registry, slow, "succeeded")).as("a handler whose lease was lost is not acked").isZero();
            assertThat(s.ack(taken.get(0))).as("the consumer that took the job over holds it").isTrue();
        }
    }

    // ------------------------------------------------------------------------------------------------ depth

    @Test
    void depth_gauges_show_each_state_and_query_once_per_interval_however_often_they_are_read() {
        MockClock clock = new MockClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        StatsCounter counter = new StatsCounter();
        String name = unique("depth");
        try (RowQueues rq = RowQueues.builder(dataSource()).operationListener(counter).operationListener(metrics)
                .build()) {
            WorkQueue q = rq.workQueue(name, WorkQueueOptions.defaults().withMaxAttempts(1));
            q.enqueueAll(List.of("r1", "r2", "r3", "r4", "r5", "r6"), Enqueue.defaults());
            q.enqueueAll(List.of("s1", "s2", "s3"), Enqueue.defaults().withDelay(Duration.ofHours(1)));
            List<Job> leased = q.claim(3);
            q.nack(leased.get(0)); // one attempt allowed: dead
            QueueDepthGauges gauges = metrics.monitorDepth(q, Duration.ofSeconds(10));
            assertThat(metrics.monitorDepth(q)).as("one set of gauges per queue").isSameAs(gauges);
            assertThat(counter.stats.get()).as("registering queries nothing").isZero();

            Map<String, Double> seen = scrape(registry, name, 100);
            assertThat(seen).containsExactlyInAnyOrderEntriesOf(Map.of("ready", 3.0, "scheduled", 3.0, "leased",
                    2.0, "dead", 1.0));
            assertThat(counter.stats.get()).as("100 scrapes of 4 gauges within one interval: one query").isEqualTo(1);
            assertThat(gauges.queries()).isEqualTo(1);

            q.enqueue("r7");
            clock.add(Duration.ofSeconds(9));
            assertThat(scrape(registry, name, 10).get("ready")).as("still the cached counts").isEqualTo(3.0);
            assertThat(counter.stats.get()).isEqualTo(1);
            clock.add(Duration.ofSeconds(1));
            assertThat(scrape(registry, name, 100).get("ready")).as("refreshed once the interval passed")
                    .isEqualTo(4.0);
            assertThat(counter.stats.get()).isEqualTo(2);
            assertThat(gauges.stats()).contains(new QueueStats(4, 3, 2, 1));
            assertThat(counter.stats.get()).as("stats() shares the cache").isEqualTo(2);
            assertThat(operations(registry, name, "stats", "success").count())
                    .as("the gauges' own queries show in rowqueue.operations").isEqualTo(2);

            gauges.close();
            assertThat(registry.find(QueueDepthGauges.NAME).tag("queue", name).gauges()).isEmpty();
            assertThat(metrics.monitorDepth(q)).as("registered anew after close").isNotSameAs(gauges);
        }
    }

    @Test
    void depth_gauges_of_every_work_queue_in_the_catalog() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        String a = unique("cat_a");
        String b = unique("cat_b");
        try (RowQueues rq = RowQueues.builder(dataSource()).build()) {
            rq.workQueue(a).enqueue("x");
            rq.workQueue(b).create();
            rq.ring(unique("cat_ring"), 3);
            List<QueueDepthGauges> all = metrics.monitorDepths(rq);
            assertThat(all).extracting(QueueDepthGauges::queue).contains(a, b);
            assertThat(all).allMatch(g -> g.refreshInterval().equals(RowQueueMetrics.DEFAULT_DEPTH_REFRESH));
            assertThat(registry.get(QueueDepthGauges.NAME).tags("queue", a, "state", "ready").gauge().value())
                    .isEqualTo(1.0);
            assertThat(registry.find(QueueDepthGauges.NAME).gauges()).extracting(g -> g.getId().getTag("queue"))
                    .containsOnly(all.stream().map(QueueDepthGauges::queue).toArray(String[]::new));
        }
    }

    /** Reads every depth gauge of a queue {@code times} times, as scrapes do; returns the last values by state. */
    static Map<String, Double> scrape(MeterRegistry registry, String queue, int times) {
        Map<String, Double> last = new ConcurrentHashMap<>();
        for (int i = 0; i < times; i++) {
            for (Gauge g : registry.find(QueueDepthGauges.NAME).tag("queue", queue).gauges()) {
                last.put(g.getId().getTag("state"), g.value());
            }
        }
        return last;
    }

    // ------------------------------------------------------------------------------------------------ observation

    /** Keeps every stopped observation's context. */
    static final class Recording implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }
    }

    @Test
    void each_job_a_worker_runs_is_one_observation() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        Recording recording = new Recording();
        observations.observationConfig().observationHandler(recording)
                .observationHandler(new DefaultMeterObservationHandler(meters));
        String name = unique("observed");
        int n = 12;
        List<Observation.Context> current = Collections.synchronizedList(new ArrayList<>());
        try (RowQueues rq = RowQueues.builder(dataSource()).build()) {
            WorkQueue q = rq.workQueue(name, WorkQueueOptions.defaults().withMaxAttempts(3)
                    .withRetryBackoff(Duration.ofMillis(1), Duration.ofMillis(1)));
            List<Long> ids = q.enqueueAll(IntStream.range(0, n).mapToObj(i -> i % 4 == 0 ? "fails-once" : "ok")
                    .toList(), Enqueue.defaults());
            try (Worker w = q.worker(ObservedJobHandler.wrap(observations, name, job -> {
                Observation inScope = observations.getCurrentObservation();
                current.add(inScope == null ? null : inScope.getContext());
                if (job.payload().equals("fails-once") && job.attempt() == 1) {
                    throw new IllegalStateException("first attempt fails (test)");
                }
            }), WorkerOptions.defaults().withThreads(3)).start()) {
                eventually("all done", () -> q.stats().total() == 0 && recording.stopped.size() == n + 3);
            }
            List<JobObservationContext> jobs = recording.stopped.stream()
                    .map(c -> (JobObservationContext) c).toList();
            assertThat(jobs).allMatch(c -> c.getName().equals("rowqueue.job")
                    && c.getContextualName().equals("process " + name)
                    && name.equals(c.getLowCardinalityKeyValue("queue").getValue()));
            assertThat(jobs).filteredOn(c -> c.outcome().equals("success")).hasSize(n);
            List<JobObservationContext> errors = jobs.stream().filter(c -> c.outcome().equals("error")).toList();
            assertThat(errors).hasSize(3).allMatch(c -> c.getError() instanceof IllegalStateException
                    && c.getHighCardinalityKeyValue("job.attempt").getValue().equals("1"));
            assertThat(jobs).extracting(c -> Long.parseLong(c.getHighCardinalityKeyValue("job.id").getValue()))
                    .containsAll(ids);
            assertThat(current).as("the handler runs inside its job's observation").hasSize(n + 3)
                    .allMatch(c -> c instanceof JobObservationContext);
            assertThat(meters.get("rowqueue.job").tags("queue", name, "outcome", "success").timer().count())
                    .isEqualTo(n);
            assertThat(meters.get("rowqueue.job").tags("queue", name, "outcome", "error",
                    "error", "IllegalStateException").timer().count()).isEqualTo(3);
        }
    }

    @Test
    void a_noop_observation_registry_runs_the_handler_as_is() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        dev.rowqueue.JobHandler h = ObservedJobHandler.wrap(ObservationRegistry.NOOP, "q", job -> ran.add("ran"));
        String name = unique("noop");
        try (RowQueues rq = RowQueues.builder(dataSource()).build()) {
            WorkQueue q = rq.workQueue(name);
            q.enqueue("x");
            try (Worker w = q.worker(h, WorkerOptions.defaults().withThreads(1)).start()) {
                eventually("ran", () -> ran.size() == 1 && q.stats().total() == 0);
            }
        }
    }
}
