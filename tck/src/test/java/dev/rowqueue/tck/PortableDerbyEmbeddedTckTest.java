package dev.rowqueue.tck;

/** The whole kit on Apache Derby embedded in memory, served by the portable dialect. */
class PortableDerbyEmbeddedTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("portable dialect on Derby", "jdbc:derby:memory:rowqueue_tck;create=true",
                null, null).withDialect("portable", "portable dialect on Apache Derby embedded");
    }
}
