package dev.rowqueue.tck;

/**
 * The whole kit on Apache Derby embedded in memory, served by the portable dialect, with Derby's defaults: no engine
 * property is set here that a user running {@code rowqueue tck} would not have. Derby locks rows for reads too, and
 * finds a lock cycle only after {@code derby.locks.deadlockTimeout} (20 s); the product itself keeps consumers and
 * creators of one database in this JVM from forming such cycles (docs/portable.md, "Where readers wait for writers").
 */
class DerbyEmbeddedPortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("portable dialect on Derby", "jdbc:derby:memory:rowqueue_tck;create=true",
                null, null).withDialect("portable", "portable dialect on Apache Derby embedded");
    }
}
