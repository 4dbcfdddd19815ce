package dev.rowqueue.internal;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.JobHandler;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.Operation;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RateWindow;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;

import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link WorkQueue} that reports each operation of the queue it wraps, once, through {@link Operations}. Made only
 * where operation listeners are registered ({@link DefaultRowQueues.Context#handle}). Handles made from it (bound with
 * {@code using(connection)}, a worker's own) are made by the wrapped queue through the same context, so they report
 * too.
 */
final class ObservedWorkQueue extends ObservedHandle<WorkerQueue> implements WorkerQueue {
    ObservedWorkQueue(WorkerQueue queue, Operations operations) {
        super(queue, queue.name(), operations);
    }

    @Override
    public WorkQueueOptions options() {
        return handle.options();
    }

    @Override
    public WorkQueue create() {
        handle.create();
        return this;
    }

    @Override
    public long enqueue(String payload) {
        return report(Operation.ENQUEUE, () -> handle.enqueue(payload), Operations.ONE);
    }

    @Override
    public long enqueue(String payload, Enqueue how) {
        return report(Operation.ENQUEUE, () -> handle.enqueue(payload, how), Operations.ONE);
    }

    @Override
    public List<Long> enqueueAll(List<String> payloads, Enqueue how) {
        return report(Operation.ENQUEUE_ALL, () -> handle.enqueueAll(payloads, how), Operations.SIZE);
    }

    @Override
    public List<Job> claim(int max) {
        return report(Operation.CLAIM, () -> handle.claim(max), Operations.SIZE);
    }

    @Override
    public List<Job> claim(int max, Duration maxWait) {
        return report(Operation.CLAIM_WAIT, () -> handle.claim(max, maxWait), Operations.SIZE);
    }

    @Override
    public boolean ack(Job job) {
        return report(Operation.ACK, () -> handle.ack(job), Operations.IF_TRUE);
    }

    @Override
    public Handoff ackAndClaim(Collection<Job> done, int max) {
        return report(Operation.ACK_AND_CLAIM, () -> handle.ackAndClaim(done, max), h -> h.claimed().size());
    }

    @Override
    public boolean nack(Job job) {
        return report(Operation.NACK, () -> handle.nack(job), Operations.IF_TRUE);
    }

    @Override
    public boolean nack(Job job, Duration retryDelay) {
        return report(Operation.NACK, () -> handle.nack(job, retryDelay), Operations.IF_TRUE);
    }

    @Override
    public boolean nack(Job job, Duration retryDelay, String error) {
        return report(Operation.NACK, () -> handle.nack(job, retryDelay, error), Operations.IF_TRUE);
    }

    @Override
    public boolean release(Job job) {
        return report(Operation.RELEASE, () -> handle.release(job), Operations.IF_TRUE);
    }

    @Override
    public boolean extendLease(Job job, Duration leaseDuration) {
        return report(Operation.EXTEND_LEASE, () -> handle.extendLease(job, leaseDuration), Operations.IF_TRUE);
    }

    @Override
    public Set<Long> extendLeases(List<Job> jobs, Duration lease) {
        return report(Operation.EXTEND_LEASE, () -> handle.extendLeases(jobs, lease), Set::size);
    }

    @Override
    public List<Job> rotate(String cursor, int max) {
        return report(Operation.ROTATE, () -> handle.rotate(cursor, max), Operations.SIZE);
    }

    @Override
    public List<Job> deadLetters(int limit) {
        return report(Operation.DEAD_LETTERS, () -> handle.deadLetters(limit), Operations.SIZE);
    }

    @Override
    public boolean revive(long id) {
        return report(Operation.REVIVE, () -> handle.revive(id), Operations.IF_TRUE);
    }

    @Override
    public int reviveAll() {
        return report(Operation.REVIVE_ALL, handle::reviveAll, n -> n);
    }

    @Override
    public int purgeDead() {
        return report(Operation.PURGE_DEAD, handle::purgeDead, n -> n);
    }

    @Override
    public QueueStats stats() {
        return report(Operation.STATS, handle::stats, Operations.ONE);
    }

    @Override
    public Map<String, QueueStats> statsByKey(int limit) {
        return report(Operation.STATS_BY_KEY, () -> handle.statsByKey(limit), Map::size);
    }

    @Override
    public Optional<JobInfo> job(long id) {
        return report(Operation.JOB, () -> handle.job(id), j -> j.isPresent() ? 1 : 0);
    }

    @Override
    public JobPage jobs(JobQuery query) {
        return report(Operation.JOBS, () -> handle.jobs(query), p -> p.jobs().size());
    }

    @Override
    public CancelOutcome cancel(long id) {
        return report(Operation.CANCEL, () -> handle.cancel(id), o -> o.cancelled() ? 1 : 0);
    }

    @Override
    public QueueActivity activity() {
        return report(Operation.ACTIVITY, handle::activity, Operations.ONE);
    }

    @Override
    public Optional<RateWindow> rateWindow() {
        return report(Operation.RATE_WINDOW, handle::rateWindow, w -> w.isPresent() ? 1 : 0);
    }

    @Override
    public NodeRegistry node() {
        return handle.node();
    }

    @Override
    public Lifecycle lifecycle() {
        return handle.lifecycle();
    }

    @Override
    public WorkQueue using(Connection connection) {
        return handle.using(connection); // made through the same context: reports too
    }

    @Override
    public Worker worker(JobHandler handler, WorkerOptions options) {
        return handle.worker(handler, options); // the worker's own queue is made through the same context
    }
}
