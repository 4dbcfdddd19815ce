/**
 * rowqueue for jOOQ: {@link dev.rowqueue.jooq.JooqRowQueues} builds a {@link dev.rowqueue.RowQueues} on a
 * {@code DSLContext}'s connections, and {@link dev.rowqueue.jooq.JooqWorkQueue},
 * {@link dev.rowqueue.jooq.JooqRingQueue} and {@link dev.rowqueue.jooq.JooqCounters} bind handles to the current jOOQ
 * transaction, so that queue operations commit or roll back with the jOOQ writes around them.
 */
package dev.rowqueue.jooq;
