package dev.rowqueue.micrometer;

import dev.rowqueue.Job;
import dev.rowqueue.StatementRefusedException;
import dev.rowqueue.WorkerListener;

import java.time.Duration;
import java.util.List;

/** Records a worker's events on its queue's {@link WorkerMeters}, then tells the next listener. */
final class MeteredWorkerListener implements WorkerListener {
    private final WorkerMeters meters;
    private final WorkerListener next;
    /** Whether this worker's claims are refused now (it counts once in {@link WorkerMeters#refused}). */
    private volatile boolean refused;

    MeteredWorkerListener(WorkerMeters meters, WorkerListener next) {
        this.meters = meters;
        this.next = next;
    }

    @Override
    public void claimed(List<Job> jobs) {
        next.claimed(jobs);
    }

    @Override
    public void started(Job job, Duration waiting) {
        meters.running.incrementAndGet();
        // the enqueue time is the database's clock, the start this JVM's: a clock skew can make it negative
        meters.wait.record(waiting.isNegative() ? Duration.ZERO : waiting);
        next.started(job, waiting);
    }

    @Override
    public void succeeded(Job job, Duration running) {
        meters.succeeded.increment();
        next.succeeded(job, running);
    }

    @Override
    public void failed(Job job, Throwable error, Duration running) {
        meters.failed.increment();
        next.failed(job, error, running);
    }

    @Override
    public void dead(Job job, Throwable error) {
        meters.dead.increment();
        next.dead(job, error);
    }

    @Override
    public void finished(Job job, Duration running) {
        meters.running.decrementAndGet();
        meters.handler.record(running);
        next.finished(job, running);
    }

    @Override
    public void leaseLost(Job job) {
        meters.leaseLost.increment();
        next.leaseLost(job);
    }

    @Override
    public void idle() {
        next.idle();
    }

    @Override
    public void databaseError(RuntimeException error, int consecutive) {
        meters.databaseErrors.increment();
        boolean refusal = refusal(error);
        if (refusal != refused) {
            refused = refusal;
            meters.refused.addAndGet(refusal ? 1 : -1);
        }
        next.databaseError(error, consecutive);
    }

    @Override
    public void databaseRecovered(int failures) {
        if (refused) {
            refused = false;
            meters.refused.decrementAndGet();
        }
        next.databaseRecovered(failures);
    }

    private static boolean refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StatementRefusedException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void heartbeat(int jobs) {
        next.heartbeat(jobs);
    }

    @Override
    public String toString() {
        return "MeteredWorkerListener[" + next + "]";
    }
}
