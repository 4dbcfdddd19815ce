package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.spi.WorkStore.AckedAndClaimed;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Bounds the claims of each work queue that run at once through one {@code RowQueues} instance
 * ({@code RowQueues.Builder#claimConcurrency}), and lets the claims that wait ride along with the next one that runs.
 *
 * <p>A claimer that finds all of its queue's permits taken waits here, before it borrows a connection, so waiting
 * claimers hold nothing the running ones could need. Requests run in arrival order: when a permit frees, the thread
 * of the oldest waiting request takes it and runs one statement for itself and for every compatible request waiting
 * at that moment (oldest first, up to
 * {@link Validation#MAX_BATCH} jobs and acks): the acks of all of them and the sum of their batch sizes, with one
 * lease token. It hands each request its jobs in claim order, as many as it asked for, oldest request first, and the
 * acks that took effect among its own; the requests it served return without touching the database. This is group
 * commit for claims: sixteen threads that each claim one job cost one statement, not sixteen, while each thread still
 * gets at most the jobs it asked for.
 *
 * <p>Requests ride along only with requests of the same lease duration, and not if one of their acks names a job
 * another request of the batch acks too (each caller must learn whether its own ack took effect). If the shared
 * statement fails, the request that ran it fails; the others fail with the same exception, unless it is a retryable
 * failure (nothing took effect), in which case they run again once, in their order, before any newer request. A thread
 * interrupted while it waits and not yet served gives up ({@link TransientRowQueueException}); once served, or being
 * served, it waits for its jobs, so none is leased to a thread that left, and returns with its interrupt flag set.
 */
final class ClaimGates {
    /** No limit: claims on a caller's connection, or {@code claimConcurrency(Integer.MAX_VALUE)}. */
    static final ClaimGates NONE = new ClaimGates(Integer.MAX_VALUE);

    /**
     * Runs one combined claim: acks (possibly none), then at most {@code max} jobs with the given token, under the
     * claim rule of the request that runs it (requests ride along only with requests of the same rule).
     */
    interface Claimer {
        /**
         * @param ids     jobs to ack, possibly none
         * @param tokens  their lease tokens
         * @param max     jobs to claim, 1 to {@link Validation#MAX_BATCH}
         * @param leaseMs the lease
         * @return the acked ids and the claimed jobs, in claim order
         */
        AckedAndClaimed run(long[] ids, long[] tokens, int max, long leaseMs);
    }

    /** One caller's claim: the acks of its last batch, how many jobs it wants, for how long. */
    static final class Request {
        private final long[] ids;
        private final long[] tokens;
        private final int max;
        private final long leaseMs;
        private final Object rule;
        private final boolean serial;
        private boolean taken;
        private boolean done;
        /** Given back once after a retryable failure of a batch it rode in; the next failure is its own. */
        private boolean givenBack;
        private AckedAndClaimed result;
        /** A {@link RuntimeException} or an {@link Error}: the claimer declares nothing else. */
        private Throwable failure;

        /**
         * @param ids     jobs to ack
         * @param tokens  their lease tokens
         * @param max     jobs wanted
         * @param leaseMs the lease
         */
        Request(long[] ids, long[] tokens, int max, long leaseMs) {
            this(ids, tokens, max, leaseMs, null, false);
        }

        /**
         * @param ids     jobs to ack
         * @param tokens  their lease tokens
         * @param max     jobs wanted
         * @param leaseMs the lease
         * @param rule    how the claim treats keys ({@code equals} decides who rides along); {@code null} for none
         * @param serial  whether the database runs such claims of the queue one at a time anyway (a per-key limit's
         *                gate): they then pass a gate of one permit of their own, so that the claims waiting for it
         *                ride along with the one that runs instead of waiting in the database one after another
         */
        Request(long[] ids, long[] tokens, int max, long leaseMs, Object rule, boolean serial) {
            this.ids = ids;
            this.tokens = tokens;
            this.max = max;
            this.leaseMs = leaseMs;
            this.rule = rule;
            this.serial = serial;
        }
    }

    /** A queue's gate: the claims running and the requests waiting, guarded by the gate's monitor. */
    private static final class Gate {
        private final ArrayDeque<Request> waiting = new ArrayDeque<>();
        private final int permits;
        private int running;

        private Gate(int permits) {
            this.permits = permits;
        }
    }

    private final int permits;
    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** Gates shared by every instance on one database in this JVM ({@link #of}), by database and permits. */
    private static final ConcurrentHashMap<String, ClaimGates> SHARED = new ConcurrentHashMap<>();

    /**
     * @param permits  claims of one queue at once
     * @param database the database's identity where the instances on it in this JVM share their gates (consumers
     *                 of different instances then take turns too: the dialect's
     *                 {@link dev.rowqueue.spi.DialectPolicy#sharedClaimGates()}), or {@code null} for gates of this
     *                 instance's own
     * @return the gates
     */
    static ClaimGates of(int permits, String database) {
        if (database == null || permits == Integer.MAX_VALUE) {
            return new ClaimGates(permits);
        }
        return SHARED.computeIfAbsent(permits + " " + database, k -> new ClaimGates(permits));
    }

    /**
     * @param permits claims of one queue at once, at least 1
     */
    ClaimGates(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("claimConcurrency must be at least 1, got " + permits);
        }
        this.permits = permits;
    }

    /**
     * A claim that runs on its own once a permit is free (a rotation: its cursor is its own).
     *
     * @param queue the work queue
     * @param claim the claim
     * @param <R>   its result type
     * @return its result
     * @throws TransientRowQueueException if the thread is interrupted while it waits (its flag is set again)
     */
    <R> R alone(String queue, Supplier<R> claim) {
        if (permits == Integer.MAX_VALUE) {
            return claim.get();
        }
        Gate gate = gate(queue, false);
        synchronized (gate) {
            try {
                while (gate.running >= gate.permits) {
                    gate.wait();
                }
            } catch (InterruptedException e) {
                throw interrupted(queue, e);
            }
            gate.running++;
        }
        try {
            return claim.get();
        } finally {
            release(gate);
        }
    }

    /**
     * A claim (with acks, or none) that may run together with others of the queue that wait.
     *
     * @param queue   the work queue
     * @param request the claim
     * @param claimer runs a claim, combined or not
     * @return the request's acked ids and jobs
     * @throws TransientRowQueueException if the thread is interrupted while it waits and was not served
     */
    AckedAndClaimed combined(String queue, Request request, Claimer claimer) {
        if (permits == Integer.MAX_VALUE) {
            return claimer.run(request.ids, request.tokens, request.max, request.leaseMs);
        }
        Gate gate = gate(queue, request.serial);
        Batch batch;
        boolean interrupted = false;
        synchronized (gate) {
            gate.waiting.addLast(request);
            while (true) {
                try {
                    while (!request.taken && (gate.running >= gate.permits || gate.waiting.peekFirst() != request)) {
                        gate.wait();
                    }
                } catch (InterruptedException e) {
                    if (!request.taken) {
                        gate.waiting.remove(request);
                        gate.notifyAll(); // the next request may be first now
                        throw interrupted(queue, e);
                    }
                    interrupted = true;
                }
                if (request.taken) {
                    interrupted |= awaitServedOrReturned(gate, request);
                    if (request.done) {
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        return outcome(request);
                    }
                    continue; // given back after a retryable failure of the batch it rode in: wait again
                }
                break;
            }
            gate.running++;
            batch = take(gate, request);
            if (gate.running < gate.permits && !gate.waiting.isEmpty()) {
                gate.notifyAll(); // a permit is left for the request that is first now
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            serve(gate, batch, claimer);
        } finally {
            release(gate);
        }
        return outcome(request);
    }

    /**
     * @param queue  the work queue
     * @param serial whether for claims the database serializes anyway: a gate of its own with one permit
     * @return the gate
     */
    private Gate gate(String queue, boolean serial) {
        return serial ? gates.computeIfAbsent(queue + "\u0000serial", q -> new Gate(1))
                : gates.computeIfAbsent(queue, q -> new Gate(permits));
    }

    /** A running claim ends: its permit goes to the next waiting request. */
    private static void release(Gate gate) {
        synchronized (gate) {
            gate.running--;
            gate.notifyAll();
        }
    }

    /** @return the exception for a claimer interrupted while it waits; its interrupt flag is set again */
    private static TransientRowQueueException interrupted(String queue, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new TransientRowQueueException("interrupted while waiting to claim from " + queue, e);
    }

    /** Takes the runner's own request and the compatible ones waiting, oldest first, within the batch limits. */
    private static Batch take(Gate gate, Request own) {
        gate.waiting.remove(own);
        Batch batch = new Batch(own);
        for (Iterator<Request> it = gate.waiting.iterator(); it.hasNext(); ) {
            Request r = it.next();
            if (batch.fits(r)) {
                it.remove();
                batch.add(r);
            }
        }
        return batch;
    }

    /** Requests taken to run together, and what they add up to. */
    private static final class Batch {
        private final List<Request> requests = new ArrayList<>();
        private final Set<Long> acking = new HashSet<>();
        private final long leaseMs;
        private final Object rule;
        private int jobs;
        private int acks;

        private Batch(Request first) {
            leaseMs = first.leaseMs;
            rule = first.rule;
            add(first);
        }

        /** Same lease and rule, within {@link Validation#MAX_BATCH} jobs and acks, and no job acked twice. */
        private boolean fits(Request r) {
            if (r.leaseMs != leaseMs || !java.util.Objects.equals(r.rule, rule) || jobs + r.max > Validation.MAX_BATCH
                    || acks + r.ids.length > Validation.MAX_BATCH) {
                return false;
            }
            for (long id : r.ids) {
                if (acking.contains(id)) {
                    return false;
                }
            }
            return true;
        }

        private void add(Request r) {
            r.taken = true;
            requests.add(r);
            jobs += r.max;
            acks += r.ids.length;
            for (long id : r.ids) {
                acking.add(id);
            }
        }
    }

    /**
     * Runs the batch's one claim and hands out its jobs and acks (a batch of one request gets exactly what the claim
     * returned). A failure is the running request's failure. The requests that rode along get it too, unless it is a
     * retryable one ({@link #givesBack}) and they have not been given back before: then nothing of the statement took
     * effect, and they go back to the head of the queue, in their order, to run again (once) with the next permit.
     * One conflict (a deadlock, a serialization failure that outlasted the executor's retries, an interrupt of the
     * running thread) thus no longer fails every request that rode along.
     */
    private static void serve(Gate gate, Batch batch, Claimer claimer) {
        long[] ids = new long[batch.acks];
        long[] tokens = new long[batch.acks];
        int i = 0;
        for (Request r : batch.requests) {
            System.arraycopy(r.ids, 0, ids, i, r.ids.length);
            System.arraycopy(r.tokens, 0, tokens, i, r.tokens.length);
            i += r.ids.length;
        }
        AckedAndClaimed all;
        try {
            all = claimer.run(ids, tokens, batch.jobs, batch.leaseMs);
        } catch (RuntimeException | Error e) { // every request must end, or its thread would wait for ever
            boolean giveBack = givesBack(e);
            synchronized (gate) {
                List<Request> back = new ArrayList<>();
                for (int k = 0; k < batch.requests.size(); k++) {
                    Request r = batch.requests.get(k);
                    if (k > 0 && giveBack && !r.givenBack) {
                        r.givenBack = true;
                        r.taken = false;
                        back.add(r);
                    } else {
                        r.failure = e;
                        r.done = true;
                    }
                }
                for (int k = back.size() - 1; k >= 0; k--) {
                    gate.waiting.addFirst(back.get(k));
                }
                gate.notifyAll();
            }
            return;
        }
        List<Job> jobs = all.claimed();
        int next = 0;
        for (Request r : batch.requests) {
            int end = Math.min(jobs.size(), next + r.max);
            Set<Long> acked = new HashSet<>();
            for (long id : r.ids) {
                if (all.acked().contains(id)) {
                    acked.add(id);
                }
            }
            r.result = new AckedAndClaimed(acked, List.copyOf(jobs.subList(next, end)));
            next = end;
            r.done = true;
        }
    }

    /**
     * @return whether a failed combined claim certainly took no effect and may be run again for the requests that
     * rode along: a transient failure, but not a connection lost while it could have committed
     */
    private static boolean givesBack(Throwable e) {
        return e instanceof TransientRowQueueException;
    }

    /**
     * Waits, uninterruptibly, until another thread served the request or gave it back.
     *
     * @return whether the thread was interrupted meanwhile (the caller sets the flag again)
     */
    private static boolean awaitServedOrReturned(Gate gate, Request request) {
        boolean interrupted = false;
        while (request.taken && !request.done) {
            try {
                gate.wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        return interrupted;
    }

    private static AckedAndClaimed outcome(Request request) {
        if (request.failure instanceof RuntimeException e) {
            throw e;
        }
        if (request.failure instanceof Error e) {
            throw e;
        }
        return request.result;
    }
}
