/**
 * The engines a dialect is built from: what every database shares, driven by the answers a dialect gives
 * ({@link dev.rowqueue.support.DdlFeatures}) and refined where a database differs
 * ({@link dev.rowqueue.support.SqlErrors}). {@link dev.rowqueue.support.SchemaDdl} renders the schema's DDL;
 * {@link dev.rowqueue.support.SqlErrors} classifies driver exceptions. The stores run statement sets (records of the
 * SQL a database runs instead of a portable step: {@link dev.rowqueue.support.CounterStatements},
 * {@link dev.rowqueue.support.RingStatements}, {@link dev.rowqueue.support.WorkStatements}) and the
 * {@link dev.rowqueue.support.SqlForms} of the dialect, and are composed of the parts here (claims, keyed claims,
 * rotation, dead letters). The contracts a dialect implements are in {@link dev.rowqueue.spi}.
 */
package dev.rowqueue.support;
