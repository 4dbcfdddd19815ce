package dev.rowqueue.db2;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import org.testcontainers.db2.Db2Container;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The whole kit on Db2 Community Edition in a container (image {@code icr.io/db2_community/db2}); the test accepts
 * the image's licence explicitly ({@link Db2Container#acceptLicense()}). Runs wherever a Docker engine is available
 * (the image runs privileged); without one, JUnit disables the class and the report says NOT RUN.
 */
@Testcontainers(disabledWithoutDocker = true)
class Db2CommunityTckTest extends RowQueueTck {

    /** The image, pinned to a 12.1 release. */
    static final String IMAGE = "icr.io/db2_community/db2:12.1.2.0";

    @Container
    static final Db2Container DB2 = new Db2Container(IMAGE).acceptLicense();

    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("Db2 Community Edition (Testcontainers, " + IMAGE + ")", DB2.getJdbcUrl(),
                DB2.getUsername(), DB2.getPassword());
    }
}
