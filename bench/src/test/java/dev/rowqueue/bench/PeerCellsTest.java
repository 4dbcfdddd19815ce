package dev.rowqueue.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The side-by-side table's wording, from made-up measurements (never a speed of this machine). */
class PeerCellsTest {

    private static Harness.Measurement rate(double perSecond) {
        return new Harness.Measurement(perSecond, perSecond, perSecond, 0, 0, (long) perSecond, 0, false);
    }

    @Test
    void a_peer_that_completed_no_job_is_not_compared_instead_of_a_ratio_over_zero() {
        Results results = new Results(name -> true);
        results.side(new Results.Side("MariaDB", "workers, no-op handler", 4, "rowqueue", rate(7_000), "", false));
        results.side(new Results.Side("MariaDB", "workers, no-op handler", 4, "JobRunr", rate(0), "", false));
        results.side(new Results.Side("MariaDB", "workers, no-op handler", 4, "db-scheduler", rate(3_500), "", false));
        StringBuilder md = new StringBuilder();
        PeerCells.render(md, results, Profile.quick());
        String table = md.toString();
        assertTrue(table.contains("0/s (no job in the timed rounds: not compared)"), table);
        assertTrue(table.contains("3,500/s (**2.00x**)"), table);
        assertTrue(table.contains("rowqueue at 1.0x or more in 1 of 1 comparisons"), table);
        assertFalse(table.matches("(?s).*\\d{6,}\\.\\d\\dx.*"), "no ratio over a rate of 0: " + table);
    }
}
