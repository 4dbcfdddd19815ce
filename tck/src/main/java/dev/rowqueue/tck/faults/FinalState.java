package dev.rowqueue.tck.faults;

import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RowQueues;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the database holds once a workload has ended, read through rowqueue's own API: the jobs left in each queue
 * (every state), each ring group's entries, each counter's value.
 *
 * @param jobs     the jobs left, by queue
 * @param rings    the entries, oldest first, by {@code ring/group}
 * @param counters the values, by {@code counters/key}
 */
public record FinalState(Map<String, List<JobInfo>> jobs, Map<String, List<RingEntry>> rings,
                         Map<String, Long> counters) {

    /** Copies the maps. */
    public FinalState {
        jobs = Map.copyOf(jobs);
        rings = Map.copyOf(rings);
        counters = Map.copyOf(counters);
    }

    /**
     * Reads what the database holds.
     *
     * @param rq       rowqueue on the database
     * @param queues   the work queues to list
     * @param rings    the {@code ring/group} pairs to read, with the ring's capacity
     * @param counters the {@code counters/key} pairs to read
     * @return the state
     */
    public static FinalState read(RowQueues rq, List<String> queues, Map<String, Integer> rings,
                                  List<String> counters) {
        Map<String, List<JobInfo>> jobs = new LinkedHashMap<>();
        for (String q : queues) {
            List<JobInfo> all = new ArrayList<>();
            Optional<JobQuery> query = Optional.of(JobQuery.all().oldestFirst().withLimit(JobQuery.MAX_LIMIT));
            while (query.isPresent()) {
                JobPage page = rq.workQueue(q).jobs(query.get());
                all.addAll(page.jobs());
                query = page.next();
            }
            jobs.put(q, all);
        }
        Map<String, List<RingEntry>> entries = new LinkedHashMap<>();
        rings.forEach((ringAndGroup, capacity) -> {
            String[] parts = ringAndGroup.split("/", 2);
            entries.put(ringAndGroup, rq.ring(parts[0], capacity).oldestFirst(parts[1]));
        });
        Map<String, Long> values = new LinkedHashMap<>();
        for (String c : counters) {
            String[] parts = c.split("/", 2);
            values.put(c, rq.counters(parts[0]).get(parts[1]));
        }
        return new FinalState(jobs, entries, values);
    }
}
