package dev.rowqueue.cli;

import dev.rowqueue.RingEntry;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The migrate command's refusals and reports, between H2 databases. */
class MigrateCommandTest {

    private final MigrationTargets.Factory h2 = MigrationTargets.h2("H2", null);
    private final List<Endpoint> made = new ArrayList<>();

    private Endpoint database() {
        Endpoint e = h2.create();
        made.add(e);
        return e;
    }

    @AfterEach
    void release() {
        made.forEach(h2::release);
    }

    private static Cli.Result migrate(Endpoint from, Endpoint to, String... more) {
        List<String> args = new ArrayList<>(List.of("migrate", "--from", from.url(), "--from-user", "sa", "--to",
                to.url(), "--to-user", "sa"));
        args.addAll(List.of(more));
        return Cli.run(MigrationFixture.passwords(from, to), args.toArray(new String[0]));
    }

    @Test
    void every_queue_of_the_catalog_moves_when_none_is_named() {
        Endpoint from = database();
        Endpoint to = database();
        try (Endpoint.Opened src = from.open(true)) {
            src.rq().ring("fruit", 5).push("basket", "apples");
            src.rq().workQueue("mail").enqueue("hello");
        }
        Cli.Result r = migrate(from, to);
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("Migrating 2 queues from H2 "), r.out());
        assertTrue(r.out().contains("VERIFIED: 2 queues, 3 rows"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void a_target_queue_holding_rows_no_migration_wrote_is_refused_until_fresh() {
        Endpoint from = database();
        Endpoint to = database();
        try (Endpoint.Opened src = from.open(true); Endpoint.Opened dst = to.open(true)) {
            src.rq().ring("fruit", 5).pushAll("basket", List.of("apples", "pears"));
            dst.rq().ring("fruit", 5).push("basket", "already here");
        }
        Cli.Result refused = migrate(from, to);
        assertEquals(ExitCode.FAILED, refused.code(), refused::toString);
        assertTrue(refused.out().contains("FAILED fruit: the target table fruit_head already holds 1 rows that no"
                + " migration wrote; rerun with --fresh"), refused.out());
        assertTrue(refused.out().contains("NOT VERIFIED: 0 of 1 queues verified"), refused.out());

        Cli.Result fresh = migrate(from, to, "--fresh");
        assertEquals(0, fresh.code(), fresh::toString);
        assertTrue(fresh.out().contains("fruit: dropped on the target (--fresh)"), fresh.out());
        try (Endpoint.Opened dst = to.open(false)) {
            assertEquals(List.of("apples", "pears"), dst.rq().ring("fruit", 5).oldestFirst("basket").stream()
                    .map(RingEntry::payload).toList());
        }
    }

    @Test
    void a_target_changed_after_the_copy_fails_verification() throws Exception {
        Endpoint from = database();
        Endpoint to = database();
        try (Endpoint.Opened src = from.open(true)) {
            src.rq().counters("booksales").set("Bulldozer", 13);
        }
        assertEquals(0, migrate(from, to).code());
        try (Connection c = to.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE booksales SET counter_value = 14");
        }
        Cli.Result r = migrate(from, to);
        assertEquals(ExitCode.FAILED, r.code(), r::toString);
        assertTrue(r.out().matches("(?s).*\\| booksales \\| counters table \\| booksales \\| +0 \\| +1 \\| +1 \\|"
                + " [0-9a-f]{16} / [0-9a-f]{16} \\| MISMATCH \\|.*"), r.out());
        assertTrue(r.out().contains("MISMATCH booksales: counts or checksums differ"), r.out());
    }

    @Test
    void a_ring_strategy_the_target_lacks_fails_that_queue_only() {
        Endpoint from = database();
        Endpoint to = database();
        try (Endpoint.Opened src = from.open(true)) {
            src.rq().ring("solo", RingOptions.ofCapacity(3).withStrategy(RingStrategy.SINGLE_WRITER)).push("g", "x");
            src.rq().counters("votes").increment("yes");
        }
        Cli.Result r = migrate(from, to, "--to-dialect", "portable");
        assertEquals(ExitCode.FAILED, r.code(), r::toString);
        assertTrue(r.out().contains("FAILED solo: cannot create it on the target: dialect 'portable' does not offer"
                + " ring strategy SINGLE_WRITER"), r.out());
        assertTrue(r.out().contains("NOT VERIFIED: 1 of 2 queues verified"), r.out());

        Endpoint h2Target = database();
        Cli.Result same = migrate(from, h2Target, "--queue", "solo");
        assertEquals(0, same.code(), same::toString);
        try (Endpoint.Opened dst = h2Target.open(false)) {
            RingQueue solo = dst.rq().ring("solo", RingOptions.ofCapacity(3).withStrategy(RingStrategy.SINGLE_WRITER));
            assertEquals(2, solo.push("g", "y"), "the single-writer ring continues from its entries");
        }
    }

    @Test
    void a_queue_of_another_kind_on_the_target_is_a_conflict() {
        Endpoint from = database();
        Endpoint to = database();
        try (Endpoint.Opened src = from.open(true); Endpoint.Opened dst = to.open(true)) {
            src.rq().ring("mail", 5).push("g", "x");
            dst.rq().workQueue("mail").create();
        }
        Cli.Result r = migrate(from, to);
        assertEquals(ExitCode.FAILED, r.code(), r::toString);
        assertTrue(r.out().contains("FAILED mail: cannot create it on the target: queue 'mail' exists as a work"
                + " queue"), r.out());
    }

    @Test
    void the_same_database_under_another_url_is_refused_even_with_fresh() {
        Endpoint from = database();
        try (Endpoint.Opened src = from.open(true)) {
            src.rq().ring("fruit", 5).push("basket", "apples");
        }
        Endpoint sameDatabase = new Endpoint(from.url().replace(";DB_CLOSE_DELAY=-1", ""), "sa", "", null,
                java.util.Map.of());
        Cli.Result r = migrate(from, sameDatabase, "--fresh");
        assertEquals(ExitCode.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("--from and --to reach the same database and schema"), r.err());
        try (Endpoint.Opened src = from.open(false)) {
            assertEquals(1, src.rq().ring("fruit", 5).size("basket"), "the source was not dropped");
        }
    }

    @Test
    void bad_requests() {
        Endpoint from = database();
        Endpoint to = database();
        Cli.Result empty = migrate(from, to);
        assertEquals(ExitCode.NOT_FOUND, empty.code(), empty::toString);
        assertTrue(empty.err().contains("has no rowqueue queues"), empty.err());

        try (Endpoint.Opened src = from.open(true)) {
            src.rq().counters("votes");
        }
        Cli.Result unknown = migrate(from, to, "--queue", "nosuch");
        assertEquals(ExitCode.NOT_FOUND, unknown.code(), unknown::toString);
        assertTrue(unknown.err().contains("the source has no queue named 'nosuch'; it has votes"), unknown.err());

        Cli.Result self = migrate(from, from);
        assertEquals(ExitCode.USAGE, self.code(), self::toString);
        assertEquals(ExitCode.USAGE, migrate(from, to, "--batch-size", "0").code());
        assertEquals(ExitCode.USAGE, Cli.run("migrate", "--from", from.url()).code(), "--to is required");
    }
}
