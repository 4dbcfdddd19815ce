package dev.rowqueue.internal;

import dev.rowqueue.FixedDelaySchedule;
import dev.rowqueue.MissedSlots;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleListener;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.spi.ScheduleStore;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * This instance's scheduler thread: it polls for due schedules and fires them.
 *
 * <p>A fire is one transaction: insert the slot row of the schedule's stored next slot (a duplicate key means another
 * scheduler fired it: give up), insert the rows of the other slots that get a job, enqueue their jobs, and advance
 * the next slot with a compare-and-set on the revision (no row: the schedule was changed, paused or fired meanwhile:
 * roll back). When idle, the scheduler runs one statement per poll: the select of every due schedule. Every statement
 * is the {@link ScheduleStore}'s.
 */
final class Scheduler {
    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
    /** Slot rows older than this are deleted now and then as schedules fire. */
    private static final long KEEP_SLOTS_MS = Duration.ofDays(1).toMillis();
    /** More due slots than this in one poll are counted as missed without each being computed. */
    private static final int MAX_WALK = 100_000;

    private final ScheduleStore store;
    private final Executor executor;
    private final SlotJobs jobs;
    private final Duration pollInterval;
    private final long lateAfterMs;
    private final List<ScheduleListener> listeners;
    /** Tells this process's node that it runs a scheduler, once, when the thread starts. */
    private final Runnable started;
    private final Object sleeper = new Object();
    private volatile boolean closed;
    private Thread thread;

    /**
     * @param store        the schedules' statements
     * @param executor     runs them
     * @param jobs         enqueues a slot's job
     * @param pollInterval the time between two polls
     * @param listeners    told of fires, late fires and missed slots
     * @param started      run once, when the thread starts (the node registry's scheduler heartbeat)
     */
    Scheduler(ScheduleStore store, Executor executor, SlotJobs jobs, Duration pollInterval,
              List<ScheduleListener> listeners, Runnable started) {
        this.store = store;
        this.executor = executor;
        this.jobs = jobs;
        this.pollInterval = pollInterval;
        this.lateAfterMs = Math.max(1000, 2 * pollInterval.toMillis());
        this.listeners = List.copyOf(listeners);
        this.started = started;
    }

    /** @return whether {@link #close()} was called */
    boolean closed() {
        return closed;
    }

    /** Starts the scheduler thread (once; not after {@link #close()}). */
    synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        thread = new Thread(this::loop, "rowqueue-scheduler");
        thread.setDaemon(true);
        thread.start();
        started.run();
    }

    /** Stops the scheduler thread and waits for its current fire to end. */
    void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        String lastError = null;
        while (!closed) {
            try {
                pollOnce();
                lastError = null;
            } catch (RuntimeException e) {
                String message = String.valueOf(e.getMessage());
                if (!message.equals(lastError)) {
                    log.warn("rowqueue: the scheduler's poll failed (retried every {}): {}", pollInterval, message);
                    lastError = message;
                }
            }
            synchronized (sleeper) {
                if (!closed) {
                    try {
                        sleeper.wait(Math.max(1, pollInterval.toMillis()));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    /** A due schedule, as the poll read it. */
    record Due(String name, Schedule schedule, String queue, String payload, String key, MissedSlots missed,
               long next, long lastJob, long revision, long now) {
    }

    /**
     * One poll: the due schedules in one statement, then a fire for each.
     *
     * @return how many schedules were due
     */
    int pollOnce() {
        List<Due> due = due();
        // in an order of this scheduler's own: schedulers polling at the same moment take different schedules first
        // instead of all racing for the same one
        java.util.Collections.shuffle(due, ThreadLocalRandom.current());
        for (Due d : due) {
            if (closed) {
                break;
            }
            try {
                fire(d);
            } catch (Lost e) {
                log.debug("rowqueue: schedule '{}' was fired or changed by another scheduler", d.name());
            } catch (dev.rowqueue.TransientRowQueueException e) {
                // a deadlock or certification failure among schedulers racing for the slot (Galera): the next poll
                // finds it fired, or fires it
                log.debug("rowqueue: schedule '{}' lost a race for its slot: {}", d.name(), e.getMessage());
            } catch (RuntimeException e) {
                log.warn("rowqueue: schedule '{}' could not fire its slot {}: {}", d.name(),
                        Instant.ofEpochMilli(d.next()), e.getMessage());
            }
        }
        return due.size();
    }

    /** @return the due schedules whose definition this version reads (the others are logged and left out) */
    private List<Due> due() {
        List<Due> list = new ArrayList<>();
        for (ScheduleStore.Due row : executor.run("select the due schedules", store.due())) {
            Schedule schedule;
            try {
                schedule = Schedule.parse(row.spec());
            } catch (IllegalArgumentException e) {
                log.warn("rowqueue: schedule '{}' has an unreadable definition: {}", row.name(), e.getMessage());
                continue;
            }
            list.add(new Due(row.name(), schedule, row.queue(), row.payload(), row.key(),
                    MissedSlots.parse(row.missed()), row.nextMs(), row.lastJob(), row.revision(), row.nowMs()));
        }
        return list;
    }

    /** Thrown inside a fire's transaction to roll it back: another scheduler fired the slot or changed the row. */
    private static final class Lost extends RuntimeException {
        Lost() {
            super("lost", null, false, false);
        }
    }

    /** A slot to fire and whether it is late. */
    private record Fire(long slot, boolean late) {
    }

    private void fire(Due d) {
        if (d.schedule() instanceof FixedDelaySchedule delay) {
            fireFixedDelay(d, delay);
            return;
        }
        // the due slots, from the stored next slot to the last one not after now; only the latest few are kept
        int keep = Math.max(1, d.missed().cap()) + 1;
        Deque<Long> latest = new ArrayDeque<>();
        long count = 0;
        long first = d.next();
        Instant s = Instant.ofEpochMilli(d.next());
        while (s.toEpochMilli() <= d.now()) {
            count++;
            latest.addLast(s.toEpochMilli());
            if (latest.size() > keep) {
                latest.removeFirst();
            }
            if (count >= MAX_WALK) {
                s = d.schedule().next(Instant.ofEpochMilli(d.now()));
                break;
            }
            s = d.schedule().next(s);
        }
        long nextSlot = s.toEpochMilli();
        List<Long> due = new ArrayList<>(latest);
        long last = due.get(due.size() - 1);
        boolean onTime = d.now() - last <= ScheduleOptions.MISSED_AFTER.toMillis();
        List<Fire> fires = new ArrayList<>();
        long missed = onTime ? count - 1 : count;
        List<Long> missedKept = onTime ? due.subList(0, due.size() - 1) : due;
        int catchUp = missed == 0 ? 0 : d.missed().jobsFor(missed);
        for (long m : missedKept.subList(Math.max(0, missedKept.size() - catchUp), missedKept.size())) {
            fires.add(new Fire(m, true));
        }
        if (onTime) {
            fires.add(new Fire(last, d.now() - last > lateAfterMs));
        }
        long[] ids = executor.run("fire schedule " + d.name(), SqlOp.transaction(c -> {
            boolean claimFired = fires.stream().anyMatch(f -> f.slot() == d.next());
            if (!claimFired) {
                claim(c, d.name(), d.next(), d.now());
            }
            long[] out = new long[fires.size()];
            for (int i = 0; i < fires.size(); i++) {
                long slot = fires.get(i).slot();
                claim(c, d.name(), slot, d.now());
                out[i] = jobs.enqueue(c, d.name(), d.queue(), d.payload(), d.key(), slot);
            }
            advance(c, d, nextSlot, -1);
            if (ThreadLocalRandom.current().nextInt(32) == 0) {
                store.prune(d.name(), d.now() - KEEP_SLOTS_MS).run(c);
            }
            return out;
        }));
        for (int i = 0; i < fires.size(); i++) {
            Fire f = fires.get(i);
            tellFired(d.name(), f.slot(), ids[i], Duration.ofMillis(Math.max(0, d.now() - f.slot())), f.late());
        }
        long unfired = missed - catchUp;
        if (unfired > 0) {
            Instant from = Instant.ofEpochMilli(first);
            long lastUnfired = catchUp > 0 && missedKept.size() > catchUp
                    ? missedKept.get(missedKept.size() - catchUp - 1)
                    : catchUp > 0 ? first : missedKept.get(missedKept.size() - 1);
            Instant to = Instant.ofEpochMilli(Math.max(first, lastUnfired));
            tell(l -> l.missed(d.name(), from, to, unfired));
        }
    }

    /**
     * A fixed delay: with no job awaited, fire the stored slot and await its job; with one, look whether it is
     * finished (gone, or dead) and make the next slot due a delay later, or look again after a poll interval.
     */
    private void fireFixedDelay(Due d, FixedDelaySchedule delay) {
        long poll = Math.max(1, pollInterval.toMillis());
        if (d.lastJob() >= 0) {
            boolean running = executor.run("look up job " + d.lastJob() + " of " + d.queue(),
                    store.jobPending(WorkTables.of(d.queue()), d.lastJob()));
            executor.run("advance schedule " + d.name(), SqlOp.statement(c -> {
                advance(c, d, running ? d.now() + poll : d.now() + delay.delay().toMillis(), running ? d.lastJob() : -1);
                return null;
            }));
            return;
        }
        long id = executor.run("fire schedule " + d.name(), SqlOp.transaction(c -> {
            claim(c, d.name(), d.next(), d.now());
            long job = jobs.enqueue(c, d.name(), d.queue(), d.payload(), d.key(), d.next());
            advance(c, d, d.now() + poll, job);
            return job;
        }));
        Duration lag = Duration.ofMillis(Math.max(0, d.now() - d.next()));
        tellFired(d.name(), d.next(), id, lag, lag.toMillis() > lateAfterMs);
    }

    private void claim(Connection c, String name, long slot, long now) throws SQLException {
        if (!store.claimSlot(name, slot, now).run(c)) {
            throw new Lost();
        }
    }

    private void advance(Connection c, Due d, long next, long lastJob) throws SQLException {
        if (!store.advance(d.name(), d.revision(), next, lastJob).run(c)) {
            throw new Lost();
        }
    }

    private void tellFired(String name, long slotMs, long id, Duration lag, boolean late) {
        Instant slot = Instant.ofEpochMilli(slotMs);
        tell(l -> {
            if (late) {
                l.late(name, slot, id, lag);
            } else {
                l.fired(name, slot, id, lag);
            }
        });
    }

    private void tell(java.util.function.Consumer<ScheduleListener> event) {
        for (ScheduleListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                log.warn("rowqueue: a schedule listener failed: {}", e.toString());
            }
        }
    }
}
