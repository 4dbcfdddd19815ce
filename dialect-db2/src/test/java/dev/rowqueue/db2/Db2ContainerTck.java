package dev.rowqueue.db2;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.testcontainers.db2.Db2Container;

/**
 * The whole kit on Db2 Community Edition in a container (image {@code icr.io/db2_community/db2}, which runs
 * privileged). The test accepts the image's licence explicitly ({@link Db2Container#acceptLicense()}). The
 * container starts when the kit opens the target and stops when it closes it; subclasses carry
 * {@code @Testcontainers(disabledWithoutDocker = true)}, so without a Docker engine JUnit disables them, and without
 * the image (no Debian package builds it; its registry must answer) {@link ContainerImages#require(String)} stops them:
 * either way the report says NOT RUN with the reason.
 */
abstract class Db2ContainerTck extends RowQueueTck {

    /** @return the image, with a pinned tag */
    abstract String image();

    @Override
    protected TckTarget target() {
        Db2Container db2 = new Db2Container(ContainerImages.require(image())).acceptLicense();
        db2.start();
        return TckTargets.of("Db2 Community Edition (Testcontainers, " + image() + ")",
                new DriverManagerDataSource(db2.getJdbcUrl(), db2.getUsername(), db2.getPassword()),
                db2::stop);
    }
}
