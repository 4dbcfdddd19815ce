package dev.rowqueue.internal;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SchemaDifference;
import dev.rowqueue.SchemaException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What schema creation logs when DDL fails: nothing at WARN when another node created the objects first (the
 * statements fail, the objects exist afterwards), one WARN per statement when an object really cannot be created.
 * The dialect here does not recognise H2's "already exists" codes, as the portable dialect does not recognise those
 * of a database it does not know.
 *
 * <p>When one of a work queue's CREATE INDEX statements fails (as the unique index's did in a TCK run, where sixteen
 * producers racing on one unique key then got three jobs), the queue is checked from the catalogue: without its
 * unique index it refuses unique enqueues, naming the index and its DDL, and does everything else; without an index
 * that serves speed alone it does everything, and says so once at WARN.
 */
class SchemaCreationLogTest {

    /** Called from SQL ({@code CALL ROWQUEUE_FLAKY_DDL()}); public for H2's reflection. */
    public static final class FlakyDdl {
        /** How many times {@link #failOnce} ran. */
        static final java.util.concurrent.atomic.AtomicInteger CALLS = new java.util.concurrent.atomic.AtomicInteger();

        private FlakyDdl() {
        }

        /**
         * Fails its first call as a deadlock victim would (SQLState 40001), as DDL of nodes creating the same tables
         * at once can, then succeeds.
         *
         * @throws SQLException on the first call
         */
        public static void failOnce() throws SQLException {
            if (CALLS.incrementAndGet() == 1) {
                throw new SQLException("deadlock among creators (simulated)", "40001");
            }
        }
    }

    /** A dialect that knows no "already exists" code, and can break its work queue's jobs table on request. */
    static final class UnawareDialect extends Dialect {
        private final boolean brokenJobsTable;
        private boolean flakyStatement;
        /** The one of the jobs table's indexes whose CREATE INDEX fails (on a table that does not exist), or null. */
        private Function<WorkTables, String> failingIndex;

        UnawareDialect(DatabaseProduct product, boolean brokenJobsTable) {
            super(product);
            this.brokenJobsTable = brokenJobsTable;
        }

        @Override
        public String name() {
            return "unaware";
        }

        @Override
        public SqlErrors sqlErrors() {
            return new SqlErrors() {
                @Override
                protected SqlErrorKind classifyOne(SQLException e) {
                    SqlErrorKind kind = super.classifyOne(e);
                    return kind == SqlErrorKind.ALREADY_EXISTS ? SqlErrorKind.OTHER : kind;
                }
            };
        }

        @Override
        public SchemaDdl ddl() {
            return new SchemaDdl(DdlFeatures.builder(ColumnTypes.STANDARD).build()) {
                @Override
                public List<String> work(WorkTables t) {
                    List<String> ddl = new ArrayList<>(super.work(t));
                    if (brokenJobsTable) {
                        ddl.set(0, "CREATE TABLE " + t.jobs() + " (id NO_SUCH_TYPE)");
                    }
                    if (flakyStatement) {
                        ddl.add(1, "CALL ROWQUEUE_FLAKY_DDL()");
                    }
                    if (failingIndex != null) {
                        String index = failingIndex.apply(t);
                        ddl.replaceAll(s -> s.contains("INDEX " + index + " ")
                                ? s.replace(" ON " + t.jobs() + " ", " ON no_such_table ") : s);
                    }
                    return ddl;
                }
            };
        }
    }

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream before;

    @BeforeEach
    void captureStandardError() {
        before = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStandardError() {
        System.setErr(before);
    }

    private static RowQueues node(String database, boolean brokenJobsTable) {
        return node(database, brokenJobsTable, false);
    }

    private static RowQueues node(String database, boolean brokenJobsTable, boolean flakyStatement) {
        return node(database, brokenJobsTable, flakyStatement, null);
    }

    private static JdbcDataSource dataSource(String database) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    private static RowQueues node(String database, boolean brokenJobsTable, boolean flakyStatement,
                                  Function<WorkTables, String> failingIndex) {
        return RowQueues.builder(dataSource(database)).scheduler(false).registerDialect(new DialectProvider() {
            @Override
            public String name() {
                return "unaware";
            }

            @Override
            public boolean supports(DatabaseProduct product) {
                return true;
            }

            @Override
            public Dialect create(DatabaseProduct product, Map<String, String> options) {
                UnawareDialect dialect = new UnawareDialect(product, brokenJobsTable);
                dialect.flakyStatement = flakyStatement;
                dialect.failingIndex = failingIndex;
                return dialect;
            }
        }).build();
    }

    private List<String> schemaWarnings() {
        return err.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("WARN") && l.contains(SchemaManager.class.getName())).toList();
    }

    @Test
    void ddl_that_fails_because_another_node_created_the_objects_first_is_not_a_warning() {
        try (RowQueues first = node("log_race", false); RowQueues second = node("log_race", false)) {
            first.ring("log_race_ring", 4).push("g", "a");
            first.workQueue("log_race_work").enqueue("j");
            first.counters("log_race_counters").increment("k");

            // every CREATE of the second node fails ("already exists", unrecognised); its objects exist
            second.ring("log_race_ring", 4).push("g", "b");
            second.workQueue("log_race_work").enqueue("k");
            assertThat(second.counters("log_race_counters").increment("k")).isEqualTo(2);
            assertThat(second.workQueue("log_race_work").stats().ready()).isEqualTo(2);
        }
        assertThat(schemaWarnings()).isEmpty();
    }

    @Test
    void ddl_that_really_fails_is_thrown_as_before_and_warned_once_per_statement() {
        try (RowQueues first = node("log_broken", true); RowQueues second = node("log_broken", true)) {
            for (RowQueues node : List.of(first, second, first)) {
                assertThatThrownBy(() -> node.workQueue("log_broken_work").create())
                        .isInstanceOf(SchemaException.class)
                        .hasMessageContaining("log_broken_work")
                        .satisfies(e -> assertThat(e.getSuppressed()).isNotEmpty()
                                .allSatisfy(s -> assertThat(s).isInstanceOf(SQLException.class)));
            }
        }
        List<String> warnings = schemaWarnings();
        // the jobs table (bad type) and its five indexes (no table): six statements, each warned once for three
        // attempts
        assertThat(warnings).hasSize(6);
        assertThat(warnings.get(0)).contains("CREATE TABLE log_broken_work (id NO_SUCH_TYPE)");
        assertThat(warnings.get(1)).contains("CREATE INDEX log_broken_work_due ON log_broken_work");
        assertThat(warnings.get(2)).contains("CREATE UNIQUE INDEX log_broken_work_uniq ON log_broken_work");
    }

    @Test
    void ddl_that_fails_transiently_is_run_again_not_skipped() throws SQLException {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:log_flaky;DB_CLOSE_DELAY=-1");
        try (var c = ds.getConnection(); var st = c.createStatement()) {
            st.execute("CREATE ALIAS ROWQUEUE_FLAKY_DDL FOR \"" + FlakyDdl.class.getName() + ".failOnce\"");
        }
        FlakyDdl.CALLS.set(0);
        try (RowQueues node = node("log_flaky", false, true)) {
            node.workQueue("log_flaky_work").enqueue("j");
            assertThat(node.workQueue("log_flaky_work").stats().ready()).isEqualTo(1);
        }
        assertThat(FlakyDdl.CALLS.get()).as("the deadlock victim ran again").isEqualTo(2);
        assertThat(schemaWarnings()).isEmpty();
    }

    @Test
    void without_its_unique_index_a_queue_refuses_unique_enqueues_naming_the_index_and_its_ddl() throws SQLException {
        try (RowQueues rq = node("guarantee_uniq", false, false, WorkTables::uniqueIndex)) {
            WorkQueue q = rq.workQueue("gq");
            assertThat(q.enqueue("plain")).isPositive();
            assertThat(q.enqueue("keyed", Enqueue.defaults().withKey("k"))).isPositive();
            assertThatThrownBy(() -> q.enqueue("unique", Enqueue.defaults().withUniqueKey("u")))
                    .isInstanceOf(SchemaException.class)
                    .hasMessageContaining("work queue 'gq' refuses unique enqueues")
                    .hasMessageContaining("unique index gq_uniq on (unique_key) does not exist")
                    .hasMessageContaining("fix: CREATE UNIQUE INDEX gq_uniq ON gq (unique_key)");
            assertThat(q.stats().ready()).as("the refused enqueue wrote nothing").isEqualTo(2);
            List<SchemaDifference> differences = rq.checkSchema();
            assertThat(differences).extracting(SchemaDifference::object).containsExactly("gq_uniq");
            assertThat(differences.get(0).guarantee()).isTrue();

            // the DDL the refusal gives makes the queue whole: the same instance takes unique enqueues again
            try (var c = dataSource("guarantee_uniq").getConnection(); var st = c.createStatement()) {
                st.execute(differences.get(0).fix());
            }
            long id = q.enqueue("unique", Enqueue.defaults().withUniqueKey("u"));
            assertThat(q.enqueue("again", Enqueue.defaults().withUniqueKey("u"))).isEqualTo(id);
            assertThat(rq.checkSchema()).isEmpty();
        }
        assertThat(schemaWarnings()).anySatisfy(w -> assertThat(w).contains("gq_uniq")
                .contains("the operations that need it are refused until it exists"));
    }

    @Test
    void without_an_index_that_serves_speed_alone_a_queue_works_and_warns_once() {
        try (RowQueues rq = node("guarantee_speed", false, false, WorkTables::claimIndex);
             RowQueues again = node("guarantee_speed", false, false, WorkTables::claimIndex)) {
            WorkQueue q = rq.workQueue("sq");
            long id = q.enqueue("unique", Enqueue.defaults().withUniqueKey("u"));
            assertThat(q.enqueue("again", Enqueue.defaults().withUniqueKey("u"))).isEqualTo(id);
            assertThat(again.workQueue("sq").claim(5)).extracting(Job::id).containsExactly(id);
            assertThat(rq.checkSchema()).extracting(SchemaDifference::object).containsExactly("sq_due");
        }
        List<String> speed = schemaWarnings().stream().filter(w -> w.contains("serves speed only")).toList();
        assertThat(speed).hasSize(1);
        assertThat(speed.get(0)).contains("index sq_due on (state, prio, due_ms, id) does not exist")
                .contains("CREATE INDEX sq_due ON sq (state, prio DESC, due_ms, id)")
                .contains("it keeps working, maybe slower");
    }
}
