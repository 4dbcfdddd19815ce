package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.WorkerListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A worker's finished jobs whose acks ride on its next claim ({@code ackAndClaim}), guarded by the worker's lock; acked
 * on their own when no claim follows (paused, closing, or a prefetch that shrank).
 */
final class AckBatch {
    private static final Logger log = LoggerFactory.getLogger(DefaultWorker.class);

    private final ReentrantLock lock;
    private final WorkerQueue queue;
    private final WorkerListener listener;
    private final List<Job> done = new ArrayList<>();
    /** Jobs whose ack was sent in a statement of unknown outcome: it may have taken effect. */
    private final java.util.Set<Job> uncertain = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @param lock     the worker's lock, which guards the batch
     * @param queue    the queue the jobs came from
     * @param listener told of leases lost by the time of the ack
     */
    AckBatch(ReentrantLock lock, WorkerQueue queue, WorkerListener listener) {
        this.lock = lock;
        this.queue = queue;
        this.listener = listener;
    }

    /**
     * Adds a finished job; called with the lock held.
     *
     * @param job the job
     */
    void addLocked(Job job) {
        done.add(job);
    }

    /** @return the batch, emptied; called with the lock held */
    List<Job> takeLocked() {
        return takeLocked(done.size());
    }

    /**
     * @param max the most acks to take (a claim carries at most {@link Validation#MAX_BATCH})
     * @return the first {@code max} jobs of the batch, taken out of it; called with the lock held
     */
    List<Job> takeLocked(int max) {
        List<Job> first = done.subList(0, Math.min(max, done.size()));
        List<Job> acks = new ArrayList<>(first);
        first.clear();
        return acks;
    }

    /**
     * Puts acks back at the head of the batch, after a claim that was to carry them failed.
     *
     * @param acks      the acks taken
     * @param uncertain whether the claim failed with an unknown outcome, so that the acks may have taken effect
     */
    void putBack(List<Job> acks, boolean uncertain) {
        if (acks.isEmpty()) {
            return;
        }
        if (uncertain) {
            this.uncertain.addAll(acks);
        }
        lock.lock();
        try {
            done.addAll(0, acks);
        } finally {
            lock.unlock();
        }
    }

    /** Acks the whole batch now, one statement per job. */
    void flush() {
        List<Job> acks;
        lock.lock();
        try {
            acks = takeLocked();
        } finally {
            lock.unlock();
        }
        ackEach(acks);
    }

    /**
     * Acks jobs one statement each; a job whose lease was lost is reported, a failed ack logged (the job runs again
     * after its lease).
     *
     * @param acks the jobs
     */
    void ackEach(List<Job> acks) {
        for (Job job : acks) {
            try {
                if (!queue.ack(job)) {
                    lost(List.of(job));
                } else {
                    uncertain.remove(job);
                }
            } catch (RuntimeException e) {
                log.warn("rowqueue: worker of {}: ack of job {} failed; it will run again after its lease: {}",
                        queue.name(), job.id(), e.toString());
            }
        }
    }

    /**
     * Reports jobs whose ack did not take effect as lost leases, except a job whose earlier ack had an unknown outcome
     * and which is gone from the queue: that ack took effect.
     *
     * @param notAcked the jobs an ack found no longer leased to this worker
     */
    void lost(java.util.Collection<Job> notAcked) {
        for (Job job : notAcked) {
            if (uncertain.remove(job) && gone(job)) {
                log.debug("rowqueue: worker of {}: job {} was acked by a statement whose outcome was unknown",
                        queue.name(), job.id());
                continue;
            }
            listener.leaseLost(job);
        }
    }

    /**
     * @param sent jobs whose ack took effect or was reported lost, no longer uncertain
     */
    void settled(java.util.Collection<Job> sent) {
        if (!uncertain.isEmpty()) {
            uncertain.removeAll(sent);
        }
    }

    private boolean gone(Job job) {
        try {
            return queue.job(job.id()).isEmpty();
        } catch (RuntimeException e) {
            log.debug("rowqueue: worker of {}: could not look job {} up: {}", queue.name(), job.id(), e.toString());
            return false;
        }
    }
}
