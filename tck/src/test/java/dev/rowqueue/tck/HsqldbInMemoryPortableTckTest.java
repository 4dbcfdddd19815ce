package dev.rowqueue.tck;

/** The whole kit on HSQLDB in memory, served by the portable dialect (no dialect module was written for it). */
class HsqldbInMemoryPortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("portable dialect on HSQLDB in memory", "jdbc:hsqldb:mem:rowqueue_tck", "SA", "")
                .withDialect("portable", "portable dialect on HSQLDB in memory");
    }
}
