package dev.rowqueue.console;

import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueStats;

import java.time.Duration;
import java.util.Objects;

/**
 * One row of the console's overview.
 *
 * @param info        the queue's catalog entry
 * @param stats       a work queue's jobs by state; {@code null} for rings and counters
 * @param oldestReady how long the oldest ready job of a work queue has waited; {@code null} while unknown. Slot for
 *                    the job API (issue 26, item 1): the overview shows the column once a summary carries it
 * @param activity    a work queue's last hour, per minute; {@code null} while unknown. Slot for the job API (issue
 *                    26, item 1): the overview draws a sparkline once a summary carries it
 */
public record QueueSummary(QueueInfo info, QueueStats stats, Duration oldestReady, QueueActivity activity) {
    /** Validates the components. */
    public QueueSummary {
        Objects.requireNonNull(info, "info");
    }

    /**
     * @param info  a catalog entry
     * @param stats a work queue's counts, or {@code null}
     * @return a summary without the slots the job API fills
     */
    public static QueueSummary of(QueueInfo info, QueueStats stats) {
        return new QueueSummary(info, stats, null, null);
    }
}
