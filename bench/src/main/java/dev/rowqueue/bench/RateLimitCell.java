package dev.rowqueue.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * How accurately a rate limit ({@link WorkQueueOptions#withRateLimit}) holds across nodes (issue 38, section 3):
 * {@value #NODES} {@code RowQueues} instances, each on its own pool ({@link BenchTarget#pool}), each running a
 * {@link Worker} of {@value #THREADS} threads with a no-op handler on one queue limited to {@value #LIMIT} starts per
 * second, over a backlog that cannot run dry, for the profile's {@link Profile#rateLimitRun()}. Each worker's
 * {@link WorkerListener#claimed} records the lease start the database wrote for every job it claimed
 * ({@link Job#leaseUntil()} less the lease): the cell reports the most starts in any 1 s window (the limit says at
 * most {@value #LIMIT}), the starts a second over the run as a fraction of the limit, and the jobs handed out twice.
 * It runs when {@code --only} finds {@link #NAME}; it asserts nothing: the report's targets say whether the limit held
 * and whether the rate reached 90% of it.
 */
final class RateLimitCell {

    /** The cell's name, for {@code --only}. */
    static final String NAME = "rate limit accuracy, 3 nodes, 100 jobs per second";
    /** {@code RowQueues} instances, each on its own pool. */
    static final int NODES = 3;
    /** Handler threads of each node's worker. */
    static final int THREADS = 2;
    /** Jobs per window. */
    static final int LIMIT = 100;
    /** The limit's window. */
    static final Duration WINDOW = Duration.ofSeconds(1);
    /** The fraction of the limit the issue asks the average rate to reach. */
    static final double AIM = 0.9;
    /** Long enough that no lease ends, so that no job is claimed twice for a lapsed lease. */
    private static final Duration LEASE = Duration.ofMinutes(5);
    /** Connections of each node's pool: the worker's claims, acks and heartbeats, and a listening connection. */
    private static final int NODE_POOL = 4;
    /** How long the workers run past the run, so that the run's last window is covered by recorded starts. */
    private static final Duration TAIL = Duration.ofMillis(300);

    private final Results results;
    private final Options options;

    RateLimitCell(Results results, Options options) {
        this.results = results;
        this.options = options;
    }

    /** Records every job the workers claim, until {@link #stop()}. */
    private static final class Starts implements WorkerListener {
        private final ConcurrentLinkedQueue<Long> starts = new ConcurrentLinkedQueue<>();
        private final Map<Long, Integer> claims = new ConcurrentHashMap<>();
        private volatile boolean recording = true;

        @Override
        public void claimed(List<Job> jobs) {
            if (recording) {
                for (Job job : jobs) {
                    starts.add(job.leaseUntil().toEpochMilli() - LEASE.toMillis());
                    claims.merge(job.id(), 1, Integer::sum);
                }
            }
        }

        /** Stops recording before the workers pause, whose prefetched jobs go back to the queue. */
        void stop() {
            recording = false;
        }

        long count() {
            return starts.size();
        }

        long duplicates() {
            return claims.values().stream().filter(n -> n > 1).count();
        }
    }

    /**
     * Runs the cell on one database, if {@code --only} selects it.
     *
     * @param target the database
     * @param rq     rowqueue on its main pool: creates, fills and drops the queue
     * @param names  fresh queue names
     * @throws Exception on failure
     */
    void run(BenchTarget target, RowQueues rq, Workloads names) throws Exception {
        if (!results.want(NAME)) {
            return;
        }
        Duration run = options.profile().rateLimitRun();
        System.out.printf(Locale.ROOT, "   %s, %d s ...%n", NAME, run.toSeconds());
        WorkQueueOptions limited = WorkQueueOptions.defaults().withLeaseDuration(LEASE).withRateLimit(LIMIT, WINDOW);
        String name = names.fresh("rl");
        WorkQueue queue = rq.workQueue(name, limited).create();
        // the limit lets at most LIMIT start per window: enough for the run, its tail and the first window's burst
        long backlog = LIMIT * (run.toSeconds() + 5);
        List<String> chunk = Collections.nCopies(500, "job");
        for (long i = 0; i < backlog; i += chunk.size()) {
            queue.enqueueAll(chunk, Enqueue.defaults());
        }
        Starts starts = new Starts();
        List<HikariDataSource> pools = new ArrayList<>();
        List<RowQueues> nodes = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                HikariDataSource pool = target.pool("rate-node-" + i, NODE_POOL);
                pools.add(pool);
                RowQueues.Builder builder = RowQueues.builder(pool);
                if (options.claimConcurrency() != null) {
                    builder.claimConcurrency(options.claimConcurrency());
                }
                RowQueues node = builder.build();
                nodes.add(node);
                workers.add(node.workQueue(name, limited).worker(job -> {
                }, WorkerOptions.defaults().withThreads(THREADS).withListener(starts)));
            }
            workers.forEach(Worker::start);
            Harness.awaitFirst(starts::count);
            TimeUnit.MILLISECONDS.sleep(run.plus(TAIL).toMillis());
            starts.stop();
            workers.forEach(Worker::pause);
        } finally {
            for (Worker w : workers) {
                w.close(Duration.ofSeconds(10));
            }
            nodes.forEach(RowQueues::close);
            pools.forEach(HikariDataSource::close);
        }
        long left = queue.stats().ready();
        rq.dropQueue(name);
        long[] sorted = starts.starts.stream().mapToLong(Long::longValue).sorted().toArray();
        Results.RateLimit r = new Results.RateLimit(target.name(), NODES, THREADS, LIMIT, WINDOW, run, sorted.length,
                maxInWindow(sorted, WINDOW.toMillis()), inRun(sorted, run.toMillis()), starts.duplicates(), left);
        results.rateLimits.add(r);
        System.out.printf(Locale.ROOT, "   %d starts, at most %d in any %d ms (limit %d), %.1f/s over %d s: %.0f%% of"
                        + " the limit; %d jobs claimed twice; %,d jobs left%n", r.starts(), r.maxInWindow(),
                WINDOW.toMillis(), LIMIT, r.perSecond(), run.toSeconds(), r.ofLimit() * 100, r.duplicates(), left);
    }

    /** Renders the cell's table, if it ran. */
    static void render(StringBuilder md, Results results) {
        if (results.rateLimits.isEmpty()) {
            return;
        }
        md.append("## Rate limit accuracy\n\n");
        md.append("One queue with `withRateLimit(").append(LIMIT).append(", Duration.ofSeconds(")
                .append(WINDOW.toSeconds()).append("))` and a backlog that cannot run dry; ").append(NODES)
                .append(" `RowQueues` instances, each on its own pool of ").append(NODE_POOL)
                .append(" connections, each running a `Worker` of ").append(THREADS).append(" threads (its other")
                .append(" settings the defaults) with a no-op handler. A start is the lease start the database wrote")
                .append(" (`leaseUntil` less the lease) for each job a worker claimed, from the first claim until the")
                .append(" workers paused (").append(TAIL.toMillis()).append(" ms after the run). The limit allows at")
                .append(" most ").append(LIMIT).append(" starts in any window; the issue aims at an average of at")
                .append(" least ").append(Math.round(AIM * 100)).append("% of it, counted over the run from the first")
                .append(" start.\n\n");
        md.append("| Database | Nodes x threads | Limit | Run | Starts | Most in any window | Average / limit |")
                .append(" Claimed twice | Jobs left |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Results.RateLimit r : results.rateLimits) {
            md.append(String.format(Locale.ROOT, "| %s | %d x %d | %d per %d ms | %d s | %,d | %d | %.1f%% (%.1f/s) |"
                            + " %d | %,d%s |%n", r.target(), r.nodes(), r.threads(), r.limit(), r.window().toMillis(),
                    r.run().toSeconds(), r.starts(), r.maxInWindow(), r.ofLimit() * 100, r.perSecond(),
                    r.duplicates(), r.left(), r.left() == 0 ? " (the backlog ran dry: the average is not the limit's)"
                            : ""));
        }
        md.append('\n');
    }

    /**
     * @param sorted   start times in ms, ascending
     * @param windowMs the window
     * @return the most starts in any half-open window {@code [t, t + windowMs)}
     */
    static int maxInWindow(long[] sorted, long windowMs) {
        int max = 0;
        int end = 0;
        for (int i = 0; i < sorted.length; i++) {
            while (end < sorted.length && sorted[end] < sorted[i] + windowMs) {
                end++;
            }
            max = Math.max(max, end - i);
        }
        return max;
    }

    /**
     * @param sorted start times in ms, ascending
     * @param runMs  the run
     * @return the starts within {@code runMs} of the first
     */
    static long inRun(long[] sorted, long runMs) {
        return sorted.length == 0 ? 0 : Arrays.stream(sorted).filter(s -> s < sorted[0] + runMs).count();
    }
}
