package dev.rowqueue.bench;

import dev.rowqueue.Enqueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;

import java.util.Collections;
import java.util.List;

/**
 * One system of the side-by-side cells ({@link PeerCells}): rowqueue or a peer, on the target's database and pool,
 * measured the same way: workers over a backlog with the same handler and as many threads, enqueues one job or a
 * batch at a time from as many client threads, and the time from an enqueue to its handler's start on an idle worker.
 */
interface Contender extends AutoCloseable {

    /** Jobs per call of the batched enqueue cells. */
    int BATCH = 100;

    /** @return its name in the table: "rowqueue", "db-scheduler", "JobRunr", "graphile-worker" */
    String name();

    /** @return its version and the settings it runs with, for the table's notes */
    String settings();

    /**
     * @param profile the profile
     * @param handler what each job does
     * @param threads its worker threads (graphile-worker: concurrency)
     * @return jobs completed a second over a backlog topped up between rounds
     * @throws Exception on failure
     */
    Harness.Measurement workers(Profile profile, Workers.Handler handler, int threads) throws Exception;

    /**
     * @param profile the profile
     * @param threads client threads (graphile-worker: concurrent loops)
     * @param batch   jobs per call: 1 (its single enqueue) or {@link #BATCH} (its batch enqueue)
     * @return jobs enqueued a second
     * @throws Exception on failure
     */
    Harness.Measurement enqueue(Profile profile, int threads, int batch) throws Exception;

    /**
     * @param profile the profile (rounds long enough for a trickle)
     * @param threads the idle worker's threads
     * @return enqueue-to-start latency of a trickle of {@link Bench#TRICKLE_PER_SECOND} jobs a second
     * @throws Exception on failure
     */
    Harness.Measurement latency(Profile profile, int threads) throws Exception;

    /** @return its processes outside this JVM, for {@link CpuMeter} */
    default List<Long> processes() {
        return List.of();
    }

    @Override
    default void close() throws Exception {
    }

    /** @return rowqueue's worker and enqueue, with their defaults */
    static Contender rowqueue(BenchTarget target, RowQueues rq, Workloads names) {
        Workers workers = new Workers(rq, names, target);
        return new Contender() {
            @Override
            public String name() {
                return "rowqueue";
            }

            @Override
            public String settings() {
                return "rowqueue: WorkQueue.worker(handler, WorkerOptions.defaults().withThreads(n)) with its defaults (prefetch up"
                        + " to 4 per thread within 100 ms; acks ride on the next claim), enqueue / enqueueAll; the latency cell"
                        + " enqueues through another RowQueues instance on the same pool";
            }

            @Override
            public Harness.Measurement workers(Profile profile, Workers.Handler handler, int threads)
                    throws Exception {
                try (Workers.Throughput t = workers.new Throughput(threads, -1, handler, floor(profile))) {
                    return Harness.observe(profile, t);
                }
            }

            @Override
            public Harness.Measurement enqueue(Profile profile, int threads, int batch) throws Exception {
                WorkQueue q = rq.workQueue(names.fresh("we")).create();
                List<String> jobs = Collections.nCopies(batch, "job");
                try {
                    return Harness.measure(profile, threads, (thread, n) -> {
                        if (batch == 1) {
                            q.enqueue("job");
                        } else {
                            q.enqueueAll(jobs, Enqueue.defaults());
                        }
                        return batch;
                    });
                } finally {
                    rq.dropQueue(q.name());
                }
            }

            @Override
            public Harness.Measurement latency(Profile profile, int threads) throws Exception {
                // enqueued through another instance, as db-scheduler's SchedulerClient enqueues beside its scheduler
                try (Workers.Latency l = workers.new Latency(threads, Bench.TRICKLE_PER_SECOND, false)) {
                    return Harness.observe(profile, l);
                }
            }
        };
    }

    /** @return db-scheduler, configured as {@link Peer} says */
    static Contender dbScheduler(BenchTarget target, Peer peer) {
        return new Contender() {
            @Override
            public String name() {
                return "db-scheduler";
            }

            @Override
            public String settings() {
                return "db-scheduler " + Peer.version() + ": " + peer.polling() + ", threads(n), pollingInterval "
                        + Peer.POLLING_INTERVAL.toMillis() + " ms; schedule / scheduleBatch";
            }

            @Override
            public Harness.Measurement workers(Profile profile, Workers.Handler handler, int threads)
                    throws Exception {
                try (Peer.Executions e = peer.new Executions(threads, handler, floor(profile)).analyzedOn(target)) {
                    return Harness.observe(profile, e);
                }
            }

            @Override
            public Harness.Measurement enqueue(Profile profile, int threads, int batch) throws Exception {
                return Harness.measure(profile, threads, batch == 1 ? peer.enqueue() : peer.enqueueBatch(batch));
            }

            @Override
            public Harness.Measurement latency(Profile profile, int threads) throws Exception {
                try (Peer.Latency l = peer.new Latency(threads, Bench.TRICKLE_PER_SECOND)) {
                    return Harness.observe(profile, l);
                }
            }
        };
    }

    /**
     * A peer's backlog for a workers cell: before each round (untimed) it is topped up to twice what the last round
     * completed, at least {@link #floor}; after the first fill the table is analyzed and the consumer started, and the
     * rounds begin once it completed its first job (a peer that polls starts working a poll interval later).
     */
    abstract class ToppedUp implements Harness.Observed {
        private final long floor;
        private long enqueued;
        private boolean started;

        ToppedUp(Profile profile) {
            this.floor = floor(profile);
        }

        /** Enqueues {@code n} more jobs. */
        abstract void fill(long n) throws Exception;

        /** Starts the consumer. */
        abstract void start() throws Exception;

        @Override
        public final void beforeRound(boolean timed, double lastRate, long roundNanos) throws Exception {
            long wanted = (long) Math.max(floor, lastRate * roundNanos / 1e9 * 2);
            long left = enqueued - completed();
            if (left < wanted) {
                fill(wanted - left);
                enqueued += wanted - left;
            }
            if (!started) {
                started = true;
                start();
                Harness.awaitFirst(this::completed);
            }
        }
    }

    /** @return the fewest jobs due before each round of a workers cell */
    static long floor(Profile profile) {
        return Math.min(20_000, profile.backlogJobs());
    }
}
