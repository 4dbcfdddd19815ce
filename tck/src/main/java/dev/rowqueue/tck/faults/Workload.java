package dev.rowqueue.tck.faults;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.tck.faults.History.Run;
import dev.rowqueue.tck.faults.History.Type;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A load on one database or cluster that exercises every promise {@link HistoryChecker} checks, recording everything
 * in a {@link History}: producers of plain jobs and of keyed jobs, consumers that claim and ack by hand (so the
 * history knows when each lease began and ended), a {@link Worker}, consumers of the keyed queue under a per-key
 * limit, ring pushers (a ring that never evicts, and a small one that does), counter incrementers, and two
 * schedulers firing one schedule every second. Each role uses a {@link RowQueues} of its own, as separate
 * processes would.
 *
 * <p>Use: {@link #start}, then (faults happen meanwhile) {@link #stopProducing}, {@link #drain}, {@link #stop}, and
 * {@link #check} (the last three in one: {@link #drainAndCheck}). Payloads are unique, so the checker can follow each write.
 */
public final class Workload implements AutoCloseable {

    /** The per-key limit of the keyed queue. */
    public static final int PER_KEY_LIMIT = 1;
    private static final int SMALL_RING = 20;
    private static final int BIG_RING = 1_000_000;
    private static final int KEYS = 12;

    /**
     * How many of each role run, and the lease of the work queues.
     *
     * @param producers      threads enqueuing plain jobs
     * @param keyedProducers threads enqueuing keyed jobs
     * @param consumers      threads claiming and acking plain jobs by hand
     * @param keyedConsumers threads claiming and acking keyed jobs by hand
     * @param workerThreads  handler threads of the worker on the plain queue (0: none)
     * @param pushers        threads pushing to the rings
     * @param incrementers   threads incrementing the counter
     * @param schedulers     whether two schedulers fire a schedule every second
     * @param lease          the lease of both queues
     */
    public record Settings(int producers, int keyedProducers, int consumers, int keyedConsumers, int workerThreads,
                           int pushers, int incrementers, boolean schedulers, Duration lease) {

        /** @return a moderate load for two cores: two of each, a worker of 4 threads, leases of 3 s */
        public static Settings defaults() {
            return new Settings(2, 2, 2, 2, 4, 2, 2, true, Duration.ofSeconds(3));
        }

        /**
         * @param lease the lease
         * @return these settings with another lease
         */
        public Settings withLease(Duration lease) {
            return new Settings(producers, keyedProducers, consumers, keyedConsumers, workerThreads, pushers,
                    incrementers, schedulers, lease);
        }
    }

    private final Supplier<RowQueues.Builder> builders;
    private final String prefix;
    private final Settings settings;
    private final History history = new History();
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicBoolean consuming = new AtomicBoolean(true);
    private final List<Thread> producers = new ArrayList<>();
    private final List<Thread> consumers = new ArrayList<>();
    private final List<RowQueues> instances = new ArrayList<>();
    private final List<Worker> workers = new ArrayList<>();
    private final List<RowQueues> schedulers = new ArrayList<>();
    private boolean started;

    /**
     * @param builders makes a builder of {@code RowQueues} on the database under test (its data source and retry
     *                 policy set); the workload adds the scheduler setting and builds one per role
     * @param prefix   a prefix for the names of queues, rings and counters, fresh for each workload
     * @param settings the load
     */
    public Workload(Supplier<RowQueues.Builder> builders, String prefix, Settings settings) {
        this.builders = builders;
        this.prefix = prefix;
        this.settings = settings;
    }

    private String jobs() {
        return prefix + "_jobs";
    }

    private String keyed() {
        return prefix + "_keyed";
    }

    private String ticks() {
        return prefix + "_ticks";
    }

    private String bigRing() {
        return prefix + "_ring";
    }

    private String smallRing() {
        return prefix + "_small";
    }

    private String counters() {
        return prefix + "_count";
    }

    private WorkQueueOptions options(boolean limited) {
        WorkQueueOptions o = WorkQueueOptions.defaults().withLeaseDuration(settings.lease()).withMaxAttempts(1_000_000)
                .withRetryBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
        return limited ? o.withMaxLeasedPerKey(PER_KEY_LIMIT) : o;
    }

    private RowQueues open(boolean scheduler) {
        RowQueues rq = builders.get().scheduler(scheduler).build();
        synchronized (instances) {
            instances.add(rq);
        }
        return rq;
    }

    /**
     * Creates the queues, rings and counters (before any fault), then starts every role.
     */
    public void start() {
        if (started) {
            throw new IllegalStateException("started twice");
        }
        started = true;
        RowQueues setup = open(false);
        setup.workQueue(jobs(), options(false)).create();
        setup.workQueue(keyed(), options(true)).create();
        setup.workQueue(ticks()).create();
        setup.ring(bigRing(), BIG_RING).size("g");
        setup.ring(smallRing(), SMALL_RING).size("g");
        setup.counters(counters()).get("c");

        RowQueues producing = open(false);
        WorkQueue plain = producing.workQueue(jobs(), options(false));
        WorkQueue keyedQueue = producing.workQueue(keyed(), options(true));
        for (int p = 0; p < settings.producers(); p++) {
            String name = "e" + p + "-";
            producers.add(loop("enqueue-" + p, this.producing, i -> {
                history.write("enqueue", Type.ENQUEUE, jobs(), name + i, null, () -> plain.enqueue(name + i));
                pause(2);
            }));
        }
        for (int p = 0; p < settings.keyedProducers(); p++) {
            String name = "k" + p + "-";
            producers.add(loop("enqueue-keyed-" + p, this.producing, i -> {
                String key = "key" + ThreadLocalRandom.current().nextInt(KEYS);
                history.write("enqueue-keyed", Type.ENQUEUE, keyed(), name + i, key,
                        () -> keyedQueue.enqueue(name + i, Enqueue.defaults().withKey(key)));
                pause(4);
            }));
        }
        RowQueues rings = open(false);
        for (int p = 0; p < settings.pushers(); p++) {
            String name = "r" + p + "-";
            RingQueue big = rings.ring(bigRing(), BIG_RING);
            RingQueue small = rings.ring(smallRing(), SMALL_RING);
            producers.add(loop("push-" + p, this.producing, i -> {
                boolean toBig = i % 2 == 0;
                RingQueue ring = toBig ? big : small;
                String payload = name + i;
                history.write("push", Type.PUSH, (toBig ? bigRing() : smallRing()) + "/g", payload, null,
                        () -> ring.push("g", payload));
                pause(2);
            }));
        }
        Counters counting = open(false).counters(counters());
        for (int p = 0; p < settings.incrementers(); p++) {
            producers.add(loop("increment-" + p, this.producing, i -> {
                history.write("increment", Type.INCREMENT, counters() + "/c", "c", null,
                        () -> counting.increment("c"));
                pause(3);
            }));
        }
        RowQueues claiming = open(false);
        for (int c = 0; c < settings.consumers(); c++) {
            consumers.add(consumer("consumer-" + c, "claim", claiming.workQueue(jobs(), options(false))));
        }
        RowQueues claimingKeyed = open(false);
        for (int c = 0; c < settings.keyedConsumers(); c++) {
            consumers.add(consumer("keyed-consumer-" + c, "claim-keyed",
                    claimingKeyed.workQueue(keyed(), options(true))));
        }
        if (settings.workerThreads() > 0) {
            workers.add(open(false).workQueue(jobs(), options(false)).worker(ctx -> {
                Instant start = Instant.now();
                history.call("worker", () -> start);
                pause(ThreadLocalRandom.current().nextInt(3));
                history.run(new Run(jobs(), ctx.id(), ctx.payload(), ctx.key(), "worker", start, ctx.leaseUntil(),
                        Instant.now(), null, false, null, ctx.leaseLost()));
            }, WorkerOptions.defaults().withThreads(settings.workerThreads())));
        }
        if (settings.schedulers()) {
            for (int s = 0; s < 2; s++) {
                RowQueues rq = open(true);
                schedulers.add(rq);
                rq.schedules().define(prefix + "_tick", Schedule.every(Duration.ofSeconds(1)),
                        ScheduleOptions.forQueue(ticks()).withPayload("{slot}"));
                rq.schedules().startScheduler();
            }
        }
        producers.forEach(Thread::start);
        consumers.forEach(Thread::start);
        workers.forEach(Worker::start);
    }

    private Thread consumer(String name, String role, WorkQueue queue) {
        return loop(name, consuming, i -> {
            List<Job> claimed = history.call(role, () -> queue.claim(5));
            if (claimed == null || claimed.isEmpty()) {
                pause(10);
                return;
            }
            Instant got = Instant.now();
            for (Job job : claimed) {
                pause(ThreadLocalRandom.current().nextInt(2));
                History.Attempt<Boolean> ack = history.attempt("ack", () -> queue.ack(job));
                // a failed ack deleted nothing: the lease lives on until its end
                Instant released = ack.outcome() == Outcome.FAILED ? null : ack.invoked();
                history.run(new Run(queue.name(), job.id(), job.payload(), job.key(), name, got, job.leaseUntil(),
                        released, ack.outcome(), Boolean.TRUE.equals(ack.value()), ack.returned(), false));
            }
        });
    }

    /**
     * Stops producing and waits for every write in flight to return (a drain that does not wait for them can end
     * while an enqueue is still being retried, and its job would look lost).
     *
     * @throws InterruptedException if interrupted
     */
    public void stopProducing() throws InterruptedException {
        producing.set(false);
        join(producers);
        schedulers.forEach(RowQueues::close);
    }

    /**
     * Waits until both work queues have nothing left to run, while the consumers go on.
     *
     * @param patience the longest wait
     * @return whether they drained
     * @throws InterruptedException if interrupted
     */
    public boolean drain(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        RowQueues rq = open(false);
        while (System.nanoTime() < deadline) {
            QueueStats a = history.call("drain", () -> rq.workQueue(jobs()).stats());
            QueueStats b = history.call("drain", () -> rq.workQueue(keyed()).stats());
            if (a != null && b != null && a.total() - a.dead() == 0 && b.total() - b.dead() == 0) {
                return true;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        return false;
    }

    /**
     * Stops the consumers and the worker.
     *
     * @throws InterruptedException if interrupted
     */
    public void stop() throws InterruptedException {
        producing.set(false);
        consuming.set(false);
        join(producers);
        join(consumers);
        for (Worker w : workers) {
            w.close(Duration.ofSeconds(10));
        }
    }

    /**
     * Once the producers have stopped ({@link #stopProducing}) and the deployment is whole: {@link #drain},
     * {@link #stop} and {@link #check}.
     *
     * @param patience the longest wait for the queues to drain
     * @return the anomalies, with a {@link Anomaly.Kind#LIVENESS} one if the queues did not drain
     * @throws InterruptedException if interrupted
     */
    public List<Anomaly> drainAndCheck(Duration patience) throws InterruptedException {
        boolean drained = drain(patience);
        stop();
        List<Anomaly> anomalies = new ArrayList<>(check());
        if (!drained) {
            anomalies.add(new Anomaly(Anomaly.Kind.LIVENESS, "jobs were left " + patience.toSeconds()
                    + " s after the load stopped"));
        }
        return anomalies;
    }

    /** @return what the database holds now, read through a new {@code RowQueues} */
    public FinalState finalState() {
        Map<String, Integer> rings = new LinkedHashMap<>();
        rings.put(bigRing() + "/g", BIG_RING);
        rings.put(smallRing() + "/g", SMALL_RING);
        return FinalState.read(open(false), List.of(jobs(), keyed(), ticks()), rings, List.of(counters() + "/c"));
    }

    /** @return the checker for this workload's history */
    public HistoryChecker checker() {
        return new HistoryChecker(Map.of(bigRing(), BIG_RING, smallRing(), SMALL_RING),
                Map.of(keyed(), PER_KEY_LIMIT), settings.schedulers() ? Set.of(ticks()) : Set.of(),
                Duration.ofMillis(5));
    }

    /**
     * Reads the final state and checks the history against it.
     *
     * @return the anomalies (none for a valid history)
     */
    public List<Anomaly> check() {
        return checker().check(history, finalState());
    }

    /** @return the history so far */
    public History history() {
        return history;
    }

    /** @return the roles whose successes {@link FaultCell} waits for to call the system recovered */
    public List<String> roles() {
        List<String> roles = new ArrayList<>();
        if (settings.producers() > 0) {
            roles.add("enqueue");
        }
        if (settings.keyedProducers() > 0) {
            roles.add("enqueue-keyed");
        }
        if (settings.pushers() > 0) {
            roles.add("push");
        }
        if (settings.incrementers() > 0) {
            roles.add("increment");
        }
        if (settings.consumers() > 0) {
            roles.add("claim");
        }
        if (settings.keyedConsumers() > 0) {
            roles.add("claim-keyed");
        }
        return roles;
    }

    /** Stops everything and closes every {@code RowQueues} it opened. */
    @Override
    public void close() {
        producing.set(false);
        consuming.set(false);
        try {
            join(producers);
            join(consumers);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (instances) {
            for (RowQueues rq : instances) {
                try {
                    rq.close();
                } catch (RuntimeException e) {
                    // closing after a fault: best effort
                }
            }
            instances.clear();
        }
    }

    @FunctionalInterface
    private interface Step {
        void run(long i) throws InterruptedException;
    }

    private static Thread loop(String name, AtomicBoolean going, Step step) {
        Thread t = new Thread(() -> {
            try {
                for (long i = 0; going.get(); i++) {
                    step.run(i);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "workload-" + name);
        t.setDaemon(true);
        return t;
    }

    private static void join(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(2));
            if (t.isAlive()) {
                throw new IllegalStateException(t.getName() + " did not stop within 2 minutes");
            }
        }
    }

    private static void pause(long millis) throws InterruptedException {
        if (millis > 0) {
            TimeUnit.MILLISECONDS.sleep(millis);
        }
    }
}
