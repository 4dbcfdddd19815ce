package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Counters;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 23: producers, a ring pusher, a counter incrementer, plain consumers and a {@link Worker} run on a
 * single-primary Group Replication group of three MySQL 9.x members ({@link GroupReplicationCluster}) through one
 * multi-host URL (Connector/J, members in election order, {@code failOverReadOnly=false}) while the primary is killed
 * with SIGKILL; the group elects member 2 (weight 70) and the load carries on there. Afterwards, on the new primary:
 * every enqueue and push reported successful is there (or its job ran), no push number was handed out twice, the
 * counter is the reported increments plus at most the unknown ones, no job ran again while an earlier run's lease
 * lived or after an ack reported {@code true}, every error was {@link TransientRowQueueException} or
 * {@link UnknownCommitOutcomeException}, and every role succeeded again after the kill by itself. The figures (time to
 * the new primary, to the first write after the kill, errors by vendor code) are printed.
 */
class MySqlGroupReplicationFailoverTest {

    private static final String DATABASE = "failover";
    private static final Duration LEASE = Duration.ofSeconds(3);

    /** One run of a job: by whom, when, until when its lease lived, and whether an ack said true. */
    record Run(String payload, long id, long startNanos, Instant leaseUntil, boolean leaseLost, Long ackedNanos) {
    }

    private final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
    private final Map<String, List<String>> samples = new ConcurrentHashMap<>();
    private final Map<String, Long> lastSuccess = new ConcurrentHashMap<>();

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void killing_the_primary_loses_nothing_acknowledged_and_every_role_resumes_on_the_new_primary() throws Exception {
        try (GroupReplicationCluster gr = GroupReplicationCluster.start(GroupReplicationCluster.Mode.SINGLE_PRIMARY)) {
            gr.createDatabase(DATABASE);
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(gr.multiHostUrl(DATABASE) + "&failOverReadOnly=false&connectTimeout=2000"
                    + "&socketTimeout=30000");
            config.setUsername("root");
            config.setPassword("");
            config.setMaximumPoolSize(16);
            config.setConnectionTimeout(30_000);
            config.setPoolName("gr-failover");
            Set<String> enqueued = ConcurrentHashMap.newKeySet();
            Set<String> enqueueUnknown = ConcurrentHashMap.newKeySet();
            Map<Long, String> pushed = new ConcurrentHashMap<>();
            Set<Long> pushNumbersTwice = ConcurrentHashMap.newKeySet();
            AtomicLong increments = new AtomicLong();
            AtomicLong incrementsUnknown = new AtomicLong();
            Set<Long> counterValues = ConcurrentHashMap.newKeySet();
            Set<Long> counterValuesTwice = ConcurrentHashMap.newKeySet();
            ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
            AtomicBoolean stop = new AtomicBoolean();
            long killedAt;
            long electedAt;
            try (HikariDataSource ds = new HikariDataSource(config);
                 RowQueues rq = RowQueues.builder(ds).build()) {
                WorkQueue jobs = rq.workQueue("jobs", WorkQueueOptions.defaults().leaseDuration(LEASE));
                RingQueue ring = rq.ring("ring", 1_000_000);
                Counters counters = rq.counters("counters");
                List<Thread> threads = new ArrayList<>();
                for (int p = 0; p < 2; p++) {
                    int producer = p;
                    threads.add(loop("producer" + p, stop, n -> {
                        String payload = "p" + producer + "-" + n;
                        try {
                            jobs.enqueue(payload);
                            enqueued.add(payload);
                            return true;
                        } catch (UnknownCommitOutcomeException e) {
                            enqueueUnknown.add(payload);
                            throw e;
                        }
                    }));
                }
                threads.add(loop("pusher", stop, n -> {
                    long seq = ring.push("g", "r-" + n);
                    if (pushed.putIfAbsent(seq, "r-" + n) != null) {
                        pushNumbersTwice.add(seq);
                    }
                    return true;
                }));
                threads.add(loop("incrementer", stop, n -> {
                    try {
                        long v = counters.increment("k");
                        increments.incrementAndGet();
                        if (!counterValues.add(v)) {
                            counterValuesTwice.add(v);
                        }
                        return true;
                    } catch (UnknownCommitOutcomeException e) {
                        incrementsUnknown.incrementAndGet();
                        throw e;
                    }
                }));
                for (int c = 0; c < 2; c++) {
                    threads.add(loop("consumer" + c, stop, n -> {
                        List<Job> claimed = jobs.claim(4);
                        for (Job job : claimed) {
                            long start = System.nanoTime();
                            Run run = new Run(job.payload(), job.id(), start, job.leaseUntil(), false, null);
                            runs.add(run); // before the ack, which may fail with the ack applied
                            if (jobs.ack(job)) {
                                runs.remove(run);
                                runs.add(new Run(job.payload(), job.id(), start, job.leaseUntil(), false,
                                        System.nanoTime()));
                            }
                        }
                        if (claimed.isEmpty()) {
                            MySqlServer.sleep(5);
                        }
                        return !claimed.isEmpty();
                    }));
                }
                Worker worker = jobs.worker(ctx -> {
                    runs.add(new Run(ctx.payload(), ctx.id(), System.nanoTime(), ctx.leaseUntil(), ctx.leaseLost(),
                            null));
                    lastSuccess.put("worker", System.nanoTime());
                }, WorkerOptions.threads(2));
                threads.forEach(Thread::start);
                worker.start();
                MySqlServer.sleep(3_000);
                long pid = gr.members().get(0).pid();
                killedAt = System.nanoTime();
                killedAtNanos = killedAt;
                gr.members().get(0).kill();
                electedAt = awaitNewPrimary(gr);
                MySqlServer.sleep(8_000);
                stop.set(true);
                for (Thread t : threads) {
                    t.join(60_000);
                }
                worker.close(Duration.ofSeconds(10));
                System.out.printf("[MySqlGroupReplicationFailoverTest] killed member 1 (pid %d)%n", pid);
            }
            // the history, checked on the new primary (member 2)
            List<String> anomalies = new ArrayList<>();
            Set<String> inTable = strings(gr, "SELECT payload FROM " + WorkTables.of("jobs").jobs());
            Set<String> ran = new HashSet<>();
            runs.forEach(r -> ran.add(r.payload()));
            for (String p : enqueued) {
                if (!inTable.contains(p) && !ran.contains(p)) {
                    anomalies.add("enqueue of " + p + " was reported successful but the job is gone and never ran");
                }
            }
            Map<Long, String> ringRows = new HashMap<>();
            try (Connection c = gr.connect(1, DATABASE); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT seq, payload FROM " + RingTables.of("ring").entries())) {
                while (rs.next()) {
                    ringRows.put(rs.getLong(1), rs.getString(2));
                }
            }
            pushed.forEach((seq, payload) -> {
                if (!payload.equals(ringRows.get(seq))) {
                    anomalies.add("push " + seq + " (" + payload + ") was reported successful but the ring has "
                            + ringRows.get(seq));
                }
            });
            pushNumbersTwice.forEach(seq -> anomalies.add("push number " + seq + " was reported twice"));
            long counter = Long.parseLong(strings(gr, "SELECT counter_value FROM "
                    + dev.rowqueue.spi.CounterTable.of("counters").table()).iterator().next());
            if (counter < increments.get() || counter > increments.get() + incrementsUnknown.get()) {
                anomalies.add("counter is " + counter + " after " + increments + " reported increments and "
                        + incrementsUnknown + " of unknown outcome");
            }
            counterValuesTwice.forEach(v -> anomalies.add("counter value " + v + " was returned twice"));
            Map<String, List<Run>> byPayload = new TreeMap<>();
            runs.forEach(r -> byPayload.computeIfAbsent(r.payload(), k -> new ArrayList<>()).add(r));
            int again = 0;
            for (List<Run> rs : byPayload.values()) {
                rs.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
                for (int i = 1; i < rs.size(); i++) {
                    again++;
                    Run first = rs.get(i - 1);
                    Run next = rs.get(i);
                    if (first.ackedNanos() != null) {
                        anomalies.add("job " + next.payload() + " ran again after an ack reported true");
                    }
                    long nextStartMillis = System.currentTimeMillis()
                            - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - next.startNanos());
                    if (!first.leaseLost() && nextStartMillis < first.leaseUntil().toEpochMilli() - 50) {
                        anomalies.add("job " + next.payload() + " ran again " + (first.leaseUntil().toEpochMilli()
                                - nextStartMillis) + " ms before the first run's lease ended");
                    }
                }
            }
            errors.keySet().stream().filter(k -> k.startsWith("other")).forEach(k -> anomalies.add(
                    "unexpected error " + k + " x" + errors.get(k) + ": " + samples.get(k)));
            for (String role : List.of("producer0", "producer1", "pusher", "incrementer", "consumer0", "consumer1",
                    "worker")) {
                Long last = lastSuccess.get(role);
                if (last == null || last < electedAt) {
                    anomalies.add(role + " did not succeed after the new primary was elected");
                }
            }
            long resumedAt = firstSuccessAfter(killedAt);
            String figures = String.format("MySQL %s single-primary group: new primary ONLINE %.1f s after the kill;"
                            + " first write started after the kill succeeded at %.1f s; %d enqueues (%d unknown), %d pushes, %d increments"
                            + " (%d unknown), %d runs (%d repeated); errors %s", gr.version(),
                    (electedAt - killedAt) / 1e9, (resumedAt - killedAt) / 1e9, enqueued.size(),
                    enqueueUnknown.size(), pushed.size(), increments.get(), incrementsUnknown.get(), runs.size(),
                    again, new TreeMap<>(errors));
            System.out.println("[MySqlGroupReplicationFailoverTest] " + figures);
            assertTrue(!enqueued.isEmpty() && !pushed.isEmpty() && increments.get() > 0 && !runs.isEmpty(), figures);
            assertEquals(List.of(), anomalies, figures);
            assertTrue(errors.keySet().stream().anyMatch(k -> k.startsWith("unknown outcome")),
                    "no write in flight at the kill surfaced as UnknownCommitOutcomeException: " + figures);
        }
    }

    private final Map<String, List<Long>> successes = new ConcurrentHashMap<>();
    /** When the primary was killed ({@link System#nanoTime()}), or far in the future before. */
    private volatile long killedAtNanos = Long.MAX_VALUE;

    /** @return when the first write that started after the kill succeeded */
    private long firstSuccessAfter(long nanos) {
        return successes.entrySet().stream().filter(e -> !e.getKey().startsWith("consumer"))
                .flatMap(e -> List.copyOf(e.getValue()).stream()).filter(t -> t > nanos).min(Long::compare)
                .orElse(Long.MAX_VALUE);
    }

    /** An operation of a role's loop: returns whether it did something. */
    @FunctionalInterface
    interface Step {
        boolean run(long n) throws Exception;
    }

    private Thread loop(String role, AtomicBoolean stop, Step step) {
        List<Long> mine = java.util.Collections.synchronizedList(new ArrayList<>());
        successes.put(role, mine);
        return new Thread(() -> {
            long n = 0;
            while (!stop.get()) {
                n++;
                try {
                    long started = System.nanoTime();
                    if (step.run(n)) {
                        long finished = System.nanoTime();
                        lastSuccess.put(role, finished);
                        if (started > killedAtNanos && mine.size() < 100_000) {
                            mine.add(finished);
                        }
                    }
                } catch (UnknownCommitOutcomeException e) {
                    count("unknown outcome " + code(e), e);
                } catch (TransientRowQueueException e) {
                    count("transient " + code(e), e);
                    MySqlServer.sleep(50);
                } catch (RuntimeException e) {
                    count("other " + e.getClass().getSimpleName() + " " + code(e), e);
                    MySqlServer.sleep(50);
                } catch (Exception e) {
                    count("other " + e.getClass().getSimpleName(), e);
                }
            }
        }, role);
    }

    private void count(String key, Throwable e) {
        errors.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        List<String> s = samples.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>()));
        if (s.size() < 2) {
            s.add(String.valueOf(e));
        }
    }

    private static String code(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return String.valueOf(s.getErrorCode());
            }
        }
        return "-";
    }

    /** @return when the group had a new primary, ONLINE (member 2's view) */
    private static long awaitNewPrimary(GroupReplicationCluster gr) {
        long deadline = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                for (String[] r : gr.states(1)) {
                    if ("PRIMARY".equals(r[3]) && "ONLINE".equals(r[2])
                            && !r[1].equals(String.valueOf(gr.members().get(0).port()))) {
                        return System.nanoTime();
                    }
                }
            } catch (IllegalStateException e) {
                // member 2 busy with the view change: ask again
            }
            MySqlServer.sleep(100);
        }
        throw new AssertionError("no new primary within 120 s: " + gr.tails(10));
    }

    private static Set<String> strings(GroupReplicationCluster gr, String sql) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Connection c = gr.connect(1, DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
