package dev.rowqueue.support;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The work queue's hooks ({@link WorkForms}) as a dialect meets them: an operation hook replaces its operation, a
 * {@code null} keeps the portable one, and the portable operations take their steps and the operations they call
 * through the hooks, so a hook is never bypassed by the store's own code.
 */
class WorkFormsSeamTest {

    /** Counts the calls of each hook; claims and lease steps are observed and left to the portable forms. */
    private static final class Counting implements WorkForms {
        final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        private final Portable portable;

        Counting(Portable portable) {
            this.portable = portable;
        }

        int calls(String hook) {
            return calls.computeIfAbsent(hook, h -> new AtomicInteger()).get();
        }

        private void called(String hook) {
            calls.computeIfAbsent(hook, h -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
            called("claim");
            SqlOp<List<Job>> portableClaim = portable.claim(max, leaseMs, token);
            return SqlOp.transaction(portableClaim::run);
        }

        @Override
        public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) {
            called("leaseAndRead");
            return null; // the portable step
        }

        @Override
        public List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
            called("keyedCandidates");
            return portable.keyedCandidates(c, rule, n);
        }

        @Override
        public SqlOp<Boolean> ack(long id, long token) {
            called("ack");
            return null; // the portable ack
        }
    }

    private final AtomicInteger built = new AtomicInteger();
    private final Map<String, Counting> forms = new ConcurrentHashMap<>();

    private RowQueues open(String db) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
        DialectProvider provider = new DialectProvider() {
            @Override
            public String name() {
                return "hooked";
            }

            @Override
            public boolean supports(DatabaseProduct product) {
                return true;
            }

            @Override
            public Dialect create(DatabaseProduct product, Map<String, String> options) {
                return new Dialect(product) {
                    @Override
                    public String name() {
                        return "hooked";
                    }

                    @Override
                    protected StatementSets statements() {
                        return new StatementSets() {
                            @Override
                            public WorkStatements work(WorkTables tables, String now) {
                                return WorkStatements.PORTABLE.withForms(p -> {
                                    built.incrementAndGet();
                                    return forms.computeIfAbsent(tables.jobs(), t -> new Counting(p));
                                });
                            }
                        };
                    }
                };
            }
        };
        return RowQueues.builder(h2).registerDialect(provider).build();
    }

    @Test
    void an_operation_hook_replaces_its_operation_and_null_keeps_the_portable_one() {
        try (RowQueues rq = open("forms_operations")) {
            WorkQueue q = rq.workQueue("hooked_ops");
            q.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults());
            Counting hooks = forms.get(WorkTables.of("hooked_ops").jobs());
            assertEquals(0, hooks.calls("claim"), "enqueue has no hook here: the portable one ran");
            List<Job> jobs = q.claim(2);
            assertEquals(2, jobs.size());
            assertEquals(1, hooks.calls("claim"), "the claim ran through its hook");
            assertTrue(q.ack(jobs.get(0)));
            assertEquals(1, hooks.calls("ack"), "the ack hook was asked, and its null kept the portable ack");
            assertEquals(2, q.stats().total(), "the portable ack deleted the job");
        }
    }

    @Test
    void portable_operations_call_operations_and_steps_through_the_hooks() {
        try (RowQueues rq = open("forms_steps")) {
            WorkQueue q = rq.workQueue("hooked_steps");
            q.enqueueAll(List.of("a", "b", "c", "d"), Enqueue.defaults());
            Counting hooks = forms.get(WorkTables.of("hooked_steps").jobs());
            List<Job> first = q.claim(1);
            int leases = hooks.calls("leaseAndRead");
            assertEquals(1, leases, "the portable claim under the claim hook leased through the step hook");
            // ackAndClaim has no hook: its portable form acks and claims through the store, so both hooks are asked
            List<Job> next = q.ackAndClaim(first, 1).claimed();
            assertEquals(1, next.size());
            assertEquals(2, hooks.calls("claim"), "the portable ackAndClaim claimed through the claim hook");
            assertEquals(1, hooks.calls("ack"), "and acked through the ack hook");
            // rotation has no hook: its portable form leases through the leaseAndRead step hook
            leases = hooks.calls("leaseAndRead");
            assertEquals(1, q.rotate("c", 1).size());
            assertEquals(leases + 1, hooks.calls("leaseAndRead"), "the portable rotation leased through the step hook");
            // a claim under a per-key limit takes the keyed candidates and the lease steps through their hooks
            WorkQueue keyed = rq.workQueue("hooked_steps", WorkQueueOptions.defaults().withMaxLeasedPerKey(1));
            keyed.enqueue("k", Enqueue.defaults().withKey("key"));
            leases = hooks.calls("leaseAndRead");
            assertEquals(1, keyed.claim(5).stream().filter(j -> "key".equals(j.key())).count());
            assertTrue(hooks.calls("keyedCandidates") >= 1, "the keyed candidates through their hook");
            assertTrue(hooks.calls("leaseAndRead") > leases, "the keyed rounds leased through the step hook");
        }
        assertTrue(built.get() >= 1);
    }
}
