package dev.rowqueue.micrometer;

import javax.sql.DataSource;

/** The depth gauges' cost on H2 in memory. */
class H2DepthCostTest extends DepthCostContract {
    private final DataSource h2 = Databases.h2();

    @Override
    DataSource dataSource() {
        return h2;
    }

    @Override
    String database() {
        return "H2 " + org.h2.engine.Constants.VERSION + " (in memory)";
    }
}
