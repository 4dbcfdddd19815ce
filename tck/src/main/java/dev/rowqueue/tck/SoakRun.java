package dev.rowqueue.tck;

import dev.rowqueue.Counters;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A bounded soak: ring producers, job producers, workers and plain consumers, and counter incrementers run together
 * for a while on one database while a fault thread kills random sessions of it; then a checker goes over the whole
 * recorded history:
 * <ul>
 *   <li>ring: the group holds exactly the newest {@code capacity} sequence numbers, consecutive; every push reported
 *       with a number in that range is there with its payload, every older one was evicted in order; a push that
 *       failed transiently is nowhere; no number was reported twice;</li>
 *   <li>jobs: every job whose enqueue was reported ran at least once, and no two runs of a job overlapped while the
 *       first one's lease lived (and it had not lost it);</li>
 *   <li>counters: each value is the sum of the reported increments, plus at most the ones whose outcome was
 *       unknown.</li>
 * </ul>
 * Figures (operations, faults, anomalies) come back in {@link Figures}.
 */
public final class SoakRun {

    private static final int RING_CAPACITY = 64;
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final int KEYS = 4;

    /** The run's figures and the anomalies the checker found (none is a pass). */
    public record Figures(long seconds, long pushes, long enqueues, long executions, long reExecutions,
                          long increments, long unknownOutcomes, long transientFailures, long otherErrors,
                          long faults, List<String> anomalies) {
        /** @return one line of Markdown table: the figures in the order of {@link #HEADER} */
        public String row(String target) {
            return "| " + target + " | " + seconds + " | " + pushes + " | " + enqueues + " | " + executions + " ("
                    + reExecutions + " again) | " + increments + " | " + faults + " | " + transientFailures + " / "
                    + unknownOutcomes + " / " + otherErrors + " | " + anomalies.size() + " |";
        }

        /** The table header for {@link #row}. */
        public static final String HEADER = "| Target | Seconds | Pushes | Enqueues | Job runs | Increments | Sessions "
                + "killed | Transient / unknown outcome / other errors | Anomalies |\n|---|---|---|---|---|---|---|---|---|";
    }

    /** One run of a job's handler or of a plain consumer's claim, on this JVM's clock. */
    private record Run(Instant start, Instant end, Instant leaseUntil, boolean leaseLost) {
    }

    private final Supplier<RowQueues> instances;
    private final Runnable killOneSession;
    private final Duration duration;
    private final Duration killEvery;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong unknown = new AtomicLong();
    private final AtomicLong transientFailures = new AtomicLong();
    private final AtomicLong otherErrors = new AtomicLong();
    private final AtomicLong faults = new AtomicLong();
    private final ConcurrentLinkedQueue<String> anomalies = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> errorSamples = new ConcurrentLinkedQueue<>();

    /**
     * @param instances      makes a {@code RowQueues} on the database under test (several are made: one per role)
     * @param killOneSession kills one random session of the database's rowqueue connections (a fault)
     * @param duration       how long the load runs
     * @param killEvery      the pause between two faults
     */
    public SoakRun(Supplier<RowQueues> instances, Runnable killOneSession, Duration duration, Duration killEvery) {
        this.instances = instances;
        this.killOneSession = killOneSession;
        this.duration = duration;
        this.killEvery = killEvery;
    }

    /**
     * Runs the load and the faults, waits for the queue to drain without faults, and checks the history.
     *
     * @param prefix a prefix for the queue names
     * @return the figures
     * @throws InterruptedException if interrupted
     */
    public Figures run(String prefix) throws InterruptedException {
        List<RowQueues> opened = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        RowQueues main = instances.get();
        opened.add(main);
        String ringName = prefix + "_ring";
        String jobsName = prefix + "_jobs";
        WorkQueueOptions jobOptions = WorkQueueOptions.defaults().leaseDuration(LEASE).maxAttempts(1_000_000);
        RingQueue ring = main.ring(ringName, RING_CAPACITY);
        WorkQueue jobs = main.workQueue(jobsName, jobOptions);
        Counters counters = main.counters(prefix + "_counts");

        Map<Long, String> pushed = new ConcurrentHashMap<>();
        Set<String> pushUnknown = ConcurrentHashMap.newKeySet();
        Set<String> pushFailed = ConcurrentHashMap.newKeySet();
        Set<Long> enqueued = ConcurrentHashMap.newKeySet();
        Map<Long, List<Run>> runs = new ConcurrentHashMap<>();
        long[] reported = new long[KEYS];
        long[] maybe = new long[KEYS];
        AtomicLong pushes = new AtomicLong();
        AtomicLong increments = new AtomicLong();
        long started = System.nanoTime();

        for (int p = 0; p < 4; p++) {
            RowQueues rq = open(opened);
            RingQueue r = rq.ring(ringName, RING_CAPACITY);
            int producer = p;
            threads.add(loop("soak-push-" + p, i -> {
                String payload = "p" + producer + "-" + i;
                outcome(() -> {
                    long seq = r.push("g", payload);
                    pushes.incrementAndGet();
                    String before = pushed.put(seq, payload);
                    if (before != null) {
                        anomalies.add("ring: sequence number " + seq + " reported for " + before + " and " + payload);
                    }
                }, () -> pushUnknown.add(payload), () -> pushFailed.add(payload));
            }));
        }
        for (int p = 0; p < 2; p++) {
            RowQueues rq = open(opened);
            WorkQueue q = rq.workQueue(jobsName, jobOptions);
            threads.add(loop("soak-enqueue-" + p, i -> {
                outcome(() -> enqueued.add(q.enqueue("job " + i)), () -> { }, () -> { });
                pause(2);
            }));
        }
        for (int w = 0; w < 2; w++) {
            RowQueues rq = open(opened);
            workers.add(rq.workQueue(jobsName, jobOptions).worker(ctx -> {
                Instant start = Instant.now();
                pause(ThreadLocalRandom.current().nextInt(4));
                record(runs, ctx.id(), new Run(start, Instant.now(), ctx.leaseUntil(), ctx.leaseLost()));
            }, WorkerOptions.threads(4)).start());
        }
        for (int c = 0; c < 2; c++) {
            RowQueues rq = open(opened);
            WorkQueue q = rq.workQueue(jobsName, jobOptions);
            threads.add(loop("soak-consume-" + c, i -> outcome(() -> {
                List<Job> claimed = q.claim(5);
                for (Job job : claimed) {
                    Instant start = Instant.now();
                    pause(ThreadLocalRandom.current().nextInt(3));
                    Instant end = Instant.now();
                    boolean acked = false;
                    try {
                        acked = q.ack(job);
                    } finally {
                        record(runs, job.id(), new Run(start, end, job.leaseUntil(), !acked));
                    }
                }
                if (claimed.isEmpty()) {
                    pause(5);
                }
            }, () -> { }, () -> { })));
        }
        for (int c = 0; c < 2; c++) {
            RowQueues rq = open(opened);
            Counters k = rq.counters(prefix + "_counts");
            threads.add(loop("soak-count-" + c, i -> {
                int key = ThreadLocalRandom.current().nextInt(KEYS);
                long delta = 1 + ThreadLocalRandom.current().nextInt(3);
                outcome(() -> {
                    k.increment("k" + key, delta);
                    increments.incrementAndGet();
                    synchronized (reported) {
                        reported[key] += delta;
                    }
                }, () -> {
                    synchronized (reported) {
                        maybe[key] += delta;
                    }
                }, () -> { });
            }));
        }
        Thread killer = new Thread(() -> {
            while (!stop.get()) {
                pause(killEvery.toMillis());
                if (stop.get()) {
                    break;
                }
                try {
                    killOneSession.run();
                    faults.incrementAndGet();
                } catch (RuntimeException e) {
                    errorSamples.add("killer: " + e);
                }
            }
        }, "soak-killer");
        threads.add(killer);
        threads.forEach(Thread::start);

        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        stop.set(true);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            if (t.isAlive()) {
                anomalies.add("liveness: " + t.getName() + " did not stop within a minute");
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (jobs.stats().total() > 0 && System.nanoTime() < deadline) {
            pause(100);
        }
        for (Worker w : workers) {
            w.close(Duration.ofSeconds(10));
        }

        checkRing(ring, pushed, pushUnknown, pushFailed);
        for (long id : enqueued) {
            if (!runs.containsKey(id)) {
                anomalies.add("jobs: job " + id + " was enqueued (reported) and never ran; queue " + jobs.stats());
            }
        }
        long executions = 0;
        long again = 0;
        for (Map.Entry<Long, List<Run>> e : runs.entrySet()) {
            List<Run> list = new ArrayList<>(e.getValue());
            list.sort((a, b) -> a.start().compareTo(b.start()));
            executions += list.size();
            again += list.size() - 1;
            for (int i = 1; i < list.size(); i++) {
                Run before = list.get(i - 1);
                Run after = list.get(i);
                if (after.start().isBefore(before.end()) && !before.leaseLost()
                        && after.start().isBefore(before.leaseUntil())) {
                    anomalies.add("jobs: job " + e.getKey() + " ran twice at once while the first lease lived: "
                            + before + " and " + after);
                }
            }
        }
        for (int key = 0; key < KEYS; key++) {
            long value = counters.get("k" + key);
            if (value < reported[key] || value > reported[key] + maybe[key]) {
                anomalies.add("counters: k" + key + " is " + value + ", reported increments sum to " + reported[key]
                        + " plus at most " + maybe[key] + " of unknown outcome");
            }
        }
        for (RowQueues rq : opened) {
            rq.close();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        List<String> found = new ArrayList<>(anomalies);
        errorSamples.stream().limit(5).forEach(s -> System.out.println("soak: sample error: " + s));
        return new Figures(seconds, pushes.get(), enqueued.size(), executions, again, increments.get(), unknown.get(),
                transientFailures.get(), otherErrors.get(), faults.get(), Collections.unmodifiableList(found));
    }

    private void checkRing(RingQueue ring, Map<Long, String> pushed, Set<String> pushUnknown, Set<String> pushFailed) {
        List<RingEntry> entries = ring.oldestFirst("g");
        long newest = entries.isEmpty() ? 0 : entries.get(entries.size() - 1).seq();
        long reportedNewest = pushed.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        if (newest < reportedNewest) {
            anomalies.add("ring: newest entry " + newest + " is older than the newest reported push " + reportedNewest);
        }
        long expected = Math.min(RING_CAPACITY, newest);
        if (entries.size() != expected) {
            anomalies.add("ring: " + entries.size() + " entries, expected " + expected);
        }
        for (int i = 0; i < entries.size(); i++) {
            RingEntry e = entries.get(i);
            if (e.seq() != newest - entries.size() + 1 + i) {
                anomalies.add("ring: entries not consecutive at " + e.seq());
            }
            String payload = pushed.get(e.seq());
            if (payload == null ? !pushUnknown.contains(e.payload()) : !payload.equals(e.payload())) {
                anomalies.add("ring: entry " + e.seq() + " holds " + e.payload() + ", reported " + payload);
            }
            if (pushFailed.contains(e.payload())) {
                anomalies.add("ring: " + e.payload() + " is present though its push failed transiently");
            }
        }
        for (Map.Entry<Long, String> p : pushed.entrySet()) {
            if (p.getKey() > newest - RING_CAPACITY && entries.stream().noneMatch(e -> e.seq() == p.getKey())) {
                anomalies.add("ring: reported push " + p.getKey() + " (" + p.getValue() + ") is missing");
            }
        }
    }

    private RowQueues open(List<RowQueues> opened) {
        RowQueues rq = instances.get();
        opened.add(rq);
        return rq;
    }

    private static void record(Map<Long, List<Run>> runs, long id, Run run) {
        runs.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>())).add(run);
    }

    @FunctionalInterface
    private interface Step {
        void run(long i);
    }

    /**
     * A thread repeating a step until the stop. An exception that is not a {@link RowQueueException} broke the API's
     * promise (every error is one) and is an anomaly; the thread goes on.
     */
    private Thread loop(String name, Step step) {
        return new Thread(() -> {
            for (long i = 0; !stop.get(); i++) {
                try {
                    step.run(i);
                } catch (RuntimeException | AssertionError e) {
                    otherErrors.incrementAndGet();
                    if (anomalies.size() < 100) {
                        anomalies.add("api: " + name + " got " + e + " (not a RowQueueException)");
                    }
                }
            }
        }, name);
    }

    /** Runs an operation, sorting its failure: unknown outcome, transient (nothing applied), or other. */
    private void outcome(Runnable op, Runnable ifUnknown, Runnable ifFailed) {
        try {
            op.run();
        } catch (UnknownCommitOutcomeException e) {
            unknown.incrementAndGet();
            ifUnknown.run();
        } catch (TransientRowQueueException e) {
            transientFailures.incrementAndGet();
            ifFailed.run();
        } catch (RowQueueException e) {
            otherErrors.incrementAndGet();
            errorSamples.add(e.toString());
            ifUnknown.run(); // an error that does not say whether the write happened: allowed either way
        }
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
