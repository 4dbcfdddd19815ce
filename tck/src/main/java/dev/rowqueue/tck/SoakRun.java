package dev.rowqueue.tck;

import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.faults.Anomaly;
import dev.rowqueue.tck.faults.History;
import dev.rowqueue.tck.faults.HistoryChecker;
import dev.rowqueue.tck.faults.Outcome;
import dev.rowqueue.tck.faults.Workload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A bounded soak on one database: the fault campaign's {@link Workload} runs for a while as a fault thread kills
 * random sessions of it, then the queues drain without faults and the {@link HistoryChecker} goes over the whole
 * history (the same checker as every cluster's {@code FaultCampaign}). Figures come back in {@link Figures}.
 */
public final class SoakRun {

    /**
     * The run's figures and the anomalies the checker found (none is a pass).
     *
     * @param seconds    how long it took
     * @param operations calls of every role
     * @param failed     calls that failed transiently (nothing applied)
     * @param unknown    calls of unknown outcome
     * @param faults     sessions killed
     * @param anomalies  what the checker found
     */
    public record Figures(long seconds, long operations, long failed, long unknown, long faults,
                          List<Anomaly> anomalies) {
        /**
         * @param target the database, for the first column
         * @return one line of Markdown table: the figures in the order of {@link #HEADER}
         */
        public String row(String target) {
            return "| " + target + " | " + seconds + " | " + operations + " | " + faults + " | " + failed + " / "
                    + unknown + " | " + anomalies.size() + " |";
        }

        /** The table header for {@link #row}. */
        public static final String HEADER = "| Target | Seconds | Operations | Sessions killed | Failed / unknown"
                + " outcome | Anomalies |\n|---|---|---|---|---|---|";
    }

    private final Supplier<RowQueues.Builder> builders;
    private final Runnable killOneSession;
    private final Duration duration;
    private final Duration killEvery;

    /**
     * @param builders       makes a builder of {@code RowQueues} on the database under test
     * @param killOneSession kills one random session of the database's rowqueue connections (a fault)
     * @param duration       how long the load runs
     * @param killEvery      the pause between two faults
     */
    public SoakRun(Supplier<RowQueues.Builder> builders, Runnable killOneSession, Duration duration,
                   Duration killEvery) {
        this.builders = builders;
        this.killOneSession = killOneSession;
        this.duration = duration;
        this.killEvery = killEvery;
    }

    /**
     * Runs the load and the faults, waits for the queues to drain without faults, and checks the history.
     *
     * @param prefix a prefix for the queue names
     * @return the figures
     * @throws InterruptedException if interrupted
     */
    public Figures run(String prefix) throws InterruptedException {
        long started = System.nanoTime();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong faults = new AtomicLong();
        List<String> killerErrors = new ArrayList<>();
        try (Workload w = new Workload(builders, prefix, Workload.Settings.defaults())) {
            w.start();
            Thread killer = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(killEvery.toNanos());
                        killOneSession.run();
                        faults.incrementAndGet();
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        killerErrors.add(e.toString());
                    }
                }
            }, "soak-killer");
            killer.start();
            TimeUnit.NANOSECONDS.sleep(duration.toNanos());
            stop.set(true);
            killer.join();
            w.stopProducing();
            List<Anomaly> anomalies = w.drainAndCheck(Duration.ofMinutes(2));
            killerErrors.stream().limit(5).forEach(e -> System.out.println("soak: the killer failed: " + e));
            History h = w.history();
            return new Figures(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), h.calls().size(),
                    h.outcomes().getOrDefault(Outcome.FAILED, 0L), h.outcomes().getOrDefault(Outcome.UNKNOWN, 0L),
                    faults.get(), List.copyOf(anomalies));
        }
    }
}
