/**
 * The engines a dialect is built from: what every database shares, driven by the answers a dialect gives
 * ({@link dev.rowqueue.support.DdlFeatures}) and refined where a database differs
 * ({@link dev.rowqueue.support.SqlErrors}). {@link dev.rowqueue.support.SchemaDdl} renders the schema's DDL;
 * {@link dev.rowqueue.support.SqlErrors} classifies driver exceptions. The contracts a dialect implements are in
 * {@link dev.rowqueue.spi}.
 */
package dev.rowqueue.support;
