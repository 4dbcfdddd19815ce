package dev.rowqueue.tck.faults;

import dev.rowqueue.tck.faults.History.Call;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** When each role first succeeded after a fault: what the campaign's recovery and the failover's resumption read. */
class HistoryTest {

    private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");

    private final History h = new History();

    private void call(String role, long invoked, long returned, Outcome outcome) {
        h.add(new Call(role, T0.plusMillis(invoked), T0.plusMillis(returned), outcome, null));
    }

    @Test
    void first_successes_are_ok_calls_invoked_at_or_after_the_instant_earliest_return_first() {
        call("enqueue", -10, 50, Outcome.OK);    // invoked before: it may have been served before the fault
        call("enqueue", 5, 40, Outcome.FAILED);
        call("enqueue", 5, 45, Outcome.UNKNOWN);
        call("enqueue", 20, 80, Outcome.OK);
        call("enqueue", 30, 60, Outcome.OK);     // invoked later, returned first
        call("claim", 0, 1, Outcome.OK);         // invoked at the instant
        assertEquals(Map.of("enqueue", T0.plusMillis(60), "claim", T0.plusMillis(1)), h.firstSuccesses(T0));
    }

    @Test
    void awaiting_successes_gives_up_after_its_patience_and_leaves_out_the_roles_that_never_succeeded()
            throws InterruptedException {
        call("enqueue", 10, 20, Outcome.OK);
        call("push", 10, 20, Outcome.UNKNOWN);
        assertEquals(Map.of("enqueue", T0.plusMillis(20)), h.awaitSuccesses(List.of("enqueue", "push"), T0,
                Duration.ofMillis(200)));
        assertEquals(Map.of("enqueue", T0.plusMillis(20)), h.awaitSuccesses(List.of("enqueue"), T0,
                Duration.ofMinutes(5)));
    }
}
