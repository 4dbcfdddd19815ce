package dev.rowqueue.tck;

/**
 * The whole kit against the portable fallback dialect (standard SQL and transactions only), run on H2: proves the
 * fallback every unknown database gets is correct, including under concurrency.
 */
class H2InMemoryPortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("portable dialect on H2", "jdbc:h2:mem:rowqueue_portable;DB_CLOSE_DELAY=-1",
                "sa", "").withDialect("portable", "portable dialect on H2 in memory");
    }
}
