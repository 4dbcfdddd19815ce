package dev.rowqueue.internal;

import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.JobHandler;
import dev.rowqueue.StatementRefusedException;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.support.JobRules;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The worker runtime: one dispatcher thread claims for the pool (free threads plus {@link Prefetch prefetch}, the
 * {@link AckBatch acks} riding on the claim), handler threads run jobs, {@link Heartbeats} extend running jobs'
 * leases in one statement. The dispatcher never is interrupted inside a database call: pause and close
 * ({@link WorkerLifecycle}) are seen between calls, and waits are cut into short slices.
 */
final class DefaultWorker implements Worker {
    private static final Logger log = LoggerFactory.getLogger(DefaultWorker.class);

    private static final long FIRST_PAUSE_MS = 50;
    private static final long MAX_BACKOFF_MS = 30_000;
    private static final long SETTLE_AFTER_INTERRUPT_MS = 10_000;

    private final WorkerQueue queue;
    private final JobHandler handler;
    private final WorkerOptions options;
    private final WorkerListener listener;
    private final long heartbeatMs;
    private final long pollMs;
    /** What an idle dispatcher waits on: the dialect's wake-ups, or this instance's ({@link LocalWakeups}). */
    private final WakeupSource wakeups;
    /** Whether {@link #wakeups} sees only this instance's writes, so that an idle dispatcher still polls. */
    private final boolean polls;
    private final ExecutorService handlers;
    private final boolean ownHandlers;

    private final WorkerLifecycle lifecycle = new WorkerLifecycle();
    private final ReentrantLock lock = lifecycle.lock;
    /** Prefetched jobs waiting for a thread; guarded by {@link #lock}. */
    private final Deque<RunningJob> buffer = new ArrayDeque<>();
    /** Finished jobs whose ack rides on the next claim; guarded by {@link #lock}. */
    private final AckBatch acks;
    private final Prefetch prefetch;
    private final Heartbeats heartbeats;
    private final Map<Long, RunningJob> running = new ConcurrentHashMap<>();
    private final AtomicInteger threadNumber = new AtomicInteger();
    private Thread dispatcher;
    /** The refusal of the last claim while claims are refused, else null; written by the dispatcher only. */
    private volatile StatementRefusedException refused;

    DefaultWorker(WorkerQueue queue, JobHandler handler, WorkerOptions options, Duration lease, Duration poll,
                  WakeupSource wakeups, boolean polls) {
        this.queue = queue;
        this.handler = handler;
        this.options = options;
        this.listener = new SafeWorkerListener(options.listener());
        this.heartbeatMs = options.heartbeat() != null ? options.heartbeat().toMillis()
                : Math.max(1, lease.toMillis() / 3);
        this.pollMs = Math.max(FIRST_PAUSE_MS, poll.toMillis());
        this.wakeups = wakeups;
        this.polls = polls;
        this.ownHandlers = options.executor() == null;
        this.handlers = ownHandlers ? Executors.newFixedThreadPool(options.threads(), r -> thread(r, "handler"))
                : options.executor();
        this.acks = new AckBatch(lock, queue, listener);
        this.prefetch = new Prefetch(options, pollMs);
        this.heartbeats = new Heartbeats(queue, listener, running, this::buffered, this::unbuffer,
                options.leaseMarginFor(lease), options.interruptOnLeaseLoss());
    }

    private Thread thread(Runnable r, String role) {
        Thread t = new Thread(r, "rowqueue-worker-" + queue.name() + "-" + role + "-" + threadNumber.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    /** @return the queue it works on */
    String queueName() {
        return queue.name();
    }

    /** @return its handler threads */
    int threads() {
        return options.threads();
    }

    @Override
    public Worker start() {
        lock.lock();
        try {
            lifecycle.requireNew(queue.name());
            queue.lifecycle().started(this);
            lifecycle.running();
        } finally {
            lock.unlock();
        }
        queue.node().workersChanged(); // no statement here: the node's heartbeat thread says so
        heartbeats.start(heartbeatMs, role -> r -> thread(r, role));
        dispatcher = thread(this::dispatch, "claims");
        dispatcher.start();
        return this;
    }

    // ---------------------------------------------------------------- claiming

    private void dispatch() {
        long pause = FIRST_PAUSE_MS;
        int failures = 0;
        while (lifecycle.isRunning()) {
            List<Job> riding = List.of();
            long seen = lifecycle.changes();
            try {
                if (lifecycle.isPaused()) {
                    giveBack();
                    acks.flush();
                    lifecycle.await(WorkerLifecycle.SLICE_MS, seen);
                    continue;
                }
                if (!heartbeats.reachable()) {
                    // a lease claimed now could not be extended: wait for a heartbeat to reach the database
                    lifecycle.await(WorkerLifecycle.SLICE_MS, seen);
                    continue;
                }
                int want;
                boolean idle;
                boolean defer;
                lock.lock();
                try {
                    int held = running.size() + buffer.size();
                    // one claim asks for at most a batch's jobs (a worker of many threads fills up over claims)
                    want = Math.min(options.threads() + prefetch.now() - held, Validation.MAX_BATCH);
                    idle = held == 0;
                    defer = prefetch.defer(want, held);
                    if (!defer) {
                        riding = acks.takeLocked(Validation.MAX_BATCH); // the rest rides on the next claim
                    }
                } finally {
                    lock.unlock();
                }
                if (defer) {
                    // every thread has a job and what they hold ends before a claim could return: claim with the
                    // next finished job, for a fuller batch, rather than now for the one free prefetch slot
                    lifecycle.await(pollMs, seen);
                    continue;
                }
                prefetch.proceeding();
                if (want <= 0) {
                    acks.ackEach(riding); // the prefetch shrank below what is buffered: ack on its own, never strand one
                    riding = List.of();
                    lifecycle.await(pollMs, seen);
                    continue;
                }
                WakeupSource.Ticket ticket = idle ? wakeups.ticket(queue.tables()) : null;
                List<Job> claimed;
                long t0 = System.nanoTime();
                if (riding.isEmpty()) {
                    claimed = queue.claim(want);
                } else {
                    Handoff h = queue.ackAndClaim(riding, want);
                    acks.lost(h.lost());
                    acks.settled(riding);
                    riding = List.of();
                    claimed = h.claimed();
                }
                prefetch.claimTook(System.nanoTime() - t0);
                if (failures > 0) {
                    StatementRefusedException was = refused;
                    refused = null;
                    if (was != null) {
                        log.warn("rowqueue: worker of {}: the database runs its {} again after {} refusals",
                                queue.name(), was.operation(), failures);
                    } else {
                        log.info("rowqueue: worker of {} reaches the database again after {} failures", queue.name(),
                                failures);
                    }
                    listener.databaseRecovered(failures);
                    failures = 0;
                }
                if (!claimed.isEmpty()) {
                    listener.claimed(claimed);
                    lock.lock();
                    try {
                        for (Job job : claimed) {
                            buffer.add(new RunningJob(queue, job, heartbeats.knownEnd(t0)));
                        }
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
                if (ticket != null && !polls) {
                    awaitTicket(ticket, pollMs);
                    continue;
                }
                // polling with backoff; with a ticket, this instance's writes wake it early, the others' are polled
                long wait = jitter(pause);
                if (ticket != null) {
                    awaitTicket(ticket, wait);
                } else {
                    lifecycle.await(wait, seen);
                }
                pause = Math.min(pause * 2, pollMs);
            } catch (RuntimeException e) {
                acks.putBack(riding, e instanceof dev.rowqueue.UnknownCommitOutcomeException);
                if (!lifecycle.isRunning()) {
                    break;
                }
                failures++;
                StatementRefusedException refusal = refusal(e);
                boolean firstRefusal = refusal != null && refused == null;
                refused = refusal;
                listener.databaseError(e, failures);
                if (firstRefusal) {
                    log.error("rowqueue: worker of {} cannot work: the database refuses the statement of its {} ({});"
                            + " it fails the same way until the database or its grants change. The worker tries"
                            + " again every {} ms and says when it runs; logged once", queue.name(),
                            refusal.operation(), e.getMessage(), backoffCap());
                } else if (failures == 1) {
                    log.warn("rowqueue: worker of {} cannot claim ({}); retrying with backoff, logged once per"
                            + " outage", queue.name(), e.toString());
                } else {
                    log.debug("rowqueue: worker of {}: claim failure {}: {}", queue.name(), failures, e.toString());
                }
                // a refused statement is tried again at the longest pause at once: it does not heal in milliseconds
                long pauseMs = refusal != null ? backoffCap()
                        : Math.min(backoffCap(), FIRST_PAUSE_MS << Math.min(failures, 20));
                lifecycle.await(jitter(pauseMs), lifecycle.changes());
            }
        }
    }

    /** Never longer than a lease: once the database answers again, a claim follows within a lease. */
    private long backoffCap() {
        return Math.min(MAX_BACKOFF_MS, Math.max(FIRST_PAUSE_MS, queue.options().leaseDuration().toMillis()));
    }

    /** @return the refusal along the cause chain of a claim's failure, or {@code null} */
    private static StatementRefusedException refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StatementRefusedException r) {
                return r;
            }
        }
        return null;
    }

    @Override
    public Optional<StatementRefusedException> refused() {
        return Optional.ofNullable(refused);
    }

    private static long jitter(long ms) {
        return ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1);
    }

    /** Waits for the dialect's wake-up, in slices so that pause and close are seen, up to {@code ms}. */
    private void awaitTicket(WakeupSource.Ticket ticket, long ms) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (lifecycle.isRunning() && !lifecycle.isPaused()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(WorkerLifecycle.SLICE_MS));
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
        while (!buffer.isEmpty() && running.size() < options.threads() && lifecycle.isRunning()
                && !lifecycle.isPaused()) {
            RunningJob r = buffer.poll();
            if (r.lost()) {
                continue; // its lease ended while it waited, reported already
            }
            Job job = r.job;
            running.put(job.id(), r);
            try {
                r.future = handlers.submit(() -> run(r));
            } catch (RuntimeException rejected) {
                running.remove(job.id());
                buffer.addFirst(r);
                log.warn("rowqueue: worker of {}: the handler executor refused a job: {}", queue.name(),
                        rejected.toString());
                return;
            }
        }
    }

    /** @return a copy of the prefetched jobs, for a heartbeat */
    private List<RunningJob> buffered() {
        lock.lock();
        try {
            return new ArrayList<>(buffer);
        } finally {
            lock.unlock();
        }
    }

    /** Drops a prefetched job whose lease was lost; tells whether it was still buffered. */
    private boolean unbuffer(RunningJob r) {
        lock.lock();
        try {
            return buffer.remove(r);
        } finally {
            lock.unlock();
        }
    }

    /** Gives prefetched jobs that never started back at once, no attempt counted. */
    private void giveBack() {
        List<RunningJob> back;
        lock.lock();
        try {
            back = new ArrayList<>(buffer);
            buffer.clear();
        } finally {
            lock.unlock();
        }
        back.forEach(r -> release(r.job));
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

    // ---------------------------------------------------------------- running

    private void run(RunningJob r) {
        Job job = r.job;
        if (!r.begun.compareAndSet(false, true)) {
            return; // close gave the job back before a thread took it
        }
        r.running(Thread.currentThread());
        listener.started(job, Duration.between(job.enqueuedAt(), Instant.now()));
        long t0 = System.nanoTime();
        Throwable error = null;
        try {
            handler.handle(r);
        } catch (Throwable t) {
            error = t;
        }
        long nanos = System.nanoTime() - t0;
        prefetch.ran(nanos);
        Duration ran = Duration.ofNanos(nanos);
        r.running(null); // a lost lease's interrupt comes before this or not at all
        boolean interrupted = Thread.interrupted();
        try {
            settle(r, error, ran, interrupted);
        } finally {
            listener.finished(job, ran);
            running.remove(job.id(), r);
            lock.lock();
            try {
                startBuffered();
                lifecycle.signalChanged();
            } finally {
                lock.unlock();
            }
        }
    }

    private void settle(RunningJob r, Throwable error, Duration ran, boolean interrupted) {
        Job job = r.job;
        if (r.settled.get() || heartbeats.lostIfEnded(r, System.nanoTime())) {
            return; // settled by its handler, or its lease is known to have ended: another consumer may run it
        }
        if (error == null) {
            // settled before its ack is queued: a beat whose extension was in flight when the ack went through finds
            // the job gone, and must not call a job that ran once and was acked lost
            if (!r.settleSucceeded()) {
                return; // its lease was found lost meanwhile: reported, not acked
            }
            listener.succeeded(job, ran);
            lock.lock();
            try {
                // running (heartbeats extend it) or waiting for its ack, never both: else the dispatcher could ack it
                // while a heartbeat still counted it running and then called its lease lost, and a claim would see no
                // free thread beside the ack
                running.remove(job.id(), r);
                acks.addLocked(job);
                lifecycle.signalChanged();
            } finally {
                lock.unlock();
            }
            return;
        }
        try {
            if (r.interruptedByClose || interrupted && !lifecycle.isRunning()) {
                queue.release(job); // stopped by close: not the job's fault, no attempt counted
                return;
            }
            int attempt = job.failures() + 1;
            boolean last = JobRules.exhausted(attempt, queue.options().maxAttempts()); // as the nack will decide
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

    // ---------------------------------------------------------------- control

    @Override
    public void pause() {
        lifecycle.pause(true);
    }

    @Override
    public void resume() {
        lifecycle.pause(false);
    }

    @Override
    public boolean isPaused() {
        return lifecycle.isPaused();
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
        WorkerLifecycle.CloseStart start = lifecycle.beginClose();
        if (start == WorkerLifecycle.CloseStart.ALREADY) {
            return running.isEmpty();
        }
        if (start == WorkerLifecycle.CloseStart.NEVER_STARTED) {
            shutdownHandlers();
            return true;
        }
        joinQuietly(dispatcher);
        giveBack();
        boolean finished = lifecycle.awaitUntil(running::isEmpty, drainMs);
        if (!finished) {
            for (RunningJob r : running.values()) {
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
            lifecycle.awaitUntil(running::isEmpty, SETTLE_AFTER_INTERRUPT_MS);
        }
        acks.flush();
        heartbeats.stop();
        shutdownHandlers();
        lifecycle.closed();
        queue.lifecycle().stopped(this);
        queue.node().workersChanged();
        return finished;
    }

    private void shutdownHandlers() {
        if (ownHandlers) {
            handlers.shutdownNow();
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
        return "Worker[" + queue.name() + ", " + options.threads() + " threads, " + lifecycle.state()
                + (lifecycle.isPaused() ? ", paused" : "") + ", " + running.size() + " running]";
    }
}
