package dev.rowqueue.tck;

import dev.rowqueue.Counters;
import dev.rowqueue.QueueConflictException;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Enqueue;
import dev.rowqueue.SchemaDifference;
import dev.rowqueue.SchemaException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProviders;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Test;

import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tables created on first use, DDL as text, the catalog, names; and the schema a queue runs on is the schema it
 * checked: what its guarantees depend on (primary keys, NOT NULL, the unique index of unique keys) is read from the
 * database's catalogue when the queue opens, through JDBC and the dialect's own DDL only.
 */
public abstract class SchemaContract extends Contract {

    @Test
    void tables_are_created_on_first_use_and_opening_again_is_idempotent() {
        String name = newName();
        rq().ring(name, 3).push("g", "x");
        RingQueue again = rq().ring(name, 3);
        assertEquals(1, again.size("g"));
        try (RowQueues fresh = env().builder().build()) {
            assertEquals(1, fresh.ring(name, 3).size("g"), "a new instance finds the existing tables");
        }
    }

    @Test
    void the_catalog_records_every_queue_with_its_kind_capacity_and_strategy() {
        String ring = newName();
        String work = newName();
        String counters = newName();
        rq().ring(ring, 7);
        rq().workQueue(work).create();
        rq().counters(counters);
        List<QueueInfo> queues = rq().queues();
        QueueInfo r = find(queues, ring);
        assertEquals(QueueKind.RING, r.kind());
        assertEquals(7, r.capacity());
        assertEquals(RingStrategy.SAFE, r.strategy());
        assertEquals(List.of(ring, ring + "_head"), r.tables());
        assertEquals(QueueKind.WORK, find(queues, work).kind());
        assertEquals(QueueKind.COUNTERS, find(queues, counters).kind());
    }

    private static QueueInfo find(List<QueueInfo> queues, String name) {
        return queues.stream().filter(q -> q.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in catalog " + queues));
    }

    @Test
    void the_ddl_text_creates_tables_that_work_with_schema_creation_turned_off() {
        String ring = newName();
        String work = newName();
        String counters = newName();
        List<String> ddl = new ArrayList<>();
        ddl.addAll(rq().schema().catalog());
        ddl.addAll(rq().schema().ring(ring, RingOptions.ofCapacity(2)));
        ddl.addAll(rq().schema().workQueue(work));
        ddl.addAll(rq().schema().counters(counters));
        env().jdbc(c -> {
            try (Statement s = c.createStatement()) {
                for (String statement : ddl) {
                    if (statement.contains(dev.rowqueue.spi.Dialect.CATALOG_TABLE)
                            || statement.contains(dev.rowqueue.spi.Dialect.ACTIVITY_TABLE)
                            || statement.contains(dev.rowqueue.spi.Schema.NODES_TABLE)) {
                        continue; // the catalog, activity and nodes tables exist already on this database
                    }
                    s.execute(statement);
                }
            }
            return null;
        });
        assertTrue(rq().schema().script(ddl).contains(ring), "the script form names the tables");
        try (RowQueues managed = env().builder().createSchema(false).build()) {
            RingQueue r = managed.ring(ring, 2);
            r.pushAll("g", List.of("a", "b", "c"));
            assertEquals(2, r.size("g"));
            WorkQueue w = managed.workQueue(work);
            w.enqueue("job");
            assertEquals(1, w.claim(1).size());
            Counters c = managed.counters(counters);
            assertEquals(1, c.increment("k"));
        }
    }

    @Test
    void with_schema_creation_off_a_missing_table_is_a_clear_error_naming_it() {
        String name = newName();
        try (RowQueues managed = env().builder().createSchema(false).build()) {
            SchemaException e = assertThrows(SchemaException.class, () -> managed.workQueue(name).create());
            assertTrue(e.getMessage().contains(name), e.getMessage());
        }
    }

    @Test
    void a_foreign_table_with_the_queue_name_is_refused() {
        String name = newName();
        env().execute("CREATE TABLE " + name + " (something INTEGER NOT NULL, PRIMARY KEY (something))");
        try {
            SchemaException e = assertThrows(SchemaException.class, () -> rq().counters(name));
            assertTrue(e.getMessage().contains(name), e.getMessage());
        } finally {
            env().execute("DROP TABLE " + name);
        }
    }

    @Test
    void a_name_taken_by_another_kind_of_queue_is_refused() {
        String name = newName();
        rq().ring(name, 3);
        assertThrows(QueueConflictException.class, () -> rq().workQueue(name));
        assertThrows(QueueConflictException.class, () -> rq().counters(name));
    }

    @Test
    void a_name_whose_tables_collide_with_another_queue_is_refused() {
        String name = newName();
        rq().ring(name, 3);
        String collides = env().track(name + "_head");
        QueueConflictException e = assertThrows(QueueConflictException.class, () -> rq().counters(collides));
        assertTrue(e.getMessage().contains(name), e.getMessage());
    }

    @Test
    void a_name_that_collides_with_another_queues_index_is_refused() {
        String name = newName();
        rq().workQueue(name).create();
        String collides = env().track(name + "_due");
        assertThrows(QueueConflictException.class, () -> rq().counters(collides),
                "indexes share the table namespace on some databases");
    }

    @Test
    void queue_names_are_case_insensitive() {
        String name = newName();
        rq().ring(name.toUpperCase(java.util.Locale.ROOT), 3).push("g", "x");
        assertEquals(1, rq().ring(name, 3).size("g"));
        assertEquals(name, rq().ring(name.toUpperCase(java.util.Locale.ROOT), 3).name());
    }

    @Test
    void many_nodes_starting_at_once_create_each_queue_once() throws Exception {
        int nodes = 8;
        String ring = newName();
        String work = newName();
        String counters = newName();
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Long>> results = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    try (RowQueues node = env().builder().build()) {
                        node.ring(ring, 4).push("g", "x");
                        node.workQueue(work).enqueue("j");
                        return node.counters(counters).increment("started");
                    }
                }));
            }
            start.countDown();
            List<Long> values = new ArrayList<>();
            for (Future<Long> f : results) {
                values.add(StuckStatements.await(f, WorkQueueContract.PATIENCE.multipliedBy(4), "8 nodes starting at once"));
            }
            values.sort(Long::compare);
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), values);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(4, rq().ring(ring, 4).size("g"));
        assertEquals(8, rq().workQueue(work).stats().ready());
        assertEquals(1, rq().queues().stream().filter(q -> q.name().equals(ring)).count());
    }

    @Test
    void jobs_imported_with_explicit_ids_keep_them_and_new_jobs_get_higher_ids() {
        String name = newName();
        WorkQueue q = rq().workQueue(name);
        q.enqueue("before");
        env().jdbc(c -> {
            try (var ps = c.prepareStatement("INSERT INTO " + name + " (id, payload, prio, state, due_ms, attempts,"
                    + " lease_token, enqueued_ms, last_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setLong(1, 1000);
                ps.setString(2, "imported");
                ps.setInt(3, 9);
                ps.setInt(4, dev.rowqueue.spi.WorkTables.LIVE);
                ps.setLong(5, 0);
                ps.setInt(6, 2);
                ps.setNull(7, java.sql.Types.BIGINT);
                ps.setLong(8, 0);
                ps.setString(9, "from the old database");
                ps.executeUpdate();
            }
            try (Statement s = c.createStatement()) {
                for (String sql : rq().schema().restartJobIds(name, 1001)) {
                    s.execute(sql);
                }
            }
            return null;
        });
        long next = q.enqueue("after");
        assertTrue(next >= 1001, "new id " + next + " follows the imported ones");
        List<dev.rowqueue.Job> jobs = q.claim(3);
        assertEquals(List.of("imported", "before", "after"), jobs.stream().map(dev.rowqueue.Job::payload).toList());
        assertEquals(1000, jobs.get(0).id());
        assertEquals(2, jobs.get(0).failures());
        assertEquals("from the old database", jobs.get(0).lastError());
    }

    @Test
    void dropping_a_queue_removes_its_tables_and_catalog_entry() {
        String name = newName();
        rq().ring(name, 3).push("g", "x");
        assertTrue(rq().dropQueue(name));
        assertFalse(rq().dropQueue(name));
        assertTrue(rq().queues().stream().noneMatch(q -> q.name().equals(name)));
        assertEquals(0, rq().ring(name, 5).size("g"), "the name can be reused, with another capacity");
    }

    // ---------------------------------------------------------------- the schema it runs on is the schema it checked

    /** The dialect of the database under test, as rowqueue detected (or was told) it. */
    private Dialect dialect() {
        return env().jdbc(c -> DialectProviders.named(env().database().dialect())
                .create(DatabaseProduct.of(c.getMetaData()), env().target().dialectOptions(), c));
    }

    /**
     * A work queue whose unique index was dropped (a DBA's schema without it, or a CREATE INDEX that failed), opened
     * again by a node that does not create schema: sixteen producers racing on one unique key get exactly one job, or
     * every one of them is refused with an exception that names the index and gives the DDL that makes it; never two
     * jobs. The DDL the refusal gives then makes the queue whole again.
     */
    @Test
    void a_queue_without_its_unique_index_gives_one_job_per_unique_key_or_refuses_naming_the_index() throws Exception {
        String name = newName();
        rq().workQueue(name).create();
        Dialect d = dialect();
        Schema.Table jobs = d.ddl().workTables(WorkTables.of(name)).get(0);
        Schema.Index unique = jobs.indexes().stream().filter(Schema.Index::guarantee).findFirst().orElseThrow();
        dropIndex(d, jobs, unique);
        String fix = d.ddl().createIndex(jobs, unique);
        int producers = 16;
        List<Object> outcomes = new ArrayList<>();
        try (RowQueues node = env().builder().createSchema(false).build()) {
            WorkQueue q = node.workQueue(name);
            ExecutorService pool = Executors.newFixedThreadPool(producers);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Object>> results = new ArrayList<>();
            try {
                for (int i = 0; i < producers; i++) {
                    String payload = "p" + i;
                    results.add(pool.submit(() -> {
                        start.await();
                        try {
                            return q.enqueue(payload, Enqueue.defaults().withUniqueKey("k1"));
                        } catch (RuntimeException e) {
                            return e;
                        }
                    }));
                }
                start.countDown();
                for (Future<Object> f : results) {
                    outcomes.add(StuckStatements.await(f, WorkQueueContract.PATIENCE, "16 unique enqueues"));
                }
            } finally {
                pool.shutdownNow();
            }
            List<SchemaDifference> differences = node.checkSchema();
            assertTrue(differences.stream().anyMatch(x -> x.object().equalsIgnoreCase(unique.name()) && x.guarantee()
                    && x.fix().equals(fix)), "the check lists the missing unique index: " + differences);
        }
        long jobsMade = rq().workQueue(name).stats().ready();
        List<Long> ids = outcomes.stream().filter(o -> o instanceof Long).map(o -> (Long) o).distinct().toList();
        for (Object o : outcomes) {
            if (o instanceof RuntimeException e) {
                assertTrue(e instanceof SchemaException && e.getMessage().contains(unique.name())
                        && e.getMessage().contains(fix), "a refusal names the index " + unique.name() + " and its DDL ("
                        + fix + "), got: " + e);
            }
        }
        assertTrue(jobsMade <= 1, jobsMade + " jobs for one unique key: " + outcomes);
        assertEquals(jobsMade, ids.size(), "every producer that was not refused got the one job's id: " + outcomes);
        if (jobsMade == 1) {
            assertEquals(producers, outcomes.stream().filter(o -> o instanceof Long).count(),
                    "one job, and no producer refused: " + outcomes);
        }
        env().execute(fix);
        try (RowQueues node = env().builder().createSchema(false).build()) {
            WorkQueue q = node.workQueue(name);
            long id = q.enqueue("again", Enqueue.defaults().withUniqueKey("k2"));
            assertEquals(id, q.enqueue("and again", Enqueue.defaults().withUniqueKey("k2")),
                    "with the index the refusal gave, unique enqueues work");
            assertTrue(node.checkSchema().stream().noneMatch(x -> x.table().equalsIgnoreCase(name)),
                    "nothing missing once the index exists: " + node.checkSchema());
        }
    }

    /**
     * An index that serves speed alone (the claim index) may be missing: the queue opens, every operation works
     * (unique enqueues too), and the check lists the index as serving speed only, with its DDL.
     */
    @Test
    void a_queue_without_an_index_that_serves_speed_alone_keeps_working() {
        String name = newName();
        rq().workQueue(name).create();
        Dialect d = dialect();
        WorkTables t = WorkTables.of(name);
        Schema.Table jobs = d.ddl().workTables(t).get(0);
        Schema.Index claim = jobs.indexes().stream().filter(i -> i.name().equals(t.claimIndex())).findFirst()
                .orElseThrow();
        assertFalse(claim.guarantee(), "the claim index serves speed");
        dropIndex(d, jobs, claim);
        try (RowQueues node = env().builder().createSchema(false).build()) {
            WorkQueue q = node.workQueue(name);
            long id = q.enqueue("one", Enqueue.defaults().withUniqueKey("k"));
            assertEquals(id, q.enqueue("two", Enqueue.defaults().withUniqueKey("k")));
            assertEquals(List.of(id), q.claim(5).stream().map(dev.rowqueue.Job::id).toList());
            List<SchemaDifference> differences = node.checkSchema();
            assertTrue(differences.stream().anyMatch(x -> x.object().equalsIgnoreCase(claim.name()) && !x.guarantee()
                    && x.fix().equals(d.ddl().createIndex(jobs, claim))), "the check lists the speed index: "
                    + differences);
        }
    }

    /**
     * Tables made by hand without the primary key, or with a column that allows NULL where rowqueue's have NOT NULL,
     * are refused when the queue opens, with a message that names what is missing and the DDL. (A server that
     * refuses tables without a primary key, as MySQL's {@code sql_require_primary_key} does, keeps that guarantee
     * itself: the first half then has nothing to check.)
     */
    @Test
    void a_table_without_its_primary_key_or_with_a_nullable_column_is_refused_naming_it() {
        Dialect d = dialect();
        String noKey = newName();
        Schema.Table counters = Schema.counters(CounterTable.of(noKey));
        boolean created = createByHand(d, new Schema.Table(noKey, counters.columns(), List.of(), counters.indexes(),
                counters.checks()));
        try {
            if (created) {
                SchemaException e = assertThrows(SchemaException.class, () -> rq().counters(noKey));
                assertTrue(e.getMessage().contains("primary key")
                        && e.getMessage().contains(d.ddl().addPrimaryKey(counters)), e.getMessage());
            }
        } finally {
            dropByHand(d, noKey);
        }
        String nullable = newName();
        Schema.Table proper = Schema.counters(CounterTable.of(nullable));
        List<Schema.Column> columns = proper.columns().stream().map(c -> c.name().equals("counter_value")
                ? new Schema.Column(c.name(), c.type(), c.length(), false, c.computed()) : c).toList();
        assertTrue(createByHand(d, new Schema.Table(nullable, columns, proper.primaryKey(), proper.indexes(),
                proper.checks())), "a table with a nullable column can be created");
        try {
            SchemaException e = assertThrows(SchemaException.class, () -> rq().counters(nullable));
            assertTrue(e.getMessage().contains("counter_value") && e.getMessage().contains("NOT NULL"),
                    e.getMessage());
        } finally {
            dropByHand(d, nullable);
        }
    }

    private boolean createByHand(Dialect d, Schema.Table table) {
        try {
            for (String ddl : d.ddl().createTables(table)) {
                env().execute(ddl);
            }
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private void dropByHand(Dialect d, String table) {
        try {
            env().execute(d.ddl().dropTable(table));
        } catch (IllegalStateException e) {
            // not created
        }
    }

    /**
     * Drops an index as the dialect says, or, where the database refuses that form, in the other forms SQL databases
     * use: the portable dialect's {@code DROP INDEX i} is refused by MySQL-family servers, which need the table named
     * (asked of the database, not decided by its name).
     */
    private void dropIndex(Dialect d, Schema.Table t, Schema.Index i) {
        List<String> forms = List.of(d.ddl().dropIndex(t, i), "DROP INDEX " + i.name() + " ON " + t.name(),
                "ALTER TABLE " + t.name() + " DROP INDEX " + i.name());
        RuntimeException first = null;
        for (String sql : forms) {
            try {
                env().execute(sql);
                return;
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        throw first;
    }
}
