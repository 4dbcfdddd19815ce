package dev.rowqueue.internal;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.JobContext;
import dev.rowqueue.Operation;
import dev.rowqueue.OperationEvent;
import dev.rowqueue.OperationEvent.Outcome;
import dev.rowqueue.OperationListener;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The operation hook ({@link OperationListener}) on H2 through the portable dialect: every public operation of the
 * three handles is reported exactly once with its queue, kind, item count and outcome; failures are reported with
 * the exception the caller got; a listener that throws changes nothing; a worker's own claims, acks and heartbeats
 * are reported; an instance without listeners creates no reporter.
 */
class OperationListenerTest {

    /** Keeps every event. */
    static final class Recorder implements OperationListener {
        final List<OperationEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onOperation(OperationEvent event) {
            events.add(event);
        }

        List<OperationEvent> take() {
            List<OperationEvent> copy = new ArrayList<>(events);
            events.clear();
            return copy;
        }

        /** Asserts exactly one event was recorded since the last take, and returns it. */
        OperationEvent one() {
            List<OperationEvent> e = take();
            assertThat(e).hasSize(1);
            return e.get(0);
        }
    }

    private static WorkerTest.SwitchedDataSource h2(String name) {
        return new WorkerTest.SwitchedDataSource(name);
    }

    private static void assertEvent(OperationEvent e, String queue, Operation op, int items) {
        assertThat(e.queue()).isEqualTo(queue);
        assertThat(e.operation()).isEqualTo(op);
        assertThat(e.kind()).isEqualTo(op.kind());
        assertThat(e.items()).as("items of %s", op).isEqualTo(items);
        assertThat(e.outcome()).isEqualTo(Outcome.SUCCESS);
        assertThat(e.error()).isNull();
        assertThat(e.nanos()).isPositive();
    }

    @Test
    void every_public_operation_is_reported_once_with_its_item_count() {
        Recorder rec = new Recorder();
        Set<Operation> seen = EnumSet.noneOf(Operation.class);
        try (RowQueues rq = RowQueues.builder(h2("ops_all").ds).operationListener(rec).build()) {
            RingQueue ring = rq.ring("views", 3);
            WorkQueue work = rq.workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1));
            Counters counters = rq.counters("seq");
            assertThat(rec.take()).as("creating handles is not reported").isEmpty();

            // rings
            ring.push("a", "1");
            assertEvent(rec.one(), "views", Operation.PUSH, 1);
            ring.pushAll("a", List.of("2", "3", "4", "5"));
            assertEvent(rec.one(), "views", Operation.PUSH_ALL, 4);
            ring.newestFirst("a");
            assertEvent(rec.one(), "views", Operation.READ, 3);
            ring.newestFirst("a", 2);
            assertEvent(rec.one(), "views", Operation.READ, 2);
            ring.oldestFirst("a");
            assertEvent(rec.one(), "views", Operation.READ, 3);
            ring.latest("a");
            assertEvent(rec.one(), "views", Operation.READ, 1);
            ring.latest("nobody");
            assertEvent(rec.one(), "views", Operation.READ, 0);
            ring.size("a");
            assertEvent(rec.one(), "views", Operation.SIZE, 1);
            ring.groups();
            assertEvent(rec.one(), "views", Operation.GROUPS, 1);
            ring.clear("a");
            assertEvent(rec.one(), "views", Operation.CLEAR, 1);

            // work queues
            work.enqueue("x");
            assertEvent(rec.one(), "mail", Operation.ENQUEUE, 1);
            work.enqueue("y", Enqueue.defaults().withPriority(5));
            assertEvent(rec.one(), "mail", Operation.ENQUEUE, 1);
            work.enqueueAll(List.of("p", "q", "r"), Enqueue.defaults());
            assertEvent(rec.one(), "mail", Operation.ENQUEUE_ALL, 3);
            List<Job> two = work.claim(2);
            assertEvent(rec.one(), "mail", Operation.CLAIM, 2);
            assertThat(work.ack(two.get(0))).isTrue();
            assertEvent(rec.one(), "mail", Operation.ACK, 1);
            assertThat(work.ack(two.get(0))).isFalse();
            assertEvent(rec.one(), "mail", Operation.ACK, 0);
            assertThat(work.extendLease(two.get(1), Duration.ofMinutes(1))).isTrue();
            assertEvent(rec.one(), "mail", Operation.EXTEND_LEASE, 1);
            List<Job> next = work.ackAndClaim(List.of(two.get(1)), 2).claimed();
            assertEvent(rec.one(), "mail", Operation.ACK_AND_CLAIM, 2);
            assertThat(work.release(next.get(0))).isTrue();
            assertEvent(rec.one(), "mail", Operation.RELEASE, 1);
            assertThat(work.nack(next.get(1), Duration.ZERO, "boom")).isTrue(); // one attempt allowed: now dead
            assertEvent(rec.one(), "mail", Operation.NACK, 1);
            List<Job> waited = work.claim(1, Duration.ofMillis(10));
            assertEvent(rec.one(), "mail", Operation.CLAIM_WAIT, 1);
            assertThat(work.nack(waited.get(0))).isTrue();
            assertEvent(rec.one(), "mail", Operation.NACK, 1);
            assertThat(work.nack(waited.get(0), Duration.ZERO)).as("already settled").isFalse();
            assertEvent(rec.one(), "mail", Operation.NACK, 0);
            work.rotate("c", 5);
            assertEvent(rec.one(), "mail", Operation.ROTATE, 1);
            List<Job> dead = work.deadLetters(10);
            assertEvent(rec.one(), "mail", Operation.DEAD_LETTERS, 2);
            assertThat(work.revive(dead.get(0).id())).isTrue();
            assertEvent(rec.one(), "mail", Operation.REVIVE, 1);
            assertThat(work.revive(-1)).isFalse();
            assertEvent(rec.one(), "mail", Operation.REVIVE, 0);
            assertThat(work.reviveAll()).isEqualTo(1);
            assertEvent(rec.one(), "mail", Operation.REVIVE_ALL, 1);
            work.purgeDead();
            assertEvent(rec.one(), "mail", Operation.PURGE_DEAD, 0);
            work.stats();
            assertEvent(rec.one(), "mail", Operation.STATS, 1);
            work.enqueue("keyed", Enqueue.defaults().withKey("tenant-1"));
            rec.take();
            assertThat(work.statsByKey(10)).containsOnlyKeys("tenant-1");
            assertEvent(rec.one(), "mail", Operation.STATS_BY_KEY, 1);
            long keyed = work.jobs(dev.rowqueue.JobQuery.all().withKey("tenant-1")).jobs().get(0).id();
            assertEvent(rec.one(), "mail", Operation.JOBS, 1);
            assertThat(work.job(keyed)).isPresent();
            assertEvent(rec.one(), "mail", Operation.JOB, 1);
            assertThat(work.cancel(keyed)).isEqualTo(dev.rowqueue.CancelOutcome.CANCELLED);
            assertEvent(rec.one(), "mail", Operation.CANCEL, 1);
            assertThat(work.cancel(keyed)).isEqualTo(dev.rowqueue.CancelOutcome.NOT_FOUND);
            assertEvent(rec.one(), "mail", Operation.CANCEL, 0);
            work.activity();
            assertEvent(rec.one(), "mail", Operation.ACTIVITY, 1);
            assertThat(work.rateWindow()).isEmpty();
            assertEvent(rec.one(), "mail", Operation.RATE_WINDOW, 0);

            // counters
            counters.increment("k");
            assertEvent(rec.one(), "seq", Operation.INCREMENT, 1);
            counters.increment("k", 5);
            assertEvent(rec.one(), "seq", Operation.INCREMENT, 1);
            counters.get("k");
            assertEvent(rec.one(), "seq", Operation.GET, 1);
            counters.set("k", 10);
            assertEvent(rec.one(), "seq", Operation.SET, 1);
            assertThat(counters.allocate("k", 20).last()).isEqualTo(30);
            assertEvent(rec.one(), "seq", Operation.ALLOCATE, 20);
            counters.increment("other");
            rec.take();
            counters.all();
            assertEvent(rec.one(), "seq", Operation.READ_ALL, 2);
            assertThat(counters.remove("k")).isTrue();
            assertEvent(rec.one(), "seq", Operation.REMOVE, 1);
            assertThat(counters.remove("k")).isFalse();
            assertEvent(rec.one(), "seq", Operation.REMOVE, 0);
        }
    }

    @Test
    void the_test_above_names_every_operation() throws Exception {
        // guards the list: a new public operation must get a constant and a line in the test above
        String source = java.nio.file.Files.readString(java.nio.file.Path.of(
                "src/test/java/dev/rowqueue/internal/OperationListenerTest.java"));
        List<Operation> missing = new ArrayList<>();
        for (Operation op : Operation.values()) {
            if (!source.contains("Operation." + op.name() + ", ")) {
                missing.add(op);
            }
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void handles_bound_to_a_callers_connection_are_reported() throws Exception {
        Recorder rec = new Recorder();
        WorkerTest.SwitchedDataSource sds = h2("ops_bound");
        try (RowQueues rq = RowQueues.builder(sds.ds).operationListener(rec).build();
             Connection c = sds.h2.getConnection()) {
            WorkQueue work = rq.workQueue("outbox");
            RingQueue ring = rq.ring("recent", 2);
            Counters counters = rq.counters("ids");
            rec.take();
            c.setAutoCommit(false);
            work.using(c).enqueue("order-1");
            assertEvent(rec.one(), "outbox", Operation.ENQUEUE, 1);
            ring.using(c).pushAll("g", List.of("a", "b"));
            assertEvent(rec.one(), "recent", Operation.PUSH_ALL, 2);
            counters.using(c).allocate("orders", 3);
            assertEvent(rec.one(), "ids", Operation.ALLOCATE, 3);
            c.rollback();
            assertThat(work.stats().total()).as("rolled back with the caller").isZero();
            assertEvent(rec.one(), "outbox", Operation.STATS, 1);
        }
    }

    @Test
    void failures_are_reported_with_the_exception_the_caller_got() {
        Recorder rec = new Recorder();
        WorkerTest.SwitchedDataSource sds = h2("ops_fail");
        try (RowQueues rq = RowQueues.builder(sds.ds).retry(RetryPolicy.none()).operationListener(rec).build()) {
            RingQueue ring = rq.ring("r", 2);
            WorkQueue work = rq.workQueue("w");
            Counters counters = rq.counters("c");
            rec.take();

            // a bad argument: refused before any SQL, still reported
            Throwable thrown = catchThrown(() -> ring.push("g", null));
            OperationEvent e = rec.one();
            assertThat(e.operation()).isEqualTo(Operation.PUSH);
            assertThat(e.outcome()).isEqualTo(Outcome.INVALID_INPUT);
            assertThat(e.items()).isZero();
            assertThat(e.error()).isSameAs(thrown);

            catchThrown(() -> work.claim(0));
            assertThat(rec.one().outcome()).isEqualTo(Outcome.INVALID_INPUT);
            // refused before the operation's body began: reported all the same, as every other refusal
            thrown = catchThrown(() -> work.rotate(null, 5));
            e = rec.one();
            assertThat(e.operation()).isEqualTo(Operation.ROTATE);
            assertThat(e.outcome()).isEqualTo(Outcome.INVALID_INPUT);
            assertThat(e.error()).isSameAs(thrown);
            catchThrown(() -> work.jobs(null));
            assertThat(rec.one().operation()).isEqualTo(Operation.JOBS);

            // a 64-bit limit
            counters.set("k", Long.MAX_VALUE);
            rec.take();
            thrown = catchThrown(() -> counters.increment("k"));
            e = rec.one();
            assertThat(e.operation()).isEqualTo(Operation.INCREMENT);
            assertThat(e.outcome()).isEqualTo(Outcome.LIMIT);
            assertThat(e.error()).isSameAs(thrown);

            // the database cannot be reached: transient, not retried with RetryPolicy.none()
            sds.down.set(true);
            thrown = catchThrown(() -> work.enqueue("x"));
            assertThat(thrown).isInstanceOf(TransientRowQueueException.class);
            e = rec.one();
            assertThat(e.operation()).isEqualTo(Operation.ENQUEUE);
            assertThat(e.outcome()).isEqualTo(Outcome.TRANSIENT);
            assertThat(e.error()).isSameAs(thrown);
            sds.down.set(false);

            // a table dropped behind the handle's back
            assertThat(rq.dropQueue("c")).isTrue();
            rec.take();
            thrown = catchThrown(() -> counters.get("k"));
            e = rec.one();
            assertThat(e.outcome()).isEqualTo(Outcome.of(thrown)).isIn(Outcome.SCHEMA, Outcome.DATABASE);
        }
    }

    @Test
    void outcomes_follow_rowqueues_exception_types() {
        assertThat(Outcome.of(null)).isEqualTo(Outcome.SUCCESS);
        assertThat(Outcome.of(new dev.rowqueue.InvalidNameException("x"))).isEqualTo(Outcome.INVALID_INPUT);
        assertThat(Outcome.of(new NullPointerException())).isEqualTo(Outcome.INVALID_INPUT);
        assertThat(Outcome.of(new TransientRowQueueException("x", null))).isEqualTo(Outcome.TRANSIENT);
        assertThat(Outcome.of(new dev.rowqueue.UnknownCommitOutcomeException("x", null)))
                .isEqualTo(Outcome.UNKNOWN_COMMIT);
        assertThat(Outcome.of(new dev.rowqueue.SchemaException("x", null))).isEqualTo(Outcome.SCHEMA);
        assertThat(Outcome.of(new dev.rowqueue.QueueConflictException("x"))).isEqualTo(Outcome.CONFLICT);
        assertThat(Outcome.of(new dev.rowqueue.SequenceExhaustedException("x"))).isEqualTo(Outcome.LIMIT);
        assertThat(Outcome.of(new dev.rowqueue.CounterOverflowException("x", null))).isEqualTo(Outcome.LIMIT);
        assertThat(Outcome.of(new dev.rowqueue.RowQueueException("x"))).isEqualTo(Outcome.DATABASE);
        assertThat(Outcome.of(new IllegalStateException())).isEqualTo(Outcome.OTHER);
        assertThat(Outcome.of(new AssertionError())).isEqualTo(Outcome.OTHER);
        assertThatThrownBy(() -> new OperationEvent("q", Operation.PUSH, 0, 1, Outcome.SUCCESS,
                new IllegalStateException())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OperationEvent("q", Operation.PUSH, 0, 1, Outcome.OTHER, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Operation.PUSH.kind()).isEqualTo(QueueKind.RING);
        assertThat(Operation.STATS.kind()).isEqualTo(QueueKind.WORK);
        assertThat(Operation.ALLOCATE.kind()).isEqualTo(QueueKind.COUNTERS);
    }

    @Test
    void a_listener_that_throws_changes_nothing_and_the_next_one_still_hears() {
        AtomicInteger thrown = new AtomicInteger();
        Recorder after = new Recorder();
        OperationListener broken = e -> {
            thrown.incrementAndGet();
            throw new IllegalStateException("listener bug (test)");
        };
        try (RowQueues rq = RowQueues.builder(h2("ops_broken").ds).operationListener(broken)
                .operationListener(after).build()) {
            WorkQueue work = rq.workQueue("w");
            long id = work.enqueue("x");
            List<Job> jobs = work.claim(5);
            assertThat(jobs).extracting(Job::id).containsExactly(id);
            assertThat(work.ack(jobs.get(0))).isTrue();
            Throwable failure = catchThrown(() -> work.enqueue(null));
            assertThat(failure).as("the operation's own exception, not the listener's")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
            assertThat(thrown.get()).isEqualTo(4);
            assertThat(after.take()).extracting(OperationEvent::operation)
                    .containsExactly(Operation.ENQUEUE, Operation.CLAIM, Operation.ACK, Operation.ENQUEUE);
        }
    }

    @Test
    void without_a_listener_there_is_no_reporter() throws Exception {
        assertThat(Operations.of(List.of())).isNull();
        try (RowQueues rq = RowQueues.builder(h2("ops_none").ds).build()) {
            java.lang.reflect.Field f = DefaultRowQueues.class.getDeclaredField("context");
            f.setAccessible(true);
            assertThat(((DefaultRowQueues.Context) f.get(rq)).operations()).isNull();
            WorkQueue work = rq.workQueue("w");
            work.enqueue("x");
            assertThat(work.claim(1)).hasSize(1);
        }
    }

    @Test
    void handles_are_decorated_only_where_listeners_exist() throws Exception {
        WorkerTest.SwitchedDataSource plainDs = h2("ops_plain");
        WorkerTest.SwitchedDataSource observedDs = h2("ops_observed");
        try (RowQueues plain = RowQueues.builder(plainDs.ds).build();
             RowQueues observed = RowQueues.builder(observedDs.ds).operationListener(new Recorder()).build();
             Connection c = plainDs.h2.getConnection();
             Connection d = observedDs.h2.getConnection()) {
            // without listeners callers get the handles that do the work: nothing between them and the caller times
            assertHandles(plain, c, DefaultWorkQueue.class, DefaultRingQueue.class, DefaultCounters.class);
            // with listeners every handle reports, the ones made from a handle (bound, a worker's) too
            assertHandles(observed, d, ObservedWorkQueue.class, ObservedRingQueue.class, ObservedCounters.class);
        }
    }

    private static void assertHandles(RowQueues rq, Connection c, Class<?> work, Class<?> ring, Class<?> counters)
            throws Exception {
        WorkQueue queue = rq.workQueue("w");
        assertThat(queue).isExactlyInstanceOf(work);
        assertThat(queue.create()).as("create() hands back the handle it was called on").isSameAs(queue);
        assertThat(queue.using(c)).isExactlyInstanceOf(work);
        assertThat(workersQueue(queue)).isExactlyInstanceOf(work);
        assertThat(rq.ring("r", 2)).isExactlyInstanceOf(ring);
        assertThat(rq.ring("r", 2).using(c)).isExactlyInstanceOf(ring);
        assertThat(rq.counters("c")).isExactlyInstanceOf(counters);
        assertThat(rq.counters("c").using(c)).isExactlyInstanceOf(counters);
    }

    /** The queue a (never started) worker of {@code work} would claim from. */
    private static Object workersQueue(WorkQueue work) throws Exception {
        try (Worker w = work.worker(job -> { })) {
            java.lang.reflect.Field f = DefaultWorker.class.getDeclaredField("queue");
            f.setAccessible(true);
            return f.get(w);
        }
    }

    @Test
    void a_workers_claims_acks_nacks_and_heartbeats_are_reported_and_finished_follows_every_start()
            throws Exception {
        Recorder rec = new Recorder();
        List<String> calls = new CopyOnWriteArrayList<>();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void started(Job job, Duration waiting) {
                calls.add("started " + job.payload());
            }

            @Override
            public void succeeded(Job job, Duration running) {
                calls.add("succeeded " + job.payload());
            }

            @Override
            public void failed(Job job, Throwable error, Duration running) {
                calls.add("failed " + job.payload());
            }

            @Override
            public void finished(Job job, Duration running) {
                calls.add("finished " + job.payload());
            }
        };
        try (RowQueues rq = RowQueues.builder(h2("ops_worker").ds).operationListener(rec).build()) {
            WorkQueue work = rq.workQueue("jobs", WorkQueueOptions.defaults().withMaxAttempts(5)
                    .withRetryBackoff(Duration.ofHours(1), Duration.ofHours(1)));
            work.enqueueAll(List.of("ok-1", "ok-2", "ok-3", "throws", "releases", "slow"), Enqueue.defaults());
            rec.take();
            CountDownLatch slowStarted = new CountDownLatch(1);
            CountDownLatch slowGo = new CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean releasedOnce = new java.util.concurrent.atomic.AtomicBoolean();
            try (Worker w = work.worker((JobContext job) -> {
                switch (job.payload()) {
                    case "throws" -> throw new IllegalStateException("handler failure (test)");
                    case "releases" -> {
                        if (releasedOnce.compareAndSet(false, true)) {
                            job.release(); // given back by the handler: runs again, and returns then
                        }
                    }
                    case "slow" -> {
                        slowStarted.countDown();
                        slowGo.await();
                    }
                    default -> { }
                }
            }, WorkerOptions.defaults().withThreads(2).withHeartbeat(Duration.ofMillis(50)).withListener(listener)).start()) {
                assertThat(slowStarted.await(30, TimeUnit.SECONDS)).isTrue();
                eventually("a heartbeat extended the slow job's lease", () -> rec.events.stream()
                        .anyMatch(e -> e.operation() == Operation.EXTEND_LEASE && e.items() >= 1));
                slowGo.countDown();
                eventually("all seven runs finished",
                        () -> calls.stream().filter(c -> c.startsWith("finished")).count() == 7);
            }
            List<OperationEvent> events = rec.take();
            int claimed = events.stream().filter(e -> e.operation() == Operation.CLAIM
                    || e.operation() == Operation.ACK_AND_CLAIM).mapToInt(OperationEvent::items).sum();
            assertThat(claimed).as("every job claimed once, the released one twice, through reported claims")
                    .isEqualTo(7);
            assertThat(events).filteredOn(e -> e.operation() == Operation.NACK).hasSize(1)
                    .allMatch(e -> e.items() == 1);
            assertThat(events).filteredOn(e -> e.operation() == Operation.RELEASE).hasSize(1)
                    .allMatch(e -> e.items() == 1);
            // a heartbeat may find none of its jobs leased any more: one acked while the beat was on its way
            assertThat(events).filteredOn(e -> e.operation() == Operation.EXTEND_LEASE).isNotEmpty()
                    .allMatch(OperationEvent::succeeded);
            assertThat(events).allMatch(e -> e.queue().equals("jobs") && e.succeeded());
        }
        for (String p : List.of("ok-1", "ok-2", "ok-3", "throws", "slow")) {
            assertThat(calls).containsOnlyOnce("started " + p, "finished " + p);
            assertThat(calls.indexOf("finished " + p)).isGreaterThan(calls.indexOf("started " + p));
        }
        assertThat(calls.indexOf("finished throws")).isGreaterThan(calls.indexOf("failed throws"));
        assertThat(calls.indexOf("finished ok-1")).isGreaterThan(calls.indexOf("succeeded ok-1"));
        assertThat(calls.stream().filter(c -> c.equals("started releases"))).hasSize(2);
        assertThat(calls.stream().filter(c -> c.equals("finished releases"))).hasSize(2);
        assertThat(calls).as("the run the handler settled itself is neither a success nor a failure: only the second")
                .containsOnlyOnce("succeeded releases").doesNotContain("failed releases");
    }

    private static Throwable catchThrown(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            return e;
        }
        return fail("nothing thrown");
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within a minute: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }
}
