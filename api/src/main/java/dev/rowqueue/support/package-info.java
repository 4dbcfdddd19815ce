/**
 * The engines a dialect is built from, for dialect modules (applications use {@link dev.rowqueue}).
 *
 * <ul>
 *   <li>{@link dev.rowqueue.support.StandardRingStore}, {@link dev.rowqueue.support.StandardWorkStore} and
 *       {@link dev.rowqueue.support.StandardCounterStore}: the portable stores. They run a dialect's statement sets
 *       ({@link dev.rowqueue.support.RingStatements}, {@link dev.rowqueue.support.WorkStatements},
 *       {@link dev.rowqueue.support.CounterStatements}: records of the SQL a database runs instead of a portable
 *       step, a null field keeping the portable one, and of the narrow hooks declared in them where a database needs
 *       code) and its {@link dev.rowqueue.support.SqlForms}, and are composed of the parts here (claims, keyed
 *       claims, rotation, dead letters).</li>
 *   <li>{@link dev.rowqueue.support.StandardScheduleStore}: the portable schedules, every statement of the
 *       schedules API and the scheduler; {@link dev.rowqueue.support.StandardActivityStore}: the portable
 *       activity table.</li>
 *   <li>{@link dev.rowqueue.support.SchemaDdl}: the schema's DDL, rendered from a dialect's
 *       {@link dev.rowqueue.support.DdlFeatures} (column types and answers such as "accepts IF NOT EXISTS").</li>
 *   <li>{@link dev.rowqueue.support.SqlErrors}: how driver exceptions are classified.</li>
 *   <li>{@link dev.rowqueue.support.Sql} and {@link dev.rowqueue.support.Jdbc}: named parameters and JDBC
 *       helpers.</li>
 * </ul>
 *
 * The contracts a dialect implements are in {@link dev.rowqueue.spi}; the portable dialect, for databases no module
 * serves, is in {@link dev.rowqueue.portable}.
 */
package dev.rowqueue.support;
