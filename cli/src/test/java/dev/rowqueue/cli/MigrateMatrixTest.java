package dev.rowqueue.cli;

import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rowqueue migrate} between every ordered pair of {@link MigrationTargets}: H2, portable on H2, SQLite, and the
 * local PostgreSQL and MariaDB servers when they answer (each endpoint a fresh database), so every pair of engine
 * families of the default build; with server targets configured (see {@link MigrationTargets}) the others too. The
 * source holds queues of every kind, jobs in every state, dead letters, schedules a scheduler fired, and counters;
 * after the move both sides are compared row by row with plain JDBC.
 */
class MigrateMatrixTest {

    static Stream<Arguments> pairs() {
        List<Arguments> pairs = new ArrayList<>();
        List<MigrationTargets.Factory> all = MigrationTargets.all();
        for (MigrationTargets.Factory from : all) {
            for (MigrationTargets.Factory to : all) {
                if (from != to || from.separateDatabases()) {
                    pairs.add(Arguments.of(Named.of(from.name(), from), Named.of(to.name(), to)));
                }
            }
        }
        return pairs.stream();
    }

    /**
     * For the interrupted migration, which exercises checkpoints rather than engines: each target once as source and
     * once as target (each to the next in the list), to keep the default build fast.
     */
    static Stream<Arguments> ring() {
        List<Arguments> pairs = new ArrayList<>();
        List<MigrationTargets.Factory> all = MigrationTargets.all();
        for (int i = 0; i < all.size(); i++) {
            MigrationTargets.Factory from = all.get(i);
            MigrationTargets.Factory to = all.get((i + 1) % all.size());
            pairs.add(Arguments.of(Named.of(from.name(), from), Named.of(to.name(), to)));
        }
        return pairs.stream();
    }

    /** Runs a test between two fresh endpoints and removes what it made. */
    private static void between(MigrationTargets.Factory fromFactory, MigrationTargets.Factory toFactory,
                                TestBody body) throws Exception {
        Endpoint from = fromFactory.create();
        Endpoint to = toFactory.create();
        MigrationFixture fixture = MigrationFixture.fresh();
        try {
            body.run(from, to, fixture);
        } finally {
            cleanup(from, fixture);
            cleanup(to, fixture);
            fromFactory.release(from);
            toFactory.release(to);
        }
    }

    private interface TestBody {
        void run(Endpoint from, Endpoint to, MigrationFixture fixture) throws Exception;
    }

    private static void cleanup(Endpoint endpoint, MigrationFixture fixture) {
        try (Endpoint.Opened db = endpoint.open(true)) {
            db.rq().existingSchedules().ifPresent(s -> fixture.scheduleNames().forEach(s::delete));
            for (String name : fixture.names()) {
                db.rq().dropQueue(name);
                try {
                    new Checkpoints(db.dataSource()).forget(name);
                } catch (SQLException noCheckpointTable) {
                    // this side never was a target
                }
            }
        } catch (RuntimeException e) {
            // the database is gone already
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("pairs")
    void moves_rings_work_queues_and_counters_and_verifies_them(MigrationTargets.Factory fromFactory,
                                                               MigrationTargets.Factory toFactory) throws Exception {
        between(fromFactory, toFactory, (from, to, fixture) -> {
            try (Endpoint.Opened src = from.open(true)) {
                fixture.populate(src);
            }
            Cli.Result r = Cli.run(MigrationFixture.passwords(from, to), fixture.migrateArgs(from, to,
                    "--batch-size", "2"));
            assertEquals(0, r.code(), r::toString);
            assertTrue(r.out().matches("(?s).*VERIFIED: 4 queues, [0-9]+ rows; every row count and checksum matches on"
                    + " both sides.*"), r.out());
            assertTrue(r.out().matches("(?s).*Carried: 1 ring, 2 work queues, 1 counters table; 4 ring groups, 6 ring"
                    + " entries, [0-9]+ jobs \\(1 dead\\), 1 rotation cursors, 3 schedules, [0-9]+ fired schedule"
                    + " slots, 5 counters.*"), r.out());
            try (Endpoint.Opened src = from.open(false); Endpoint.Opened dst = to.open(false)) {
                fixture.assertSameRows(src, dst);
            }
            try (Endpoint.Opened dst = to.open(false)) {
                fixture.assertMigrated(dst.rq());
            }
        });
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("ring")
    void an_interrupted_migration_continues_after_its_last_committed_batch(MigrationTargets.Factory fromFactory,
                                                                          MigrationTargets.Factory toFactory)
            throws Exception {
        between(fromFactory, toFactory, (from, to, fixture) -> {
            try (Endpoint.Opened src = from.open(true)) {
                fixture.populate(src);
            }
            CliEnv env = MigrationFixture.passwords(from, to);
            Consumer<picocli.CommandLine> crashOnThirdJobBatch = cl -> ((MigrateCommand) cl.getSubcommands()
                    .get("migrate").getCommand()).hook = new Migration.Listener() {
                        @Override
                        public void beforeCommit(String queue, String part, int batch) throws SQLException {
                            if (queue.equals(fixture.work) && part.equals("jobs") && batch == 3) {
                                throw new SQLException("simulated crash", "08006");
                            }
                        }
                    };
            Cli.Result crashed = Cli.run(env, crashOnThirdJobBatch, fixture.migrateArgs(from, to, "--batch-size",
                    "2"));
            assertEquals(ExitCode.DATABASE, crashed.code(), crashed::toString);
            assertTrue(crashed.err().contains("migration interrupted: simulated crash. Run the same command again"),
                    crashed.err());
            assertEquals(4, countRows(to, fixture.work), "two whole batches of jobs, never half of one");

            Cli.Result resumed = Cli.run(env, fixture.migrateArgs(from, to, "--batch-size", "2"));
            assertEquals(0, resumed.code(), resumed::toString);
            assertTrue(resumed.out().contains(fixture.work + ": jobs resumed after 4 rows copied by an earlier run"),
                    resumed.out());
            assertTrue(resumed.out().matches("(?s).*\\| " + fixture.work + " +\\| work queue +\\| " + fixture.work
                    + " +\\| +4 \\| +8 \\| +8 \\| [0-9a-f]{16} +\\| OK +\\|.*"), resumed.out());
            assertTrue(resumed.out().matches("(?s).*\\| " + fixture.ring + " +\\| ring +\\| " + fixture.ring
                    + " +\\| +0 \\| +6 \\| +6 \\|.*"), "the ring was done before the crash: " + resumed.out());
            assertTrue(resumed.out().matches("(?s).*VERIFIED: 4 queues, [0-9]+ rows.*"), resumed.out());

            Cli.Result again = Cli.run(env, fixture.migrateArgs(from, to));
            assertEquals(0, again.code(), again::toString);
            assertTrue(again.out().matches("(?s).*\\| " + fixture.counters + " +\\| counters table \\| "
                    + fixture.counters + " +\\| +0 \\| +5 \\| +5 \\|.*"), "nothing copied twice: " + again.out());
            assertTrue(again.out().contains("VERIFIED"), again.out());

            try (Endpoint.Opened src = from.open(false); Endpoint.Opened dst = to.open(false)) {
                fixture.assertSameRows(src, dst);
            }
            try (Endpoint.Opened dst = to.open(false)) {
                fixture.assertMigrated(dst.rq());
            }
        });
    }

    private static long countRows(Endpoint endpoint, String table) throws SQLException {
        try (Connection c = new DriverManagerDataSource(endpoint.url(), endpoint.user(),
                endpoint.password()).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
