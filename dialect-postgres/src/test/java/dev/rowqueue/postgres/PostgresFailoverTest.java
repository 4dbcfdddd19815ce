package dev.rowqueue.postgres;

import dev.rowqueue.tck.faults.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28: a primary with a synchronous standby loses its primary to SIGKILL three times under the fault campaign's
 * load, and the standby is promoted 0, 1 and 3 seconds after each kill (a failover manager's decision time); see
 * {@link FailoverScenario} for the load and every check. Zero anomalies from the shared history checker (nothing
 * acknowledged is lost, every unknown outcome surfaced as one, no job ran twice while its lease lived), and none of
 * the scenario's own failures: every role, workers and LISTEN came back by themselves, and a pool on the standby got
 * one read-only error per write.
 */
class PostgresFailoverTest {

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void three_promotions_of_a_synchronous_standby_under_load_lose_nothing_acknowledged() throws Exception {
        try (ReplicatedPostgres pg = ReplicatedPostgres.start(ReplicatedPostgres.Mode.SYNCHRONOUS,
                FailoverScenario.database())) {
            FailoverScenario.Figures f = new FailoverScenario(pg, 3, List.of(Duration.ZERO, Duration.ofSeconds(1),
                    Duration.ofSeconds(3)), Duration.ofSeconds(2), Duration.ofSeconds(1)).run();
            System.out.println(f.report());
            assertEquals(3, f.rounds().size());
            assertTrue(f.acknowledged(History.Type.ENQUEUE) > 0 && f.acknowledged(History.Type.PUSH) > 0
                    && f.acknowledged(History.Type.INCREMENT) > 0 && f.runs() > 0, f.report());
            assertEquals(List.of(), f.anomalies(), f.report());
            assertEquals(List.of(), f.failures(), f.report());
        }
    }
}
