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
 * Issue 28's measurement: {@link PostgresFailoverTest}'s scenario with an <em>asynchronous</em> standby, whose primary
 * acknowledges commits before the standby has them. What the promoted standby lacks shows as the checker's anomalies
 * of the loss kinds ({@link FailoverScenario.Figures#LOSS_KINDS}), counted by kind: the database's contract,
 * measured, not a failure. Every other kind of anomaly still fails, and so do the scenario's own checks (workers and
 * LISTEN resume, the standby's pool). Only in the {@code soak} profile, as it takes a minute or more and its figure
 * needs many promotions to mean anything: {@code ./mvnw -Psoak -pl dialect-postgres -am verify
 * -Dtest=PostgresAsyncFailoverSoakTest -Dsurefire.failIfNoSpecifiedTests=false [-Drowqueue.failover.promotions=10]}.
 */
class PostgresAsyncFailoverSoakTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void promotions_of_an_asynchronous_standby_measure_the_acknowledged_writes_it_lacks() throws Exception {
        int promotions = Integer.getInteger("rowqueue.failover.promotions", 5);
        try (ReplicatedPostgres pg = ReplicatedPostgres.start(ReplicatedPostgres.Mode.ASYNCHRONOUS,
                FailoverScenario.database())) {
            FailoverScenario.Figures f = new FailoverScenario(pg, promotions, List.of(Duration.ZERO,
                    Duration.ofSeconds(1)), Duration.ofSeconds(3), Duration.ofSeconds(1)).run();
            System.out.println(f.report());
            assertEquals(promotions, f.rounds().size());
            assertTrue(f.acknowledged(History.Type.ENQUEUE) > 0 && f.acknowledged(History.Type.PUSH) > 0
                    && f.acknowledged(History.Type.INCREMENT) > 0 && f.runs() > 0, f.report());
            assertEquals(List.of(), f.unexpected(), f.report());
            assertEquals(List.of(), f.failures(), f.report());
        }
    }
}
