/**
 * The engines a dialect builds its stores from: statement sets (records of the SQL a database runs instead of the
 * portable statements) and the parts the stores compose. A dialect module supplies statement sets; the stores in
 * {@code dev.rowqueue.spi} run them.
 */
package dev.rowqueue.support;
