package dev.rowqueue.spring;

import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueues;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * rowqueue's health, under the name {@code rowqueue}:
 * <ul>
 *   <li>{@code DOWN} when the database cannot be reached (reading rowqueue's catalog or a queue's counts fails), or
 *       refuses the statement a worker declared as a bean claims with (a syntax error or a missing privilege: a
 *       permanent failure, see {@link dev.rowqueue.Worker#refused()}; detail {@code refusedWorkers});</li>
 *   <li>{@link #WARNING} when a work queue holds more dead letters than
 *       {@code rowqueue.health.dead-letter-threshold} (0 by default: any dead letter): jobs that exhausted their
 *       attempts need someone to look at them, but the application works;</li>
 *   <li>{@code UP} otherwise.</li>
 * </ul>
 * Details: the job counts of every work queue in the catalog ({@code ready}, {@code scheduled}, {@code leased},
 * {@code dead}), the queues above the threshold, and the workers declared as beans (whether they run, and each one's
 * queue, running handlers and pause). Each check reads the catalog and counts each work queue's jobs, one statement
 * per queue.
 *
 * <p>Spring Boot's default status order does not know {@code WARNING}, so the application's overall status ignores
 * it; list it to let it show there, for example
 * {@code management.endpoint.health.status.order=down,out-of-service,warning,up,unknown} (it maps to HTTP 200).
 */
public class RowQueueHealthIndicator extends AbstractHealthIndicator {

    /** Too many dead letters: not down, but worth a look. */
    public static final Status WARNING = new Status("WARNING",
            "a work queue holds more dead letters than rowqueue.health.dead-letter-threshold");

    private final RowQueues rowQueues;
    private final RowQueueWorkers workers;
    private final long deadLetterThreshold;

    /**
     * @param rowQueues           the instance whose database and queues are checked
     * @param workers             the workers declared as beans, or {@code null} if none are managed
     * @param deadLetterThreshold dead letters a work queue may hold before the status turns to {@link #WARNING}
     */
    public RowQueueHealthIndicator(RowQueues rowQueues, RowQueueWorkers workers, long deadLetterThreshold) {
        super("rowqueue health check failed");
        this.rowQueues = Objects.requireNonNull(rowQueues, "rowQueues");
        this.workers = workers;
        this.deadLetterThreshold = deadLetterThreshold;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Map<String, Object> queues = new LinkedHashMap<>();
        Map<String, Long> overThreshold = new LinkedHashMap<>();
        for (QueueInfo q : rowQueues.queues()) {
            if (q.kind() != QueueKind.WORK) {
                continue;
            }
            QueueStats s = rowQueues.workQueue(q.name()).stats();
            queues.put(q.name(), Map.of("ready", s.ready(), "scheduled", s.scheduled(), "leased", s.leased(),
                    "dead", s.dead()));
            if (s.dead() > deadLetterThreshold) {
                overThreshold.put(q.name(), s.dead());
            }
        }
        builder.status(overThreshold.isEmpty() ? Status.UP : WARNING)
                .withDetail("database", rowQueues.database().productName() + " " + rowQueues.database().productVersion()
                        + " (dialect " + rowQueues.database().dialect() + ")")
                .withDetail("workQueues", queues)
                .withDetail("deadLetterThreshold", deadLetterThreshold);
        if (!overThreshold.isEmpty()) {
            builder.withDetail("deadLettersAboveThreshold", overThreshold);
        }
        if (workers != null) {
            List<RowQueueWorkers.Status> statuses = workers.workers();
            List<Map<String, Object>> list = statuses.stream()
                    .map(w -> Map.<String, Object>of("queue", w.queue(), "paused", w.paused(), "runningHandlers",
                            w.running()))
                    .toList();
            Map<String, String> refused = new LinkedHashMap<>();
            statuses.stream().filter(w -> w.refused() != null).forEach(w -> refused.put(w.queue(), w.refused()));
            if (!refused.isEmpty()) {
                builder.status(Status.DOWN).withDetail("refusedWorkers", refused);
            }
            builder.withDetail("workers", Map.of("running", workers.isRunning(), "declared",
                    workers.definitions().size(), "workers", list));
        }
    }
}
