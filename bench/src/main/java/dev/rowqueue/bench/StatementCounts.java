package dev.rowqueue.bench;

import dev.rowqueue.Capability;
import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.CountingDataSource;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The exact counts of the table: statements, commits and session calls per operation by a counting JDBC proxy, and
 * network round trips by a TCP relay between the driver and the server ({@link RoundTripProxy}), single-threaded.
 */
final class StatementCounts {

    private final Results results;

    StatementCounts(Results results) {
        this.results = results;
    }

    /** Counts statements, commits, session calls and network round trips per operation, single-threaded, exactly. */
    void roundTrips(BenchTarget target, RowQueues plain) throws Exception {
        if (!results.want("round trips")) {
            return;
        }
        Optional<BenchTarget.Endpoint> endpoint = target.endpoint();
        RoundTripProxy proxy = null;
        FixedPool fixed = null;
        DataSource base = target.dataSource();
        if (endpoint.isPresent()) {
            BenchTarget.Endpoint e = endpoint.get();
            proxy = new RoundTripProxy(e.host(), e.port());
            fixed = new FixedPool(e.url().apply(proxy.localPort()), e.user(), e.password(), 4);
            base = fixed;
        }
        CountingDataSource counted = new CountingDataSource(base);
        Counter c = new Counter(target, counted, proxy);
        try (RowQueues rq = RowQueues.builder(counted).build()) {
            int n = 200;
            RingQueue ring = rq.ring("bench_rt_ring", 10);
            ring.push("g", "warm");
            c.count("ring push (safe), existing group", n, "", () -> ring.push("g", "x"));
            c.count("ring push (safe), new group", n, "", i -> ring.push("new" + i, "x"));
            if (rq.database().capabilities().contains(Capability.SINGLE_WRITER_RING)) {
                RingQueue single = rq.ring("bench_rt_single", RingOptions.ofCapacity(10).withStrategy(RingStrategy.SINGLE_WRITER));
                single.push("g", "warm");
                c.count("ring push (single writer)", n, "", () -> single.push("g", "x"));
            }
            WorkQueue q = rq.workQueue("bench_rt_work").create(); // its DDL not counted as the first enqueue's
            c.count("enqueue", n, "", () -> q.enqueue("x"));
            List<String> hundred = java.util.Collections.nCopies(Contender.BATCH, "x");
            c.count("enqueueAll of " + Contender.BATCH + ", per job", 20 * Contender.BATCH, "20 calls",
                    i -> {
                        if (i % Contender.BATCH == 0) {
                            q.enqueueAll(hundred, Enqueue.defaults());
                        }
                    });
            List<Job> claimed = new ArrayList<>();
            c.count("claim, batch 1", n, "", () -> claimed.addAll(q.claim(1)));
            c.count("ack", n, "", () -> q.ack(claimed.remove(claimed.size() - 1)));
            q.enqueueAll(java.util.Collections.nCopies(n + 1, "x"), Enqueue.defaults());
            List<Job> held = new ArrayList<>(q.claim(1));
            c.count("ackAndClaim, 1 acked + batch 1", n, "acks the job claimed last and claims the next",
                    () -> {
                        List<Job> next = q.ackAndClaim(held, 1).claimed();
                        held.clear();
                        held.addAll(next);
                    });
            held.forEach(q::ack);
            for (int i = 0; i < 20; i++) {
                q.enqueueAll(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), Enqueue.defaults());
            }
            c.count("claim, batch 10 (10 ready)", 20, "", () -> q.claim(10));
            c.count("claim, nothing ready", n, "", () -> q.claim(10));
            q.enqueueAll(List.of("a"), Enqueue.defaults());
            c.count("blocking claim(1, 1 s), a job ready", 1, "the first blocking claim also opens the listening"
                    + " connection where the dialect listens", () -> q.claim(1, Duration.ofSeconds(1)));
            Counters counters = rq.counters("bench_rt_counters");
            counters.increment("k");
            c.count("counter increment, existing key", n, "", () -> counters.increment("k"));
            c.count("counter increment, new key", n, "", i -> counters.increment("new" + i));
            WorkQueue jobs = rq.workQueue("bench_rt_worker").create();
            for (Workers.Handler handler : Workers.Handler.values()) {
                for (int threads : new int[] {1, 16}) {
                    int count = 1000;
                    c.count("worker, " + handler.label + ", " + threads + (threads == 1 ? " thread" : " threads")
                                    + ", per job", count, "1,000 jobs from the worker's start to its close: claims with the"
                                    + " acks riding on them, empty claims at the end, the acks close flushes",
                            () -> jobs.enqueueAll(java.util.Collections.nCopies(count, "x"), Enqueue.defaults()),
                            () -> runWorker(jobs, handler, threads, count));
                }
            }
            rq.dropQueue("bench_rt_worker");
            rq.dropQueue("bench_rt_ring");
            rq.dropQueue("bench_rt_work");
            rq.dropQueue("bench_rt_counters");
            if (rq.database().capabilities().contains(Capability.SINGLE_WRITER_RING)) {
                rq.dropQueue("bench_rt_single");
            }
        }
        if (target.peer().isPresent()) {
            Peer peer = target.peer().get();
            Harness.Operation schedule = peer.enqueueVia(counted);
            c.count("db-scheduler schedule() (enqueue)", 200, "", i -> schedule.run(0, i));
            Harness.Operation batch = peer.enqueueBatchVia(counted, Contender.BATCH);
            c.count("db-scheduler scheduleBatch of " + Contender.BATCH + ", per job", 20 * Contender.BATCH, "20 calls",
                    i -> {
                        if (i % Contender.BATCH == 0) {
                            batch.run(0, i);
                        }
                    });
            c.count("db-scheduler execution (" + peer.polling() + ", 1 thread)", 1000,
                    "amortized over 1,000 executions, including the scheduler's start-up housekeeping",
                    () -> { }, () -> peer.runCounted(counted, 1, 1000));
            for (Workers.Handler handler : Workers.Handler.values()) {
                for (int threads : new int[] {1, 16}) {
                    if (handler == Workers.Handler.NOOP && threads == 1) {
                        continue; // the row above
                    }
                    c.count("db-scheduler execution, " + handler.label + ", " + threads
                                    + (threads == 1 ? " thread" : " threads") + ", per execution", 1000,
                            "amortized over 1,000 executions, including the scheduler's start-up housekeeping",
                            () -> { }, () -> peer.runCounted(counted, threads, 1000, handler));
                }
            }
        }
        if (fixed != null) {
            fixed.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    /** Runs {@code n} jobs of {@code queue} on a worker of {@code threads} threads, then closes it. */
    private static void runWorker(WorkQueue queue, Workers.Handler handler, int threads, int n) throws Exception {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(n);
        try (dev.rowqueue.Worker worker = queue.worker(job -> {
            handler.run();
            done.countDown();
        }, dev.rowqueue.WorkerOptions.defaults().withThreads(threads)).start()) {
            if (!done.await(2, java.util.concurrent.TimeUnit.MINUTES)) {
                throw new IllegalStateException("the worker ran " + (n - done.getCount()) + " of " + n
                        + " jobs in 2 minutes");
            }
        }
    }

    @FunctionalInterface
    private interface Indexed {
        void run(long i) throws Exception;
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** Tallies what one operation costs. */
    private final class Counter {
        private final BenchTarget target;
        private final CountingDataSource c;
        private final RoundTripProxy proxy;

        Counter(BenchTarget target, CountingDataSource c, RoundTripProxy proxy) {
            this.target = target;
            this.c = c;
            this.proxy = proxy;
        }

        void count(String operation, int n, String note, Action op) throws Exception {
            count(operation, n, note, i -> op.run());
        }

        void count(String operation, int n, String note, Indexed op) throws Exception {
            count(operation, n, note, () -> { }, () -> {
                for (long i = 0; i < n; i++) {
                    op.run(i);
                }
            });
        }

        void count(String operation, int n, String note, Action setup, Action all) throws Exception {
            setup.run();
            long e = c.executions();
            long k = c.commits() + c.rollbacks();
            long s = c.sessionCalls();
            long t = proxy == null ? 0 : proxy.roundTrips();
            all.run();
            Results.RoundTrips r = new Results.RoundTrips(target.name(), operation, (c.executions() - e) / (double) n,
                    (c.commits() + c.rollbacks() - k) / (double) n, (c.sessionCalls() - s) / (double) n,
                    proxy == null ? Double.NaN : (proxy.roundTrips() - t) / (double) n, note);
            results.trips.add(r);
            System.out.printf(Locale.ROOT, "   %-50s %.2f statements, %.2f commits, %.2f session calls, %s round trips%n",
                    operation, r.statements(), r.commits(), r.sessionCalls(),
                    proxy == null ? "n/a" : String.format(Locale.ROOT, "%.2f", r.roundTrips()));
        }
    }

}
