/**
 * Micrometer metrics and observations for rowqueue: {@link dev.rowqueue.micrometer.RowQueueMetrics} (operation,
 * worker and queue depth meters) and {@link dev.rowqueue.micrometer.ObservedJobHandler} (one observation, and so one
 * span, per job). The meter names and tags are listed in {@code docs/micrometer.md}.
 */
package dev.rowqueue.micrometer;
