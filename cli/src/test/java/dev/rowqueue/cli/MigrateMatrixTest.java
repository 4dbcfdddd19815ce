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
 * {@code rowqueue migrate} between every ordered pair of {@link MigrationTargets}: here H2 to H2 (two separate
 * databases), H2 to portable-on-H2, portable-on-H2 to H2 and portable to portable; with server targets configured
 * (see {@link MigrationTargets}), PostgreSQL, MariaDB and the others in both directions too.
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
                fixture.populate(src.rq());
            }
            Cli.Result r = Cli.run(MigrationFixture.passwords(from, to), fixture.migrateArgs(from, to,
                    "--batch-size", "2"));
            assertEquals(0, r.code(), r::toString);
            assertTrue(r.out().contains("VERIFIED: 3 queues, 24 rows; every row count and checksum matches on both"
                    + " sides"), r.out());
            try (Endpoint.Opened dst = to.open(false)) {
                fixture.assertMigrated(dst.rq());
            }
        });
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("pairs")
    void an_interrupted_migration_continues_after_its_last_committed_batch(MigrationTargets.Factory fromFactory,
                                                                          MigrationTargets.Factory toFactory)
            throws Exception {
        between(fromFactory, toFactory, (from, to, fixture) -> {
            try (Endpoint.Opened src = from.open(true)) {
                fixture.populate(src.rq());
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
            assertTrue(resumed.out().contains("VERIFIED: 3 queues, 24 rows"), resumed.out());

            Cli.Result again = Cli.run(env, fixture.migrateArgs(from, to));
            assertEquals(0, again.code(), again::toString);
            assertTrue(again.out().matches("(?s).*\\| " + fixture.counters + " +\\| counters table \\| "
                    + fixture.counters + " +\\| +0 \\| +5 \\| +5 \\|.*"), "nothing copied twice: " + again.out());
            assertTrue(again.out().contains("VERIFIED"), again.out());

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
