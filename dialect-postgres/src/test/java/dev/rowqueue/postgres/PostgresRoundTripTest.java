package dev.rowqueue.postgres;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.CountingDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Statements and commits per operation, counted with the TCK's {@link CountingDataSource}: the hot operations are one
 * statement in auto-commit mode, so one round trip and no explicit commit. The measured table is written to
 * {@code target/postgres-round-trips.md}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRoundTripTest {

    private PgFixture db;
    private CountingDataSource counting;
    private RowQueues rq;
    private final Map<String, long[]> measured = new LinkedHashMap<>();

    @BeforeAll
    void open() {
        db = PgFixture.newest("roundtrips");
        counting = new CountingDataSource(db.pool);
        rq = RowQueues.builder(counting).dialectOption("wakeup", "poll").build();
    }

    @AfterAll
    void close() throws IOException {
        rq.close();
        db.close();
        StringBuilder b = new StringBuilder("| Operation | Statements | Commits |\n|---|---|---|\n");
        measured.forEach((op, n) -> b.append("| ").append(op).append(" | ").append(n[0]).append(" | ").append(n[1])
                .append(" |\n"));
        Path out = Paths.get("target", "postgres-round-trips.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "PostgreSQL " + rq.database().productVersion() + ", counted with CountingDataSource\n\n"
                + b, StandardCharsets.UTF_8);
        System.out.println(b);
    }

    /** Runs an operation and records the statements executed and commits made by it. */
    private <T> T count(String operation, Supplier<T> op) {
        long executions = counting.executions();
        long commits = counting.commits();
        T result = op.get();
        measured.put(operation, new long[] {counting.executions() - executions, counting.commits() - commits});
        return result;
    }

    private void assertOneStatement(String operation) {
        assertEquals(1, measured.get(operation)[0], operation + ": statements");
        assertEquals(0, measured.get(operation)[1], operation + ": commits (auto-commit)");
    }

    @Test
    void ring_pushes_are_one_statement_with_every_strategy() {
        for (RingStrategy strategy : RingStrategy.values()) {
            RingQueue ring = rq.ring("rt_ring_" + strategy.name().toLowerCase(java.util.Locale.ROOT),
                    RingOptions.ofCapacity(3).withStrategy(strategy));
            ring.push("g", "warm up");
            count("ring push (" + strategy + ")", () -> ring.push("g", "x"));
            count("ring pushAll of 5 (" + strategy + ")", () -> ring.pushAll("g", List.of("a", "b", "c", "d", "e")));
            assertOneStatement("ring push (" + strategy + ")");
            assertOneStatement("ring pushAll of 5 (" + strategy + ")");
            count("ring newestFirst", () -> ring.newestFirst("g"));
            assertOneStatement("ring newestFirst");
        }
    }

    @Test
    void work_queue_operations_are_one_statement_each() {
        WorkQueue q = rq.workQueue("rt_work", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(5)));
        q.enqueue("warm up");
        q.claim(1);
        count("enqueue", () -> q.enqueue("a"));
        count("enqueueAll of 5", () -> q.enqueueAll(List.of("b", "c", "d", "e", "f"), Enqueue.defaults().withPriority(1)));
        List<Job> jobs = count("claim up to 10", () -> q.claim(10));
        assertEquals(6, jobs.size());
        count("ack", () -> q.ack(jobs.get(0)));
        count("nack", () -> q.nack(jobs.get(1), Duration.ZERO, "retry"));
        count("release", () -> q.release(jobs.get(2)));
        count("extendLease", () -> q.extendLease(jobs.get(3), Duration.ofMinutes(10)));
        count("blocking claim, a job is ready", () -> q.claim(1, Duration.ofSeconds(5)));
        for (String op : List.of("enqueue", "enqueueAll of 5", "claim up to 10", "ack", "nack", "release",
                "extendLease", "blocking claim, a job is ready")) {
            assertOneStatement(op);
        }
        count("rotate 3 (transaction)", () -> q.rotate("c", 3));
        count("stats", q::stats);
    }

    /**
     * Keyed enqueues, unique enqueues (new or held), and claims and handoffs under a per-key limit of 1 or fair: one
     * execution each in auto-commit mode; a limited claim's execution is two statements of one implicit transaction
     * (the gate's advisory lock, then the claim), sent together.
     */
    @Test
    void keyed_operations_are_one_execution_each() {
        WorkQueue q = rq.workQueue("rt_keyed", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(5))
                .withMaxLeasedPerKey(1));
        WorkQueue fair = rq.workQueue("rt_keyed", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(5))
                .withFairClaims(true));
        q.enqueue("warm up", Enqueue.defaults().withKey("w"));
        // the store's first limited claim also asks, once, whether the queue has its index of leased keyed jobs
        assertEquals(1, q.claim(1).size(), "the warm-up job");
        count("enqueueAll of 5 with a key", () -> q.enqueueAll(List.of("a", "b", "c", "d", "e"), Enqueue.defaults().withKey("k")));
        count("enqueue with a unique key", () -> q.enqueue("u", Enqueue.defaults().withKey("u").unique()));
        count("enqueue with a held unique key", () -> q.enqueue("u again", Enqueue.defaults().withKey("u").unique()));
        List<Job> jobs = count("claim up to 10 under maxLeasedPerKey(1)", () -> q.claim(10));
        assertEquals(2, jobs.size(), "one job of each free key (k, u; w is leased): " + jobs);
        count("ackAndClaim of 1 under maxLeasedPerKey(1)", () -> q.ackAndClaim(List.of(jobs.get(0)), 1));
        count("fair claim up to 2", () -> fair.claim(2));
        for (String op : List.of("enqueueAll of 5 with a key", "enqueue with a unique key",
                "enqueue with a held unique key", "claim up to 10 under maxLeasedPerKey(1)",
                "ackAndClaim of 1 under maxLeasedPerKey(1)", "fair claim up to 2")) {
            assertOneStatement(op);
        }
    }

    @Test
    void counter_operations_are_one_statement_each() {
        Counters c = rq.counters("rt_counters");
        count("increment (new counter)", () -> c.increment("new"));
        count("increment", () -> c.increment("new", 5));
        count("allocate 100", () -> c.allocate("ids", 100));
        count("set", () -> {
            c.set("new", 1);
            return null;
        });
        for (String op : List.of("increment (new counter)", "increment", "allocate 100", "set")) {
            assertOneStatement(op);
        }
    }
}
