package dev.rowqueue.tck.faults;

import java.util.List;
import java.util.Map;

/**
 * One round of one cell of the campaign: a fault on a deployment under the {@link Workload}.
 *
 * @param deployment    the deployment
 * @param fault         the fault
 * @param what          what was done (which node)
 * @param seconds       how long the round took
 * @param operations    calls made, of every role
 * @param enqueued      enqueues acknowledged OK
 * @param runs          handlings of jobs by consumers and the worker
 * @param outcomes      calls by outcome
 * @param anomalies     what the checker found (none is a pass)
 * @param recoveryMillis from the fault's end until every role had succeeded again with a call made after it
 * @param outageMillis  the longest time any role went without a success, during the round
 */
public record CellResult(String deployment, Fault fault, String what, long seconds, long operations,
                         long enqueued, long runs, Map<Outcome, Long> outcomes, List<Anomaly> anomalies,
                         long recoveryMillis, long outageMillis) {

    /** Copies the collections. */
    public CellResult {
        outcomes = Map.copyOf(outcomes);
        anomalies = List.copyOf(anomalies);
    }

    /** @return calls whose outcome was unknown */
    public long unknown() {
        return outcomes.getOrDefault(Outcome.UNKNOWN, 0L);
    }

    /** @return calls that failed transiently (nothing applied) */
    public long failed() {
        return outcomes.getOrDefault(Outcome.FAILED, 0L);
    }

    /** @return one line for the log */
    public String line() {
        return deployment + " | " + fault + " (" + what + ") | " + seconds + " s | " + operations + " calls, "
                + enqueued + " enqueued, " + runs + " runs, " + failed() + " failed, " + unknown() + " unknown | recovered " + recoveryMillis + " ms after the"
                + " fault ended, longest outage " + outageMillis + " ms | " + anomalies.size() + " anomalies"
                + (anomalies.isEmpty() ? "" : ": " + anomalies.stream().limit(10).toList());
    }
}
