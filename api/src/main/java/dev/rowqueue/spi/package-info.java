/**
 * The contracts a dialect module implements: a {@link dev.rowqueue.spi.Dialect} (what differs per database:
 * capabilities, {@link dev.rowqueue.spi.DialectPolicy}, DDL answers, error classification, statement forms) found
 * through a {@link dev.rowqueue.spi.DialectProvider} listed in {@code META-INF/services}, and the stores it returns
 * ({@link dev.rowqueue.spi.RingStore}, {@link dev.rowqueue.spi.WorkStore}, {@link dev.rowqueue.spi.CounterStore},
 * {@link dev.rowqueue.spi.ScheduleStore}, {@link dev.rowqueue.spi.ActivityStore}),
 * with the tables they run on ({@link dev.rowqueue.spi.RingTables}, {@link dev.rowqueue.spi.WorkTables},
 * {@link dev.rowqueue.spi.CounterTable}, {@link dev.rowqueue.spi.Schema}).
 *
 * <p>The engines most dialects are built from (the portable stores run by statement sets, the DDL renderer, the
 * error classifier, the portable dialect) are in {@link dev.rowqueue.support}. A new database needs a dialect, a
 * provider and, where its SQL differs, statement sets; {@code docs/tck.md} walks through the smallest module.
 */
package dev.rowqueue.spi;
