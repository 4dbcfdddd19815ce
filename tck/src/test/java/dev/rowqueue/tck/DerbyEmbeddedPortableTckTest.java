package dev.rowqueue.tck;

/**
 * The whole kit on Apache Derby embedded in memory, served by the portable dialect. Derby locks rows for reads too
 * (no multi-version reads), so consumers that ack and claim at once can wait for each other in a cycle; Derby finds
 * such a cycle only when a waiter has waited {@code derby.locks.deadlockTimeout} (20 s by default), and the victim's
 * transaction is retried. A queue with many consumers wants cycles found in a second.
 *
 * <p>Derby cannot see every cycle: a connection compiling a statement that waits for a table lock makes the other
 * connections compiling the same text wait on a Java monitor, outside its lock manager; when one of those holds the
 * table lock (nodes creating one queue's tables and indexes at once), only {@code derby.locks.waitTimeout} (60 s by
 * default) breaks the cycle, and the statement that timed out is retried. Five seconds keeps such a stall short.
 */
class DerbyEmbeddedPortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        System.setProperty("derby.locks.deadlockTimeout", "1");
        System.setProperty("derby.locks.waitTimeout", "5");
        return TckTargets.driverManager("portable dialect on Derby", "jdbc:derby:memory:rowqueue_tck;create=true",
                null, null).withDialect("portable", "portable dialect on Apache Derby embedded");
    }
}
