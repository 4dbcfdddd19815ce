package dev.rowqueue.tck.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one round of one cell: the {@link Workload} on a {@link FaultTarget}, the fault injected while it runs, then
 * the drain and the {@link HistoryChecker}. The round's figures and anomalies come back as a {@link CellResult}.
 *
 * @param warmup   load before the fault
 * @param hold     how long the fault lasts (a stall, a partition, a series of connection cuts)
 * @param after    load after the deployment is whole again
 * @param patience the longest wait for the deployment to be whole again, and for the queues to drain
 * @param load     the workload's settings
 */
public record FaultCell(Duration warmup, Duration hold, Duration after, Duration patience,
                        Workload.Settings load) {

    /**
     * @return the settings of the default build's round (a hold of {@code rowqueue.faults.hold.seconds}, 10 s
     *         unless set)
     */
    public static FaultCell fromProperties() {
        return new FaultCell(Duration.ofSeconds(2), Duration.ofSeconds(Long.getLong("rowqueue.faults.hold.seconds",
                10)), Duration.ofSeconds(2), Duration.ofSeconds(90), Workload.Settings.defaults());
    }

    /**
     * Runs a round.
     *
     * @param target the deployment
     * @param fault  the fault
     * @param prefix a fresh prefix for the round's queues (letters, digits, underscores)
     * @return the round's result
     * @throws Exception if the fault could not be injected or the deployment did not become whole again
     */
    public CellResult run(FaultTarget target, Fault fault, String prefix) throws Exception {
        long started = System.nanoTime();
        target.awaitWhole(patience); // an earlier round that failed may have left it broken
        try (Workload w = new Workload(target::builder, prefix, load)) {
            w.start();
            TimeUnit.NANOSECONDS.sleep(warmup.toNanos());
            FaultTarget.Injection injection = target.inject(fault, hold);
            target.awaitServing(patience);
            w.history().awaitSuccesses(w.roles(), injection.ended(), patience);
            TimeUnit.NANOSECONDS.sleep(after.toNanos());
            w.stopProducing();
            target.awaitWhole(patience);
            List<Anomaly> anomalies = w.drainAndCheck(patience);
            History h = w.history();
            long recovery = recovery(h, w.roles(), injection.ended(), anomalies);
            return new CellResult(target.name(), fault, injection.what(),
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), h.calls().size(),
                    h.writes().stream().filter(x -> x.type() == History.Type.ENQUEUE && x.outcome() == Outcome.OK)
                            .count(), h.runs().size(), h.outcomes(),
                    anomalies, recovery, longestOutage(h, w.roles()));
        }
    }

    /**
     * @return from the fault's end until every role had a success it began after that end; a role without one (after
     *         {@link #patience}) is a liveness anomaly
     */
    static long recovery(History h, List<String> roles, Instant ended, List<Anomaly> anomalies) {
        Map<String, Instant> first = h.firstSuccesses(ended);
        long worst = 0;
        for (String role : roles) {
            Instant at = first.get(role);
            if (at == null) {
                anomalies.add(new Anomaly(Anomaly.Kind.LIVENESS, role + " never succeeded after the fault ended"));
            } else {
                worst = Math.max(worst, Duration.between(ended, at).toMillis());
            }
        }
        return worst;
    }

    /** @return the longest time between two successes of one role (or from its first call to its first success) */
    static long longestOutage(History h, List<String> roles) {
        long worst = 0;
        for (String role : roles) {
            List<History.Call> calls = h.calls().stream().filter(c -> c.role().equals(role))
                    .sorted(Comparator.comparing(History.Call::returned)).toList();
            if (calls.isEmpty()) {
                continue;
            }
            Instant last = calls.get(0).invoked();
            for (History.Call c : calls) {
                if (c.outcome() == Outcome.OK) {
                    worst = Math.max(worst, Duration.between(last, c.returned()).toMillis());
                    last = c.returned();
                }
            }
        }
        return worst;
    }
}
