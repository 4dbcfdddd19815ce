package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.portable.PortableDialect;
import dev.rowqueue.portable.PortableFeatures;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.support.Jdbc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 36: the core asks every dialect the same questions ({@link Dialect#refine} at build, then its
 * {@link DialectPolicy}) and knows none by its class; a dialect of its own, not the portable one, gets shared claim
 * gates and hot-row turns by answering so.
 */
class DialectQuestionsTest {

    /** The portable behaviour of the base class (standard SQL, which H2 runs), refined at build into other answers. */
    private static final class Asking extends Dialect {
        private final DialectPolicy policy;
        private final DialectPolicy refined;
        private final AtomicInteger asked;

        Asking(DatabaseProduct product, DialectPolicy policy, DialectPolicy refined, AtomicInteger asked) {
            super(product);
            this.policy = policy;
            this.refined = refined;
            this.asked = asked;
        }

        @Override
        public String name() {
            return "asking";
        }

        @Override
        public DialectPolicy policy() {
            return policy;
        }

        @Override
        public Dialect refine(DataSource dataSource) throws SQLException {
            try (Connection c = dataSource.getConnection()) {
                asked.incrementAndGet();
                if (refined == null) {
                    throw new SQLException("the database could not answer", "08001");
                }
            }
            return new Asking(product(), refined, refined, asked);
        }

        @Override
        public String toString() {
            return super.toString() + (policy == refined ? " (refined)" : "");
        }
    }

    private static DialectProvider provider(DialectPolicy refined, AtomicInteger asked) {
        return new DialectProvider() {
            @Override
            public String name() {
                return "asking";
            }

            @Override
            public boolean supports(DatabaseProduct product) {
                return true;
            }

            @Override
            public Dialect create(DatabaseProduct product, Map<String, String> options) {
                return new Asking(product, DialectPolicy.DEFAULTS.withClaimConcurrency(1), refined, asked);
            }
        };
    }

    private static final DialectPolicy ONE_CLAIM = DialectPolicy.DEFAULTS.withClaimConcurrency(1);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static ClaimConcurrencyTest.HoldingDataSource dataSource(String name) {
        ClaimConcurrencyTest.HoldingDataSource ds = new ClaimConcurrencyTest.HoldingDataSource();
        ds.h2.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    private static RowQueues build(DataSource ds, DialectPolicy refined, AtomicInteger asked) {
        return RowQueues.builder(ds).registerDialect(provider(refined, asked)).build();
    }

    @Test
    void the_core_asks_the_dialect_once_at_build_and_uses_the_dialect_it_returns() {
        AtomicInteger asked = new AtomicInteger();
        try (RowQueues rq = build(dataSource("refine_used").ds, ONE_CLAIM.withMaxPayloadLength(77), asked)) {
            assertEquals(1, asked.get(), "refine is called once, at build");
            assertEquals("asking", rq.database().dialect());
            assertTrue(rq.database().dialectSettings().endsWith(" (refined)"), rq.database().dialectSettings());
            assertEquals(77, rq.database().maxPayloadLength(), "the refined dialect's policy is the one asked");
        }
    }

    @Test
    void a_dialect_that_cannot_ask_the_database_fails_the_build_naming_it() {
        RowQueueException e = assertThrows(RowQueueException.class,
                () -> build(dataSource("refine_fails").ds, null, new AtomicInteger()).close());
        assertTrue(e.getMessage().contains("dialect asking cannot ask the database"), e.getMessage());
        assertTrue(e.getMessage().contains("could not answer"), e.getMessage());
    }

    /**
     * Two instances on one database: where the policy says so, the second instance's claim of a queue waits while the
     * first instance's claim of it runs (their gates are one); otherwise it runs at once.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void instances_on_one_database_share_their_claim_gates_where_the_policy_says_so(boolean shared) throws Exception {
        ClaimConcurrencyTest.HoldingDataSource ds = dataSource("shared_gates_" + shared);
        DialectPolicy refined = ONE_CLAIM.withSharedClaimGates(shared);
        try (RowQueues a = build(ds.ds, refined, new AtomicInteger());
             RowQueues b = build(ds.ds, refined, new AtomicInteger())) {
            WorkQueue qa = a.workQueue("gated");
            WorkQueue qb = b.workQueue("gated");
            qa.enqueue("x");
            qa.enqueue("y");
            ds.holdNext.set(true);
            Future<List<Job>> first = threads.submit(() -> qa.claim(1));
            assertTrue(ds.held.await(10, TimeUnit.SECONDS), "the first claim borrows a connection");
            Future<List<Job>> second = threads.submit(() -> qb.claim(1));
            if (shared) {
                // long enough for an ungated claim to end even on a loaded machine
                assertThrows(TimeoutException.class, () -> second.get(2, TimeUnit.SECONDS),
                        "the other instance's claim waits for the gate");
            } else {
                assertEquals(1, second.get(10, TimeUnit.SECONDS).size(), "the other instance has gates of its own");
            }
            ds.release.countDown();
            assertEquals(1, first.get(10, TimeUnit.SECONDS).size());
            assertEquals(1, second.get(10, TimeUnit.SECONDS).size());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void writers_of_one_hot_row_take_turns_where_the_policy_says_so(boolean turns) throws Exception {
        ClaimConcurrencyTest.HoldingDataSource ds = dataSource("hot_rows_" + turns);
        String database;
        try (Connection c = ds.getConnection()) {
            database = Jdbc.databaseIdentity(c.getMetaData());
        }
        try (RowQueues rq = build(ds.ds, ONE_CLAIM.withHotRowTurns(turns), new AtomicInteger())) {
            WorkQueue q = rq.workQueue("hot");
            q.enqueue("x");
            q.ack(q.claim(1).get(0));
        }
        long operations = HotRowTurns.of(database).operations();
        if (turns) {
            assertTrue(operations >= 2, "the claim and the ack took turns: " + operations);
        } else {
            assertEquals(0, operations, "no turns taken");
        }
    }

    /** The portable dialect gives its probes' answers as policy: the core does not look into it. */
    @Test
    void the_portable_dialect_answers_shared_gates_where_reads_wait_for_writers() {
        DatabaseProduct product = DatabaseProduct.assumed("AnyDB", 1, 0);
        assertTrue(new PortableDialect(product, PortableFeatures.STANDARD,
                new PortableFeatures.Concurrency(true, null)).policy().sharedClaimGates());
        assertFalse(new PortableDialect(product, PortableFeatures.STANDARD,
                PortableFeatures.Concurrency.UNKNOWN).policy().sharedClaimGates());
        assertFalse(new PortableDialect(product).policy().hotRowTurns(), "not probed: writers wait, as assumed");
    }
}
