package dev.rowqueue.bench;

import dev.rowqueue.Enqueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.testkit.CountingDataSource;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * rowqueue's {@link Worker} measured the way the peer is ({@link Peer.Executions}): its own threads run the jobs,
 * the harness only watches how many completed ({@link Harness#observe}). Throughput over a backlog topped up between
 * rounds, enqueue-to-start latency of a trickle of jobs onto an idle worker, and heartbeat statements while
 * long handlers run.
 */
final class Workers {

    /** What a handler does, the same for rowqueue's worker and db-scheduler's executions. */
    enum Handler {
        /** Returns at once. */
        NOOP("no-op handler"),
        /** {@code Thread.sleep(1)}: about 1.05 to 1.1 ms on Linux. */
        SLEEP_1MS("1 ms handler (Thread.sleep(1))");

        final String label;

        Handler(String label) {
            this.label = label;
        }

        void run() {
            if (this == SLEEP_1MS) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * What heartbeats cost while long handlers ran.
     *
     * @param statements heartbeat statements
     * @param jobs       jobs they extended, summed over the statements
     * @param all        every statement from the start until the last handler ended (claims, acks, polls too)
     * @param seconds    how long that was
     */
    record Heartbeats(long statements, long jobs, long all, double seconds) {
        double perSecond() {
            return statements / seconds;
        }

        double jobsPerStatement() {
            return statements == 0 ? 0 : jobs / (double) statements;
        }
    }

    private final RowQueues rq;
    private final Workloads names;
    private final BenchTarget target;

    Workers(RowQueues rq, Workloads names, BenchTarget target) {
        this.rq = rq;
        this.names = names;
        this.target = target;
    }

    /**
     * Runs the database's maintenance of a table just filled ({@link BenchTarget#maintenance}: PostgreSQL
     * {@code VACUUM (ANALYZE)}, MariaDB {@code ANALYZE TABLE}), as autovacuum or InnoDB's statistics would within a
     * minute of a real queue's life: without statistics PostgreSQL plans some claims as a scan of the whole backlog.
     *
     * @param target the database
     * @param table  the table
     * @throws java.sql.SQLException on failure
     */
    static void analyze(BenchTarget target, String table) throws java.sql.SQLException {
        String maintenance = target.maintenance(table);
        if (maintenance != null) {
            Targets.sql(target.dataSource(), maintenance);
        }
    }

    /**
     * A worker of {@code threads} handler threads over a backlog: before each round (untimed) the queue is topped up
     * to twice what the last round processed, at least {@code floor} jobs, as for the peer. The worker starts after
     * the first fill and runs through all rounds; jobs are counted when their handler returns (their acks ride on the
     * worker's next claim), as db-scheduler's are when their task returns (before its completing {@code DELETE}).
     * After the first fill the table is analyzed ({@link #analyze}), as db-scheduler's is.
     */
    final class Throughput implements Harness.Observed, AutoCloseable {
        private final WorkQueue queue;
        private final WorkerOptions options;
        private final Handler handler;
        private final long floor;
        private final LongAdder done = new LongAdder();
        private long enqueued;
        private Worker worker;

        /** @param prefetch a fixed prefetch, or -1 for the default (up to 4 per thread within the default window) */
        Throughput(int threads, int prefetch, Handler handler, long floor) {
            this.queue = rq.workQueue(names.fresh("wk"), WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(5))).create();
            this.options = prefetch < 0 ? WorkerOptions.defaults().withThreads(threads)
                    : WorkerOptions.defaults().withThreads(threads).withPrefetch(prefetch);
            this.handler = handler;
            this.floor = floor;
        }

        @Override
        public void beforeRound(boolean timed, double lastRate, long roundNanos) throws java.sql.SQLException {
            long wanted = (long) Math.max(floor, lastRate * roundNanos / 1e9 * 2);
            long left = enqueued - done.sum();
            if (left < wanted) {
                fill(wanted - left);
            }
            if (worker == null) {
                analyze(target, dev.rowqueue.spi.WorkTables.of(queue.name()).jobs());
                worker = queue.worker(job -> {
                    handler.run();
                    done.increment();
                }, options).start();
            }
        }

        private void fill(long n) {
            List<String> chunk = Collections.nCopies(500, "job");
            for (long i = 0; i < n; i += chunk.size()) {
                queue.enqueueAll(chunk, Enqueue.defaults());
            }
            enqueued += (n + chunk.size() - 1) / chunk.size() * chunk.size();
        }

        @Override
        public long completed() {
            return done.sum();
        }

        /** Stops the worker and drops its queue, untimed, so that the next cell does not pay for its cleanup. */
        @Override
        public void close() {
            if (worker != null) {
                worker.close(Duration.ofSeconds(10));
            }
            rq.dropQueue(queue.name());
        }
    }

    /**
     * Enqueues one job at a time at random intervals (uniform between 0 and twice the mean), each given the
     * {@link System#nanoTime()} taken just before its enqueue; used for both sides of the latency rows.
     */
    static final class Trickle implements AutoCloseable {
        private final long meanNanos;
        private final LongConsumer enqueue;
        private final Thread thread;
        private volatile boolean stop;

        Trickle(int perSecond, LongConsumer enqueue) {
            this.meanNanos = 1_000_000_000L / perSecond;
            this.enqueue = enqueue;
            this.thread = new Thread(this::run, "bench-trickle");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void run() {
            while (!stop) {
                long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(2 * meanNanos + 1);
                for (long left; !stop && (left = until - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(left);
                }
                if (!stop) {
                    enqueue.accept(System.nanoTime());
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(10_000);
        }
    }

    /**
     * Enqueue-to-start latency of a {@link Trickle}, whoever runs the jobs: each handler, as it starts, reports the
     * {@link System#nanoTime()} its job carries ({@link #started}); the rounds' samples are the latencies, the jobs
     * handled a second the rate.
     */
    abstract static class StartLatency implements Harness.Observed, AutoCloseable {
        private final LongAdder done = new LongAdder();
        private final ConcurrentLinkedQueue<Long> samples = new ConcurrentLinkedQueue<>();
        private final Trickle trickle;
        private volatile boolean recording;
        private boolean running;

        /** @param perSecond the trickle's mean rate */
        StartLatency(int perSecond) {
            this.trickle = new Trickle(perSecond, this::enqueue); // runs once the trickle starts, after construction
        }

        /** @param nanos the time to carry, taken just before this enqueue */
        abstract void enqueue(long nanos);

        /** Starts the worker or scheduler, idle until the trickle begins. */
        abstract void startConsumer() throws Exception;

        /** Stops it. */
        abstract void stopConsumer() throws Exception;

        /** @param enqueuedNanos the time a job carried, taken just before its enqueue */
        final void started(long enqueuedNanos) {
            long now = System.nanoTime();
            if (recording) {
                samples.add(now - enqueuedNanos);
            }
            done.increment();
        }

        @Override
        public final void beforeRound(boolean timed, double lastRate, long roundNanos) throws Exception {
            if (!running) {
                running = true;
                startConsumer();
                trickle.start();
            }
            recording = timed;
        }

        @Override
        public final long completed() {
            return done.sum();
        }

        @Override
        public final long[] latencies() {
            return samples.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public final void close() throws Exception {
            trickle.close();
            try {
                if (running) {
                    stopConsumer();
                }
            } finally {
                released();
            }
        }

        /** Releases what the cell holds besides its consumer; after {@link #stopConsumer()}. */
        void released() {
        }
    }

    /**
     * Enqueue-to-start latency of rowqueue's worker: a {@link Trickle} of jobs onto an idle worker, each payload the
     * time taken just before its enqueue (the enqueue's statement and commit included). PostgreSQL wakes the idle
     * worker with {@code LISTEN/NOTIFY}; elsewhere it polls (50 ms, doubling to the builder's poll interval, jittered),
     * and enqueues of the worker's own {@code RowQueues} instance wake it at once.
     */
    final class Latency extends StartLatency {
        private final WorkQueue queue = rq.workQueue(names.fresh("wl")).create();
        /** Another instance on the same pool, as another process would enqueue, or {@code null}: the worker's own. */
        private final RowQueues producer;
        private final WorkQueue into;
        private final int threads;
        private Worker worker;

        /**
         * @param threads      the worker's threads
         * @param perSecond    the trickle's rate
         * @param ownInstance  whether the jobs are enqueued through the worker's own {@code RowQueues} instance, or
         *                     through another one on the same pool (as db-scheduler's {@code SchedulerClient} does)
         */
        Latency(int threads, int perSecond, boolean ownInstance) {
            super(perSecond);
            this.threads = threads;
            this.producer = ownInstance ? null : RowQueues.builder(target.dataSource()).build();
            this.into = ownInstance ? queue : producer.workQueue(queue.name());
        }

        @Override
        void enqueue(long nanos) {
            into.enqueue(Long.toString(nanos));
        }

        @Override
        void stopConsumer() {
            worker.close(Duration.ofSeconds(10));
        }

        @Override
        void released() {
            if (producer != null) {
                producer.close();
            }
        }

        @Override
        void startConsumer() {
            worker = queue.worker(job -> started(Long.parseLong(job.payload())), WorkerOptions.defaults().withThreads(threads)).start();
        }
    }

    /**
     * Heartbeats: {@code threads} jobs whose handlers each sleep {@code sleep}, on a worker of as many threads, on a
     * queue whose lease is {@code 3 x beat} (so the worker's default heartbeat, a third of the lease, is {@code beat}).
     * Counts the heartbeat statements and the jobs they extended through {@link WorkerListener#heartbeat}, and every
     * statement through a {@link CountingDataSource}, from the worker's start until the last handler ended.
     *
     * @param ds      the database
     * @param threads handler threads and jobs
     * @param beat    the heartbeat interval
     * @param sleep   how long each handler runs
     * @return what was counted
     * @throws Exception on failure
     */
    Heartbeats heartbeats(DataSource ds, int threads, Duration beat, Duration sleep) throws Exception {
        CountingDataSource counted = new CountingDataSource(ds);
        LongAdder statements = new LongAdder();
        LongAdder jobs = new LongAdder();
        CountDownLatch finished = new CountDownLatch(threads);
        try (RowQueues counting = RowQueues.builder(counted).build()) {
            String name = names.fresh("wh");
            WorkQueue queue = counting.workQueue(name, WorkQueueOptions.defaults().withLeaseDuration(beat.multipliedBy(3))).create();
            queue.enqueueAll(new ArrayList<>(Collections.nCopies(threads, "sleep")), Enqueue.defaults());
            WorkerListener listener = new WorkerListener() {
                @Override
                public void heartbeat(int n) {
                    statements.increment();
                    jobs.add(n);
                }
            };
            long before = counted.executions();
            long t0 = System.nanoTime();
            Worker worker = queue.worker(job -> {
                Thread.sleep(sleep.toMillis());
                finished.countDown();
            }, WorkerOptions.defaults().withThreads(threads).withListener(listener)).start();
            try {
                if (!finished.await(2, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("the sleeping handlers did not end in 2 minutes");
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                long all = counted.executions() - before;
                return new Heartbeats(statements.sum(), jobs.sum(), all, seconds);
            } finally {
                worker.close(Duration.ofSeconds(10));
                counting.dropQueue(name);
            }
        }
    }
}
