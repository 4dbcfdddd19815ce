package dev.rowqueue.internal;

import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.JobContext;
import dev.rowqueue.JobHandler;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.spi.WakeupSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The worker runtime: one dispatcher thread claims for the pool (free threads plus prefetch, acks riding on the
 * claim), handler threads run jobs, a heartbeat thread extends running jobs' leases in one statement. The
 * dispatcher never is interrupted inside a database call: pause and close are seen between calls, and waits are cut
 * into short slices.
 */
final class DefaultWorker implements Worker {
    private static final Logger log = LoggerFactory.getLogger(DefaultWorker.class);

    private static final long FIRST_PAUSE_MS = 50;
    private static final long SLICE_MS = 200;
    private static final long MAX_BACKOFF_MS = 30_000;
    private static final long SETTLE_AFTER_INTERRUPT_MS = 10_000;

    private enum State { NEW, RUNNING, CLOSING, CLOSED }

    private final DefaultWorkQueue queue;
    private final JobHandler handler;
    private final WorkerOptions options;
    private final WorkerListener listener;
    private final long heartbeatMs;
    private final long pollMs;
    private final WakeupSource wakeups;
    private final ExecutorService handlers;
    private final boolean ownHandlers;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Prefetched jobs waiting for a thread; guarded by {@link #lock}. */
    private final Deque<Job> buffer = new ArrayDeque<>();
    /** Finished jobs whose ack rides on the next claim; guarded by {@link #lock}. */
    private final List<Job> done = new ArrayList<>();
    private final Map<Long, Running> running = new ConcurrentHashMap<>();
    private final AtomicInteger threadNumber = new AtomicInteger();
    /**
     * Counts what the dispatcher waits for (a handler finished, pause, resume, close); raised with {@link #lock} held,
     * read without. The dispatcher notes it before it looks at the state and waits only while it is unchanged, so a
     * change between its look and its wait (a no-op handler that finishes before the dispatcher waits) is not lost.
     */
    private volatile long changes;
    /** Moving average of handler run times, or -1 before the first; sizes an adaptive prefetch. */
    private volatile long averageRunNanos = -1;
    /** Moving average of the dispatcher's claim round trips, or -1 before the first; dispatcher thread only. */
    private long averageClaimNanos = -1;
    /** When the dispatcher last claimed, or began to put a claim off ({@link #overlaps}); dispatcher thread only. */
    private long deferredSince = System.nanoTime();

    private volatile State state = State.NEW;
    private volatile boolean paused;
    private Thread dispatcher;
    private ScheduledExecutorService beats;

    DefaultWorker(DefaultWorkQueue queue, JobHandler handler, WorkerOptions options, Duration lease, Duration poll,
                  WakeupSource wakeups) {
        this.queue = queue;
        this.handler = handler;
        this.options = options;
        this.listener = new SafeListener(options.listener());
        this.heartbeatMs = options.heartbeat() != null ? options.heartbeat().toMillis()
                : Math.max(1, lease.toMillis() / 3);
        this.pollMs = Math.max(FIRST_PAUSE_MS, poll.toMillis());
        this.wakeups = wakeups;
        this.ownHandlers = options.executor() == null;
        this.handlers = ownHandlers ? Executors.newFixedThreadPool(options.threads(), r -> thread(r, "handler"))
                : options.executor();
    }

    private Thread thread(Runnable r, String role) {
        Thread t = new Thread(r, "rowqueue-worker-" + queue.name() + "-" + role + "-" + threadNumber.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    @Override
    public Worker start() {
        lock.lock();
        try {
            if (state != State.NEW) {
                throw new IllegalStateException("worker of " + queue.name() + " was already started (" + state + ")");
            }
            queue.lifecycle().started(this);
            state = State.RUNNING;
        } finally {
            lock.unlock();
        }
        beats = Executors.newSingleThreadScheduledExecutor(r -> thread(r, "heartbeat"));
        beats.scheduleWithFixedDelay(this::beat, heartbeatMs, heartbeatMs, TimeUnit.MILLISECONDS);
        dispatcher = thread(this::dispatch, "claims");
        dispatcher.start();
        return this;
    }

    // ---------------------------------------------------------------- claiming

    private void dispatch() {
        long pause = FIRST_PAUSE_MS;
        int failures = 0;
        while (state == State.RUNNING) {
            List<Job> acks = List.of();
            long seen = changes;
            try {
                if (paused) {
                    giveBack();
                    flushAcks();
                    await(SLICE_MS, seen);
                    continue;
                }
                int want;
                boolean idle;
                boolean defer;
                lock.lock();
                try {
                    int held = running.size() + buffer.size();
                    want = options.threads() + prefetchNow() - held;
                    idle = held == 0;
                    defer = want > 0 && held >= options.threads() && !overlaps(held)
                            && System.nanoTime() - deferredSince < TimeUnit.MILLISECONDS.toNanos(pollMs);
                    if (!defer) {
                        acks = new ArrayList<>(done);
                        done.clear();
                    }
                } finally {
                    lock.unlock();
                }
                if (defer) {
                    // every thread has a job and what they hold ends before a claim could return: claim with the
                    // next finished job, for a fuller batch, rather than now for the one free prefetch slot
                    await(pollMs, seen);
                    continue;
                }
                deferredSince = System.nanoTime();
                if (want <= 0) {
                    ack(acks); // the prefetch shrank below what is buffered: ack on its own, never strand one
                    acks = List.of();
                    await(pollMs, seen);
                    continue;
                }
                WakeupSource.Ticket ticket = idle && wakeups != null ? wakeups.ticket(queue.tables()) : null;
                List<Job> claimed;
                long t0 = System.nanoTime();
                if (acks.isEmpty()) {
                    claimed = queue.claim(want);
                } else {
                    Handoff h = queue.ackAndClaim(acks, want);
                    acks = List.of();
                    claimed = h.claimed();
                    h.lost().forEach(listener::leaseLost);
                }
                long took = System.nanoTime() - t0;
                averageClaimNanos = averageClaimNanos < 0 ? took : averageClaimNanos + (took - averageClaimNanos) / 8;
                if (failures > 0) {
                    log.info("rowqueue: worker of {} reaches the database again after {} failures", queue.name(),
                            failures);
                    failures = 0;
                }
                if (!claimed.isEmpty()) {
                    listener.claimed(claimed);
                    lock.lock();
                    try {
                        buffer.addAll(claimed);
                        startBuffered();
                    } finally {
                        lock.unlock();
                    }
                    pause = FIRST_PAUSE_MS;
                    continue;
                }
                if (idle) {
                    listener.idle();
                }
                if (ticket != null) {
                    awaitTicket(ticket, pollMs);
                } else {
                    await(jitter(pause), seen);
                    pause = Math.min(pause * 2, pollMs);
                }
            } catch (RuntimeException e) {
                requeueAcks(acks);
                if (state != State.RUNNING) {
                    break;
                }
                failures++;
                listener.databaseError(e, failures);
                if (failures == 1) {
                    log.warn("rowqueue: worker of {} cannot claim ({}); retrying with backoff, logged once per"
                            + " outage", queue.name(), e.toString());
                } else {
                    log.debug("rowqueue: worker of {}: claim failure {}: {}", queue.name(), failures, e.toString());
                }
                await(jitter(Math.min(MAX_BACKOFF_MS, FIRST_PAUSE_MS << Math.min(failures, 20))), changes);
            }
        }
    }

    /**
     * How many jobs to hold ahead now: the fixed prefetch, or with a window as many as the threads are expected to
     * take within it at the moving average of handler times (none before a job has finished).
     */
    private int prefetchNow() {
        int cap = options.prefetch();
        if (cap == 0 || options.prefetchWindow() == null) {
            return cap;
        }
        long avg = averageRunNanos;
        if (avg < 0) {
            return 0;
        }
        double fit = (double) options.threads() * options.prefetchWindow().toNanos() / Math.max(avg, 1);
        return (int) Math.min(cap, fit);
    }

    /**
     * Whether a claim sent now would overlap work: the {@code held} jobs (running and buffered) are expected to keep
     * the threads busy for at least half a claim's round trip, at the moving averages of both. If not, the threads
     * run out of work before the claim returns anyway, and waiting for them to finish claims a fuller batch (a no-op
     * handler on one thread: two jobs a round trip instead of one).
     */
    private boolean overlaps(int held) {
        long run = averageRunNanos;
        long claim = averageClaimNanos;
        if (run < 0 || claim < 0) {
            return true;
        }
        return (double) held * run / options.threads() >= claim / 2.0;
    }

    private static long jitter(long ms) {
        return ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1);
    }

    /**
     * Waits until something changed since {@link #changes} was {@code seen} (a handler finished, pause, resume,
     * close), at once if it already has, or until {@code ms} pass.
     */
    private void await(long ms, long seen) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        lock.lock();
        try {
            while (state == State.RUNNING && changes == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Tells the dispatcher and {@link #close} that something changed; called with {@link #lock} held. */
    private void signalChanged() {
        changes++;
        changed.signalAll();
    }

    /** Waits for the dialect's wake-up, in slices so that pause and close are seen, up to {@code ms}. */
    private void awaitTicket(WakeupSource.Ticket ticket, long ms) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (state == State.RUNNING && !paused) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(SLICE_MS));
            long before = System.nanoTime();
            try {
                ticket.await(slice);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (System.nanoTime() - before < slice) {
                return; // signalled
            }
        }
    }

    /** Starts buffered jobs on free threads; called with {@link #lock} held. */
    private void startBuffered() {
        while (!buffer.isEmpty() && running.size() < options.threads() && state == State.RUNNING && !paused) {
            Job job = buffer.poll();
            Running r = new Running(job);
            running.put(job.id(), r);
            try {
                r.future = handlers.submit(() -> run(r));
            } catch (RuntimeException rejected) {
                running.remove(job.id());
                buffer.addFirst(job);
                log.warn("rowqueue: worker of {}: the handler executor refused a job: {}", queue.name(),
                        rejected.toString());
                return;
            }
        }
    }

    /** Gives prefetched jobs that never started back at once, no attempt counted. */
    private void giveBack() {
        List<Job> back;
        lock.lock();
        try {
            back = new ArrayList<>(buffer);
            buffer.clear();
        } finally {
            lock.unlock();
        }
        back.forEach(this::release);
    }

    /** Gives a job that never started back, no attempt counted; if that fails its lease ends by itself. */
    private void release(Job job) {
        try {
            queue.release(job);
        } catch (RuntimeException e) {
            log.debug("rowqueue: worker of {}: giving back job {} failed; its lease will end: {}", queue.name(),
                    job.id(), e.toString());
        }
    }

    private void flushAcks() {
        List<Job> acks;
        lock.lock();
        try {
            acks = new ArrayList<>(done);
            done.clear();
        } finally {
            lock.unlock();
        }
        ack(acks);
    }

    private void ack(List<Job> acks) {
        for (Job job : acks) {
            try {
                if (!queue.ack(job)) {
                    listener.leaseLost(job);
                }
            } catch (RuntimeException e) {
                log.warn("rowqueue: worker of {}: ack of job {} failed; it will run again after its lease: {}",
                        queue.name(), job.id(), e.toString());
            }
        }
    }

    private void requeueAcks(List<Job> acks) {
        if (acks.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            done.addAll(0, acks);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- running

    private void run(Running r) {
        Job job = r.job;
        if (!r.begun.compareAndSet(false, true)) {
            return; // close gave the job back before a thread took it
        }
        r.thread = Thread.currentThread();
        listener.started(job, Duration.between(job.enqueuedAt(), Instant.now()));
        long t0 = System.nanoTime();
        Throwable error = null;
        try {
            handler.handle(r);
        } catch (Throwable t) {
            error = t;
        }
        long nanos = System.nanoTime() - t0;
        long avg = averageRunNanos;
        averageRunNanos = avg < 0 ? nanos : avg + (nanos - avg) / 8; // racy on purpose: an estimate
        Duration ran = Duration.ofNanos(nanos);
        r.thread = null;
        boolean interrupted = Thread.interrupted();
        try {
            settle(r, error, ran, interrupted);
        } finally {
            listener.finished(job, ran);
            running.remove(job.id(), r);
            lock.lock();
            try {
                startBuffered();
                signalChanged();
            } finally {
                lock.unlock();
            }
        }
    }

    private void settle(Running r, Throwable error, Duration ran, boolean interrupted) {
        Job job = r.job;
        if (r.settled.get() || r.lost) {
            return;
        }
        if (error == null) {
            listener.succeeded(job, ran);
            lock.lock();
            try {
                // running (heartbeats extend it) or waiting for its ack, never both: else the dispatcher could ack it
                // while a heartbeat still counted it running and then called its lease lost, and a claim would see no
                // free thread beside the ack
                running.remove(job.id(), r);
                done.add(job);
                signalChanged();
            } finally {
                lock.unlock();
            }
            return;
        }
        try {
            if (r.interruptedByClose || interrupted && state != State.RUNNING) {
                queue.release(job); // stopped by close: not the job's fault, no attempt counted
                return;
            }
            int attempt = job.attempts() + 1;
            boolean last = attempt >= queue.options().maxAttempts();
            queue.nack(job, queue.options().retryDelay(attempt), describe(error));
            if (last) {
                listener.dead(job, error);
            } else {
                listener.failed(job, error, ran);
            }
        } catch (RuntimeException e) {
            log.warn("rowqueue: worker of {}: settling job {} failed; it will run again after its lease: {}",
                    queue.name(), job.id(), e.toString());
        }
    }

    private static String describe(Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return text.length() <= dev.rowqueue.spi.Dialect.ERROR_LENGTH ? text
                : text.substring(0, dev.rowqueue.spi.Dialect.ERROR_LENGTH);
    }

    // ---------------------------------------------------------------- heartbeats

    private void beat() {
        List<Job> jobs = new ArrayList<>();
        running.values().forEach(r -> {
            if (!r.lost && !r.settled.get()) {
                jobs.add(r.job);
            }
        });
        lock.lock();
        try {
            jobs.addAll(buffer);
        } finally {
            lock.unlock();
        }
        if (jobs.isEmpty()) {
            return;
        }
        Duration lease = queue.options().leaseDuration();
        try {
            for (int from = 0; from < jobs.size(); from += Validation.MAX_BATCH) {
                List<Job> part = jobs.subList(from, Math.min(jobs.size(), from + Validation.MAX_BATCH));
                Set<Long> extended = queue.extendLeases(part, lease);
                Instant until = Instant.now().plus(lease);
                for (Job job : part) {
                    Running r = running.get(job.id());
                    if (extended.contains(job.id())) {
                        if (r != null) {
                            r.leaseUntil = until;
                        }
                    } else {
                        lost(job, r);
                    }
                }
                listener.heartbeat(part.size());
            }
        } catch (RuntimeException e) {
            listener.databaseError(e, 1);
            log.debug("rowqueue: worker of {}: heartbeat failed: {}", queue.name(), e.toString());
        }
    }

    private void lost(Job job, Running r) {
        if (r != null) {
            if (r.lost || r.settled.get()) {
                return;
            }
            r.lost = true;
        } else {
            lock.lock();
            try {
                if (!buffer.remove(job)) {
                    return;
                }
            } finally {
                lock.unlock();
            }
        }
        log.warn("rowqueue: worker of {} lost the lease of job {} (a pause longer than the lease?); another"
                + " consumer may run it", queue.name(), job.id());
        listener.leaseLost(job);
    }

    // ---------------------------------------------------------------- control

    @Override
    public void pause() {
        paused = true;
        signal();
    }

    @Override
    public void resume() {
        paused = false;
        signal();
    }

    private void signal() {
        lock.lock();
        try {
            signalChanged();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public int running() {
        return running.size();
    }

    @Override
    public void close() {
        close(options.drainTimeout());
    }

    @Override
    public boolean close(Duration drain) {
        long drainMs = Validation.notNegative("drain", drain);
        lock.lock();
        try {
            if (state == State.CLOSING || state == State.CLOSED) {
                return running.isEmpty();
            }
            boolean started = state == State.RUNNING;
            state = State.CLOSING;
            signalChanged();
            if (!started) {
                state = State.CLOSED;
                shutdownHandlers();
                return true;
            }
        } finally {
            lock.unlock();
        }
        joinQuietly(dispatcher);
        giveBack();
        boolean finished = awaitRunning(drainMs);
        if (!finished) {
            for (Running r : running.values()) {
                r.interruptedByClose = true;
                if (r.begun.compareAndSet(false, true)) {
                    // waiting in a busy executor of the caller's, never started: give it back, no attempt counted
                    running.remove(r.job.id(), r);
                    release(r.job);
                    continue;
                }
                Future<?> f = r.future;
                if (f != null) {
                    f.cancel(true);
                }
            }
            awaitRunning(SETTLE_AFTER_INTERRUPT_MS);
        }
        flushAcks();
        beats.shutdownNow();
        shutdownHandlers();
        state = State.CLOSED;
        queue.lifecycle().stopped(this);
        return finished;
    }

    private void shutdownHandlers() {
        if (ownHandlers) {
            handlers.shutdownNow();
        }
    }

    private boolean awaitRunning(long ms) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        lock.lock();
        try {
            while (!running.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(SLICE_MS)));
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return running.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    private static void joinQuietly(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Worker[" + queue.name() + ", " + options.threads() + " threads, " + state
                + (paused ? ", paused" : "") + ", " + running.size() + " running]";
    }

    // ---------------------------------------------------------------- one job

    /** A job handed to a handler thread. */
    private final class Running implements JobContext {
        final Job job;
        final AtomicBoolean settled = new AtomicBoolean();
        /** Taken by the handler thread that runs the job, or by close for a job no thread took. */
        final AtomicBoolean begun = new AtomicBoolean();
        volatile Instant leaseUntil;
        volatile boolean lost;
        volatile boolean interruptedByClose;
        volatile Thread thread;
        volatile Future<?> future;

        Running(Job job) {
            this.job = job;
            this.leaseUntil = job.leaseUntil();
        }

        @Override
        public Job job() {
            return job;
        }

        @Override
        public Instant leaseUntil() {
            return leaseUntil;
        }

        @Override
        public boolean leaseLost() {
            return lost;
        }

        @Override
        public boolean release() {
            return settled.compareAndSet(false, true) && !lost && queue.release(job);
        }

        @Override
        public boolean retryAfter(Duration delay, String reason) {
            return settled.compareAndSet(false, true) && !lost && queue.nack(job, delay, reason);
        }
    }

    /** A listener whose exceptions are logged, never thrown into the worker. */
    private record SafeListener(WorkerListener l) implements WorkerListener {
        private void safely(Runnable call) {
            try {
                call.run();
            } catch (RuntimeException e) {
                log.warn("rowqueue: a worker listener threw; ignored", e);
            }
        }

        @Override
        public void claimed(List<Job> jobs) {
            safely(() -> l.claimed(jobs));
        }

        @Override
        public void started(Job job, Duration waiting) {
            safely(() -> l.started(job, waiting));
        }

        @Override
        public void succeeded(Job job, Duration ran) {
            safely(() -> l.succeeded(job, ran));
        }

        @Override
        public void failed(Job job, Throwable error, Duration ran) {
            safely(() -> l.failed(job, error, ran));
        }

        @Override
        public void dead(Job job, Throwable error) {
            safely(() -> l.dead(job, error));
        }

        @Override
        public void finished(Job job, Duration ran) {
            safely(() -> l.finished(job, ran));
        }

        @Override
        public void leaseLost(Job job) {
            safely(() -> l.leaseLost(job));
        }

        @Override
        public void idle() {
            safely(l::idle);
        }

        @Override
        public void databaseError(RuntimeException error, int consecutive) {
            safely(() -> l.databaseError(error, consecutive));
        }

        @Override
        public void heartbeat(int jobs) {
            safely(() -> l.heartbeat(jobs));
        }
    }
}
