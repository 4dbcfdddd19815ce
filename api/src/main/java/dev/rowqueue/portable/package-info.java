/**
 * The portable dialect: standard SQL for databases no dialect module serves, a dialect like the others, built on the
 * toolkit of {@link dev.rowqueue.support}.
 *
 * <ul>
 *   <li>{@link dev.rowqueue.portable.PortableDialect}: the dialect, the fallback when detection finds none, and its
 *       provider.</li>
 *   <li>{@link dev.rowqueue.portable.PortableFeatures}: what it finds a database to accept by asking it, once, at
 *       the dialect's creation; how two transactions on one row meet, with the other probes it runs at
 *       {@code build()} ({@link dev.rowqueue.spi.Dialect#refine}).</li>
 * </ul>
 */
package dev.rowqueue.portable;
