package dev.rowqueue.tck.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Everything a workload asked of rowqueue and what came back: every write with its invocation, its return and its
 * {@link Outcome}, every handling of a job by a consumer, and every call of every role. Thread-safe; times are this
 * JVM's wall clock ({@link Instant#now()}), which on one machine is the database's clock too (lease ends come from
 * the database). {@link HistoryChecker} reads it afterwards.
 */
public final class History {

    /** What a write does. */
    public enum Type {
        /** {@code WorkQueue.enqueue}: {@link Write#result()} is the job id. */
        ENQUEUE,
        /** {@code RingQueue.push}: {@link Write#result()} is the sequence number. */
        PUSH,
        /** {@code Counters.increment} by 1: {@link Write#result()} is the value after it. */
        INCREMENT
    }

    /**
     * One write.
     *
     * @param type     what it does
     * @param target   the queue; for a push {@code ring/group}; for an increment {@code counters/key}
     * @param payload  the payload (unique per write of a history), or the counter's key
     * @param key      the job's key, or {@code null}
     * @param invoked  when it was called
     * @param returned when it returned or threw
     * @param outcome  how it ended
     * @param result   the id, sequence number or value when {@link Outcome#OK}, else -1
     */
    public record Write(Type type, String target, String payload, String key, Instant invoked, Instant returned,
                        Outcome outcome, long result) {
    }

    /**
     * One handling of a job by a consumer.
     *
     * @param queue       the queue
     * @param id          the job id
     * @param payload     its payload
     * @param key         its key, or {@code null}
     * @param consumer    who handled it
     * @param claimed     when the consumer had it (the claim returned, or a worker's handler started): its lease
     *                    had begun by then
     * @param leaseUntil  the lease end the consumer knew last
     * @param released    when the consumer let go (an ack or a nack was called, or a worker's handler ended), or
     *                    {@code null} if it never did: its lease lived at least until then, unless it ended first
     * @param ack         how the consumer's ack ended, or {@code null} if it sent none (a worker acks later)
     * @param acked       whether the ack returned {@code true} (the job was deleted under this lease)
     * @param ackReturned when the ack returned, or {@code null}
     * @param leaseLost   whether the consumer was told the lease was lost before it let go
     */
    public record Run(String queue, long id, String payload, String key, String consumer, Instant claimed,
                      Instant leaseUntil, Instant released, Outcome ack, boolean acked, Instant ackReturned,
                      boolean leaseLost) {

        /** @return until when this consumer's lease certainly lived (the earlier of its end and the release) */
        Instant certainlyLeasedUntil() {
            if (leaseLost) {
                return claimed;
            }
            Instant end = leaseUntil == null ? claimed : leaseUntil;
            return released != null && released.isBefore(end) ? released : end;
        }
    }

    /**
     * One call of a role (a write, a claim, an ack, a worker's handler start).
     *
     * @param role     the role, e.g. "enqueue" or "claim"
     * @param invoked  when it was called
     * @param returned when it returned or threw
     * @param outcome  how it ended
     * @param error    the exception's text, or {@code null}
     */
    public record Call(String role, Instant invoked, Instant returned, Outcome outcome, String error) {
    }

    /** An operation that may throw. */
    @FunctionalInterface
    public interface Op<T> {
        /**
         * @return its result
         * @throws Exception whatever it throws
         */
        T run() throws Exception;
    }

    private final ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

    /**
     * Calls an operation as a role, recording the call.
     *
     * @param role the role
     * @param op   the operation
     * @param <T>  its result
     * @return its result, or {@code null} if it threw
     */
    public <T> T call(String role, Op<T> op) {
        return attempt(role, op).value();
    }

    /**
     * The value and outcome of one call.
     *
     * @param value    what it returned, or {@code null} if it threw
     * @param outcome  how it ended
     * @param invoked  when it was called
     * @param returned when it returned or threw
     * @param <T>      the value's type
     */
    public record Attempt<T>(T value, Outcome outcome, Instant invoked, Instant returned) {
    }

    /**
     * Calls an operation as a role, recording the call.
     *
     * @param role the role
     * @param op   the operation
     * @param <T>  its result
     * @return its result and outcome
     */
    public <T> Attempt<T> attempt(String role, Op<T> op) {
        Instant invoked = Instant.now();
        try {
            T value = op.run();
            Instant returned = Instant.now();
            calls.add(new Call(role, invoked, returned, Outcome.OK, null));
            return new Attempt<>(value, Outcome.OK, invoked, returned);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Instant returned = Instant.now();
            calls.add(new Call(role, invoked, returned, Outcome.ERROR, "interrupted"));
            return new Attempt<>(null, Outcome.ERROR, invoked, returned);
        } catch (Exception | AssertionError e) {
            Instant returned = Instant.now();
            Outcome outcome = Outcome.of(e);
            String text = outcome == Outcome.ERROR && !Outcome.documented(e) ? "not a RowQueueException: " + e
                    : e.toString();
            calls.add(new Call(role, invoked, returned, outcome, text));
            return new Attempt<>(null, outcome, invoked, returned);
        }
    }

    /**
     * Makes a write as a role, recording it and the call.
     *
     * @param role    the role
     * @param type    what it does
     * @param target  see {@link Write#target()}
     * @param payload see {@link Write#payload()}
     * @param key     the job's key, or {@code null}
     * @param op      the write, returning its id, sequence number or value
     * @return the result, or -1 if it threw
     */
    public long write(String role, Type type, String target, String payload, String key, Op<Long> op) {
        Attempt<Long> a = attempt(role, op);
        long result = a.value() == null ? -1 : a.value();
        writes.add(new Write(type, target, payload, key, a.invoked(), a.returned(), a.outcome(), result));
        return result;
    }

    /**
     * Records a write made elsewhere (a test of the checker writes histories by hand).
     *
     * @param write the write
     */
    void add(Write write) {
        writes.add(write);
    }

    /**
     * Records a call made elsewhere.
     *
     * @param call the call
     */
    void add(Call call) {
        calls.add(call);
    }

    /**
     * Records a handling of a job.
     *
     * @param run the handling
     */
    public void run(Run run) {
        runs.add(run);
    }

    /** @return the writes so far */
    public List<Write> writes() {
        return new ArrayList<>(writes);
    }

    /** @return the handlings so far */
    public List<Run> runs() {
        return new ArrayList<>(runs);
    }

    /** @return the calls so far */
    public List<Call> calls() {
        return new ArrayList<>(calls);
    }

    /**
     * @param since an instant (a fault's end, the moment a killed server was gone)
     * @return for each role that succeeded with a call invoked at or after {@code since}, when its first such success
     *         returned
     */
    public Map<String, Instant> firstSuccesses(Instant since) {
        Map<String, Instant> first = new TreeMap<>();
        for (Call c : calls) {
            if (c.outcome() == Outcome.OK && !c.invoked().isBefore(since)) {
                first.merge(c.role(), c.returned(), (a, b) -> a.isBefore(b) ? a : b);
            }
        }
        return first;
    }

    /**
     * Waits until each role has succeeded with a call invoked at or after an instant, or the patience runs out.
     *
     * @param roles    the roles
     * @param since    see {@link #firstSuccesses}
     * @param patience the longest wait
     * @return {@link #firstSuccesses} at the end of the wait: a role missing from it never succeeded
     * @throws InterruptedException if interrupted
     */
    public Map<String, Instant> awaitSuccesses(Collection<String> roles, Instant since, Duration patience)
            throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        Map<String, Instant> first = firstSuccesses(since);
        while (!first.keySet().containsAll(roles) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
            first = firstSuccesses(since);
        }
        return first;
    }

    /** @return the number of calls by outcome */
    public Map<Outcome, Long> outcomes() {
        Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
        calls.forEach(c -> counts.merge(c.outcome(), 1L, Long::sum));
        return counts;
    }

    /** @return the number of calls by role and outcome */
    public Map<String, Map<Outcome, Long>> outcomesByRole() {
        Map<String, Map<Outcome, Long>> roles = new TreeMap<>();
        calls.forEach(c -> roles.computeIfAbsent(c.role(), r -> new EnumMap<>(Outcome.class))
                .merge(c.outcome(), 1L, Long::sum));
        return roles;
    }
}
