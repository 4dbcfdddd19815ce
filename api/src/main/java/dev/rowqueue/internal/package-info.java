/**
 * Not for users: the implementation behind {@code dev.rowqueue} and {@code dev.rowqueue.spi}. Anything here may
 * change or disappear in any release; it is left out of the javadoc, and no other rowqueue module's main code uses
 * it. Use {@link dev.rowqueue.RowQueues}, {@link dev.rowqueue.SchemaScripts#of(dev.rowqueue.spi.Dialect)} and
 * {@link dev.rowqueue.spi.DialectProviders} instead.
 */
package dev.rowqueue.internal;
