package dev.rowqueue.tck.faults;

import dev.rowqueue.JobInfo;
import dev.rowqueue.JobState;
import dev.rowqueue.RingEntry;
import dev.rowqueue.tck.faults.Anomaly.Kind;
import dev.rowqueue.tck.faults.History.Run;
import dev.rowqueue.tck.faults.History.Type;
import dev.rowqueue.tck.faults.History.Write;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks a whole {@link History} against what the database holds at the end ({@link FinalState}), in the manner of
 * Jepsen's checkers: every operation's invocation, return and outcome is known, and the checker proves that nothing
 * rowqueue promises was broken, whatever faults happened meanwhile:
 * <ul>
 *   <li><b>jobs</b>: every enqueue acknowledged OK ran, or is still in its queue and claimable; no job ran or exists
 *       whose enqueue failed ({@code TransientRowQueueException}) or was never called, and none ran before its
 *       enqueue was called; no enqueue is in two jobs; the id an enqueue reported is the job's; no job was handed out
 *       while another consumer's lease on it certainly lived, nor after an ack of it returned {@code true};</li>
 *   <li><b>per-key limits</b>: at no moment were more jobs of a key certainly leased than the queue's limit;</li>
 *   <li><b>rings</b>: each group holds consecutive numbers, as many as its capacity allows; every push acknowledged
 *       with a number the ring still keeps is there with its payload, older ones were evicted in order; no entry
 *       comes from a push that failed or was never made; no number was reported twice, and a push that returned
 *       before another was called has the smaller number;</li>
 *   <li><b>counters</b>: the value lies between the acknowledged increments and those plus the ones of unknown
 *       outcome; no value was returned twice, and values grow in real-time order;</li>
 *   <li><b>schedules</b>: no slot enqueued two jobs;</li>
 *   <li><b>errors</b>: every failure was a {@code TransientRowQueueException} (nothing applied, accounted as failed)
 *       or an {@code UnknownCommitOutcomeException} (accounted as either).</li>
 * </ul>
 * "Certainly" is what the history proves: a lease lived from the moment the claim returned (it had committed by then)
 * until the earlier of its end and the moment the consumer let go; an operation that returned before another was
 * called came first. Times within {@link #slack} of each other are not told apart (the database's clock counts
 * milliseconds).
 */
public final class HistoryChecker {

    private final Map<String, Integer> ringCapacities;
    private final Map<String, Integer> keyLimits;
    private final Set<String> slotQueues;
    private final Duration slack;

    /**
     * @param ringCapacities the capacity of each ring, by name
     * @param keyLimits      the per-key limit of each queue that has one, by name
     * @param slotQueues     the queues schedules enqueue into, whose payloads name a slot
     * @param slack          times closer than this are not ordered
     */
    public HistoryChecker(Map<String, Integer> ringCapacities, Map<String, Integer> keyLimits,
                          Set<String> slotQueues, Duration slack) {
        this.ringCapacities = Map.copyOf(ringCapacities);
        this.keyLimits = Map.copyOf(keyLimits);
        this.slotQueues = Set.copyOf(slotQueues);
        this.slack = slack;
    }

    /**
     * @param history the history
     * @param end     what the database holds at the end
     * @return what broke a promise; empty for a valid history
     */
    public List<Anomaly> check(History history, FinalState end) {
        List<Anomaly> found = new ArrayList<>();
        List<Write> writes = history.writes();
        List<Run> runs = history.runs();
        jobs(writes, runs, end, found);
        keyLimits(runs, found);
        rings(writes, end, found);
        counters(writes, end, found);
        slots(end, found);
        errors(history, found);
        return found;
    }

    // ---------------------------------------------------------------- jobs

    private void jobs(List<Write> writes, List<Run> runs, FinalState end, List<Anomaly> found) {
        Map<String, Write> enqueues = new HashMap<>();
        for (Write w : writes) {
            if (w.type() == Type.ENQUEUE && enqueues.put(w.payload(), w) != null) {
                throw new IllegalArgumentException("two enqueues of payload " + w.payload() + ": payloads must be"
                        + " unique in a history");
            }
        }
        Map<String, List<Run>> runsByPayload = runs.stream().collect(Collectors.groupingBy(Run::payload));
        Map<String, List<JobInfo>> left = new HashMap<>();
        end.jobs().forEach((queue, jobs) -> {
            if (!slotQueues.contains(queue)) {
                jobs.forEach(j -> left.computeIfAbsent(j.payload(), p -> new ArrayList<>()).add(j));
            }
        });
        Set<String> payloads = new HashSet<>(runsByPayload.keySet());
        payloads.addAll(left.keySet());
        for (String payload : payloads) {
            Write w = enqueues.get(payload);
            List<Run> ran = runsByPayload.getOrDefault(payload, List.of());
            List<JobInfo> there = left.getOrDefault(payload, List.of());
            if (w == null) {
                found.add(new Anomaly(Kind.PHANTOM_JOB, payload + " is in job(s) " + ids(ran, there)
                        + " but was never enqueued"));
                continue;
            }
            if (w.outcome() == Outcome.FAILED) {
                found.add(new Anomaly(Kind.PHANTOM_JOB, payload + " is in job(s) " + ids(ran, there)
                        + " although its enqueue failed: " + w));
            }
            Set<Long> ids = ids(ran, there);
            if (ids.size() > 1) {
                found.add(new Anomaly(Kind.DUPLICATE_JOB, payload + " was written " + ids.size() + " times: jobs "
                        + ids));
            } else if (w.outcome() == Outcome.OK && !ids.contains(w.result())) {
                found.add(new Anomaly(Kind.DUPLICATE_JOB, payload + ": its enqueue reported job " + w.result()
                        + " but the payload is in job " + ids));
            }
            for (Run r : ran) {
                if (r.claimed().isBefore(w.invoked().minus(slack))) {
                    found.add(new Anomaly(Kind.RUN_BEFORE_ENQUEUE, payload + " ran at " + r.claimed()
                            + ", before its enqueue was called at " + w.invoked()));
                }
            }
            for (JobInfo j : there) {
                if (j.state() == JobState.DEAD) {
                    found.add(new Anomaly(Kind.LIVENESS, payload + " (job " + j.id() + ") is dead after "
                            + j.failures() + " attempts: " + j.lastError()));
                }
            }
        }
        for (Write w : enqueues.values()) {
            if (w.outcome() == Outcome.OK && !runsByPayload.containsKey(w.payload())
                    && !left.containsKey(w.payload())) {
                found.add(new Anomaly(Kind.LOST_JOB, w.payload() + " (job " + w.result() + " of " + w.target()
                        + ", acknowledged at " + w.returned() + ") never ran and is not in the queue"));
            }
        }
        Map<String, List<Run>> byJob = runs.stream().collect(Collectors.groupingBy(r -> r.queue() + "#" + r.id()));
        for (List<Run> handlings : byJob.values()) {
            List<Run> sorted = new ArrayList<>(handlings);
            sorted.sort(Comparator.comparing(Run::claimed));
            for (int j = 1; j < sorted.size(); j++) {
                Run later = sorted.get(j);
                for (int i = 0; i < j; i++) {
                    Run earlier = sorted.get(i);
                    if (earlier.acked() && earlier.ackReturned() != null
                            && later.claimed().isAfter(earlier.ackReturned().plus(slack))) {
                        found.add(new Anomaly(Kind.RUN_AFTER_ACK, "job " + later.id() + " of " + later.queue()
                                + " was handed to " + later.consumer() + " at " + later.claimed() + " after "
                                + earlier.consumer() + "'s ack returned true at " + earlier.ackReturned()));
                    } else if (later.claimed().isBefore(earlier.certainlyLeasedUntil().minus(slack))) {
                        found.add(new Anomaly(Kind.DOUBLE_RUN, "job " + later.id() + " of " + later.queue()
                                + " was handed to " + later.consumer() + " at " + later.claimed() + " while "
                                + earlier.consumer() + "'s lease from " + earlier.claimed() + " lived until "
                                + earlier.certainlyLeasedUntil()));
                    }
                }
            }
        }
    }

    private static Set<Long> ids(List<Run> ran, List<JobInfo> there) {
        Set<Long> ids = new java.util.TreeSet<>();
        ran.forEach(r -> ids.add(r.id()));
        there.forEach(j -> ids.add(j.id()));
        return ids;
    }

    private void keyLimits(List<Run> runs, List<Anomaly> found) {
        Map<String, List<Run>> byKey = new LinkedHashMap<>();
        for (Run r : runs) {
            if (r.key() != null && keyLimits.containsKey(r.queue())) {
                byKey.computeIfAbsent(r.queue() + "\u0000" + r.key(), k -> new ArrayList<>()).add(r);
            }
        }
        for (List<Run> leases : byKey.values()) {
            int limit = keyLimits.get(leases.get(0).queue());
            List<Run> sorted = new ArrayList<>(leases);
            sorted.sort(Comparator.comparing(Run::claimed));
            List<Run> live = new ArrayList<>();
            for (Run r : sorted) {
                live.removeIf(l -> !l.certainlyLeasedUntil().minus(slack).isAfter(r.claimed()));
                live.add(r);
                if (live.size() > limit) {
                    found.add(new Anomaly(Kind.KEY_LIMIT_EXCEEDED, live.size() + " jobs of key " + r.key() + " of "
                            + r.queue() + " leased at " + r.claimed() + " (limit " + limit + "): jobs "
                            + live.stream().map(l -> l.id() + " by " + l.consumer()).toList()));
                }
            }
        }
    }

    // ---------------------------------------------------------------- rings

    private void rings(List<Write> writes, FinalState end, List<Anomaly> found) {
        Map<String, List<Write>> pushes = writes.stream().filter(w -> w.type() == Type.PUSH)
                .collect(Collectors.groupingBy(Write::target, TreeMap::new, Collectors.toList()));
        for (Map.Entry<String, List<RingEntry>> e : end.rings().entrySet()) {
            pushes.putIfAbsent(e.getKey(), List.of());
        }
        for (Map.Entry<String, List<Write>> e : pushes.entrySet()) {
            String target = e.getKey();
            String ring = target.substring(0, target.indexOf('/'));
            Integer capacity = ringCapacities.get(ring);
            List<RingEntry> entries = end.rings().get(target);
            if (capacity == null || entries == null) {
                throw new IllegalArgumentException("no capacity or final entries for ring " + target);
            }
            checkRing(target, capacity, e.getValue(), entries, found);
        }
    }

    private void checkRing(String target, int capacity, List<Write> pushes, List<RingEntry> entries,
                           List<Anomaly> found) {
        long newest = entries.isEmpty() ? 0 : entries.get(entries.size() - 1).seq();
        long oldest = entries.isEmpty() ? newest + 1 : entries.get(0).seq();
        if (entries.size() != Math.min(capacity, newest)) {
            found.add(new Anomaly(Kind.RING_DISORDER, target + " holds " + entries.size() + " entries up to number "
                    + newest + ", capacity " + capacity));
        }
        Map<Long, String> held = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            RingEntry r = entries.get(i);
            held.put(r.seq(), r.payload());
            if (r.seq() != oldest + i) {
                found.add(new Anomaly(Kind.RING_DISORDER, target + ": number " + r.seq() + " where " + (oldest + i)
                        + " was due (a gap or a repeat)"));
            }
        }
        Map<String, Write> byPayload = new HashMap<>();
        Map<Long, Write> byNumber = new HashMap<>();
        for (Write w : pushes) {
            byPayload.put(w.payload(), w);
            if (w.outcome() != Outcome.OK) {
                continue;
            }
            Write before = byNumber.put(w.result(), w);
            if (before != null) {
                found.add(new Anomaly(Kind.DUPLICATE_NUMBER, target + ": number " + w.result() + " reported for "
                        + before.payload() + " and " + w.payload()));
            }
            if (w.result() > newest || w.result() >= oldest && !w.payload().equals(held.get(w.result()))) {
                found.add(new Anomaly(Kind.LOST_PUSH, target + ": push " + w.payload() + " acknowledged as number "
                        + w.result() + " at " + w.returned() + ", which holds " + held.get(w.result())
                        + " (the ring keeps " + oldest + " to " + newest + ")"));
            }
        }
        Set<String> seen = new HashSet<>();
        for (RingEntry r : entries) {
            if (!seen.add(r.payload())) {
                found.add(new Anomaly(Kind.RING_DISORDER, target + ": " + r.payload() + " is held twice (a push"
                        + " applied twice), again as entry " + r.seq()));
            }
            Write w = byPayload.get(r.payload());
            if (w == null || w.outcome() == Outcome.FAILED) {
                found.add(new Anomaly(Kind.RING_DISORDER, target + ": entry " + r.seq() + " holds " + r.payload()
                        + (w == null ? ", which was never pushed" : ", whose push failed: " + w)));
            } else if (w.outcome() == Outcome.OK && w.result() != r.seq()) {
                found.add(new Anomaly(Kind.RING_DISORDER, target + ": " + r.payload() + " is entry " + r.seq()
                        + " but was acknowledged as number " + w.result()));
            }
        }
        realTimeOrder(target, pushes, Kind.DUPLICATE_NUMBER, found);
    }

    /**
     * A write that returned before another was called must have the smaller number: numbers follow real time.
     */
    private void realTimeOrder(String target, List<Write> writes, Kind kind, List<Anomaly> found) {
        List<Write> ok = writes.stream().filter(w -> w.outcome() == Outcome.OK).toList();
        List<Write> byReturn = new ArrayList<>(ok);
        byReturn.sort(Comparator.comparing(Write::returned));
        List<Write> byInvoke = new ArrayList<>(ok);
        byInvoke.sort(Comparator.comparing(Write::invoked));
        int next = 0;
        Write highest = null;
        for (Write w : byInvoke) {
            while (next < byReturn.size() && byReturn.get(next).returned().isBefore(w.invoked().minus(slack))) {
                Write done = byReturn.get(next++);
                if (highest == null || done.result() > highest.result()) {
                    highest = done;
                }
            }
            if (highest != null && w.result() <= highest.result()) {
                found.add(new Anomaly(kind, target + ": " + w.payload() + " got " + w.result() + " though "
                        + highest.payload() + " had returned " + highest.result() + " at " + highest.returned()
                        + ", before it was called at " + w.invoked()));
            }
        }
    }

    // ---------------------------------------------------------------- counters, slots, errors

    private void counters(List<Write> writes, FinalState end, List<Anomaly> found) {
        Map<String, List<Write>> increments = writes.stream().filter(w -> w.type() == Type.INCREMENT)
                .collect(Collectors.groupingBy(Write::target));
        for (Map.Entry<String, List<Write>> e : increments.entrySet()) {
            Long value = end.counters().get(e.getKey());
            if (value == null) {
                throw new IllegalArgumentException("no final value of counter " + e.getKey());
            }
            long ok = e.getValue().stream().filter(w -> w.outcome() == Outcome.OK).count();
            long unknown = e.getValue().stream().filter(w -> w.outcome() == Outcome.UNKNOWN
                    || w.outcome() == Outcome.ERROR).count();
            if (value < ok || value > ok + unknown) {
                found.add(new Anomaly(Kind.COUNTER, e.getKey() + " is " + value + " after " + ok
                        + " acknowledged increments and " + unknown + " of unknown outcome"));
            }
            Map<Long, Write> values = new HashMap<>();
            for (Write w : e.getValue()) {
                if (w.outcome() == Outcome.OK && values.put(w.result(), w) != null) {
                    found.add(new Anomaly(Kind.COUNTER, e.getKey() + ": value " + w.result()
                            + " returned by two increments"));
                }
                if (w.outcome() == Outcome.OK && w.result() > value) {
                    found.add(new Anomaly(Kind.COUNTER, e.getKey() + ": an increment returned " + w.result()
                            + ", above the final value " + value));
                }
            }
            realTimeOrder(e.getKey(), e.getValue(), Kind.COUNTER, found);
        }
    }

    private void slots(FinalState end, List<Anomaly> found) {
        for (String queue : slotQueues) {
            Map<String, Long> fires = end.jobs().getOrDefault(queue, List.of()).stream()
                    .collect(Collectors.groupingBy(JobInfo::payload, Collectors.counting()));
            fires.forEach((slot, n) -> {
                if (n > 1) {
                    found.add(new Anomaly(Kind.SLOT_FIRED_TWICE, queue + ": slot " + slot + " enqueued " + n
                            + " jobs"));
                }
            });
        }
    }

    private static void errors(History history, List<Anomaly> found) {
        Map<String, Long> undocumented = new TreeMap<>();
        for (History.Call c : history.calls()) {
            if (c.outcome() == Outcome.ERROR) {
                undocumented.merge(c.role() + ": " + c.error(), 1L, Long::sum);
            }
        }
        undocumented.forEach((what, n) -> found.add(new Anomaly(Kind.UNDOCUMENTED_ERROR, n + " x " + what)));
    }

    /**
     * @param found anomalies
     * @return their number by kind
     */
    public static Map<Kind, Long> count(List<Anomaly> found) {
        Map<Kind, Long> counts = new java.util.EnumMap<>(Kind.class);
        found.forEach(a -> counts.merge(a.kind(), 1L, Long::sum));
        return counts;
    }
}
