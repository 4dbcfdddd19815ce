package dev.rowqueue.tck.faults;

import dev.rowqueue.JobInfo;
import dev.rowqueue.JobState;
import dev.rowqueue.RingEntry;
import dev.rowqueue.tck.faults.Anomaly.Kind;
import dev.rowqueue.tck.faults.History.Run;
import dev.rowqueue.tck.faults.History.Type;
import dev.rowqueue.tck.faults.History.Write;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The checker's own mutation test: a valid history passes, and each history broken in one way is reported with
 * exactly that kind of anomaly. Histories are written by hand, with times in milliseconds after {@link #T0}.
 */
class HistoryCheckerTest {

    private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    private static final String Q = "q_jobs";
    private static final String K = "q_keyed";

    private final History h = new History();
    private final Map<String, List<JobInfo>> left = new HashMap<>(Map.of(Q, new ArrayList<>(), K,
            new ArrayList<>(), "q_ticks", new ArrayList<>()));
    private final Map<String, List<RingEntry>> rings = new HashMap<>(Map.of("ring/g", new ArrayList<>()));
    private final Map<String, Long> counters = new HashMap<>(Map.of("count/c", 0L));

    private static Instant at(long ms) {
        return T0.plusMillis(ms);
    }

    private void enqueue(String queue, String payload, String key, long from, long to, Outcome o, long id) {
        h.add(new Write(Type.ENQUEUE, queue, payload, key, at(from), at(to), o, o == Outcome.OK ? id : -1));
    }

    /** A consumer that claimed at {@code claimed}, acked (true) at {@code ackAt}, with a lease until {@code until}. */
    private void run(String queue, long id, String payload, String key, String who, long claimed, long until,
                     long ackAt) {
        h.run(new Run(queue, id, payload, key, who, at(claimed), at(until), at(ackAt), Outcome.OK, true,
                at(ackAt + 1), false));
    }

    private void push(String payload, long from, long to, Outcome o, long seq) {
        h.add(new Write(Type.PUSH, "ring/g", payload, null, at(from), at(to), o, o == Outcome.OK ? seq : -1));
    }

    private void increment(long from, long to, Outcome o, long value) {
        h.add(new Write(Type.INCREMENT, "count/c", "c", null, at(from), at(to), o, o == Outcome.OK ? value : -1));
    }

    private static JobInfo job(long id, String payload, JobState state) {
        return new JobInfo(id, state, payload, 0, 0, T0, T0, 0, null, null, null, null);
    }

    /** A valid history of every kind of write, to be broken by each test. */
    private void valid() {
        enqueue(Q, "a", null, 0, 10, Outcome.OK, 1);
        enqueue(Q, "b", null, 5, 20, Outcome.UNKNOWN, -1);
        enqueue(Q, "c", null, 30, 40, Outcome.FAILED, -1);
        enqueue(Q, "d", null, 50, 60, Outcome.OK, 4);
        run(Q, 1, "a", null, "c1", 15, 3_015, 18);
        run(Q, 2, "b", null, "c2", 25, 3_025, 28);
        left.get(Q).add(job(4, "d", JobState.READY));
        enqueue(K, "k1", "x", 0, 5, Outcome.OK, 10);
        enqueue(K, "k2", "x", 0, 5, Outcome.OK, 11);
        run(K, 10, "k1", "x", "c1", 10, 3_010, 20);
        run(K, 11, "k2", "x", "c2", 21, 3_021, 30);
        push("p1", 0, 5, Outcome.OK, 1);
        push("p2", 6, 9, Outcome.OK, 2);
        push("p3", 10, 12, Outcome.FAILED, -1);
        push("p4", 10, 14, Outcome.UNKNOWN, -1);
        push("p5", 15, 18, Outcome.OK, 4);
        rings.get("ring/g").addAll(List.of(new RingEntry(2, "p2", T0), new RingEntry(3, "p4", T0),
                new RingEntry(4, "p5", T0)));
        increment(0, 5, Outcome.OK, 1);
        increment(6, 8, Outcome.UNKNOWN, -1);
        increment(9, 12, Outcome.OK, 3);
        counters.put("count/c", 3L);
        left.get("q_ticks").addAll(List.of(job(20, "slot1", JobState.READY), job(21, "slot2", JobState.READY)));
    }

    private List<Anomaly> check() {
        return new HistoryChecker(Map.of("ring", 3), Map.of(K, 1), Set.of("q_ticks"), Duration.ofMillis(2))
                .check(h, new FinalState(left, rings, counters));
    }

    private void expect(Kind kind) {
        List<Anomaly> found = check();
        assertEquals(List.of(kind), found.stream().map(Anomaly::kind).toList(), found::toString);
    }

    @Test
    void a_valid_history_has_no_anomaly() {
        valid();
        assertEquals(List.of(), check());
    }

    @Test
    void an_acknowledged_job_that_never_ran_and_is_gone_is_lost() {
        valid();
        left.get(Q).clear();
        expect(Kind.LOST_JOB);
    }

    @Test
    void a_job_whose_enqueue_failed_must_not_run() {
        valid();
        run(Q, 3, "c", null, "c1", 45, 3_045, 46);
        expect(Kind.PHANTOM_JOB);
    }

    @Test
    void a_job_nobody_enqueued_is_a_phantom() {
        valid();
        left.get(Q).add(job(9, "never", JobState.READY));
        expect(Kind.PHANTOM_JOB);
    }

    @Test
    void one_enqueue_in_two_jobs_is_a_duplicate() {
        valid();
        left.get(Q).add(job(5, "d", JobState.READY));
        expect(Kind.DUPLICATE_JOB);
    }

    @Test
    void a_job_handed_out_while_a_lease_lived_is_a_double_run() {
        valid();
        h.run(new Run(Q, 4, "d", null, "c1", at(70), at(3_070), null, Outcome.FAILED, false, at(80), false));
        h.run(new Run(Q, 4, "d", null, "c2", at(1_000), at(4_000), at(1_001), Outcome.OK, true, at(1_002), false));
        expect(Kind.DOUBLE_RUN);
    }

    @Test
    void a_second_handling_after_the_lease_ended_is_fine() {
        valid();
        h.run(new Run(Q, 4, "d", null, "c1", at(70), at(3_070), null, Outcome.FAILED, false, at(80), false));
        h.run(new Run(Q, 4, "d", null, "c2", at(3_080), at(6_080), at(3_081), Outcome.OK, true, at(3_082), false));
        assertEquals(List.of(), check());
    }

    @Test
    void a_job_handed_out_after_its_ack_returned_true() {
        valid();
        run(Q, 1, "a", null, "c2", 5_000, 8_000, 5_001);
        expect(Kind.RUN_AFTER_ACK);
    }

    @Test
    void a_run_before_the_enqueue_was_called() {
        valid();
        left.get(Q).clear();
        enqueue(Q, "late", null, 100, 110, Outcome.OK, 7);
        run(Q, 4, "d", null, "c1", 65, 3_065, 66);
        run(Q, 7, "late", null, "c1", 50, 3_050, 52);
        expect(Kind.RUN_BEFORE_ENQUEUE);
    }

    @Test
    void two_jobs_of_one_key_leased_at_once_exceed_a_limit_of_one() {
        valid();
        enqueue(K, "k3", "x", 0, 5, Outcome.OK, 12);
        run(K, 12, "k3", "x", "c3", 25, 3_025, 27);
        expect(Kind.KEY_LIMIT_EXCEEDED);
    }

    @Test
    void an_acknowledged_push_the_ring_still_keeps_must_be_there() {
        valid();
        rings.get("ring/g").set(0, new RingEntry(2, "p4", T0));
        List<Kind> kinds = check().stream().map(Anomaly::kind).toList();
        assertEquals(List.of(Kind.LOST_PUSH, Kind.RING_DISORDER), kinds);
    }

    @Test
    void a_gap_in_the_ring_is_disorder() {
        valid();
        rings.get("ring/g").remove(1);
        List<Kind> kinds = check().stream().map(Anomaly::kind).distinct().toList();
        assertEquals(List.of(Kind.RING_DISORDER), kinds);
    }

    @Test
    void a_failed_push_in_the_ring_is_disorder() {
        valid();
        rings.get("ring/g").set(1, new RingEntry(3, "p3", T0));
        expect(Kind.RING_DISORDER);
    }

    @Test
    void one_number_for_two_pushes() {
        valid();
        push("p6", 20, 22, Outcome.OK, 4);
        List<Kind> kinds = check().stream().map(Anomaly::kind).distinct().toList();
        assertEquals(List.of(Kind.DUPLICATE_NUMBER, Kind.LOST_PUSH), kinds);
    }

    @Test
    void numbers_must_follow_real_time() {
        valid();
        h.add(new Write(Type.PUSH, "ring/g", "p0", null, at(7), at(8), Outcome.OK, 1));
        List<Kind> kinds = check().stream().map(Anomaly::kind).distinct().toList();
        assertEquals(List.of(Kind.DUPLICATE_NUMBER), kinds);
    }

    @Test
    void a_counter_beyond_its_increments() {
        valid();
        counters.put("count/c", 5L);
        expect(Kind.COUNTER);
    }

    @Test
    void a_counter_value_returned_twice() {
        valid();
        increment(13, 15, Outcome.OK, 3);
        counters.put("count/c", 4L);
        expect(Kind.COUNTER);
    }

    @Test
    void a_slot_that_fired_twice() {
        valid();
        left.get("q_ticks").add(job(22, "slot2", JobState.READY));
        expect(Kind.SLOT_FIRED_TWICE);
    }

    @Test
    void a_failure_that_is_not_a_rowqueue_exception() {
        valid();
        h.add(new History.Call("claim", at(0), at(1), Outcome.ERROR, "not a RowQueueException: NPE"));
        expect(Kind.UNDOCUMENTED_ERROR);
    }

    @Test
    void a_dead_job_is_a_liveness_failure() {
        valid();
        left.get(Q).set(0, job(4, "d", JobState.DEAD));
        expect(Kind.LIVENESS);
    }
}
