package dev.rowqueue.oracle;

import dev.rowqueue.tck.ContainerImages;
import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.oracle.OracleContainer;

/**
 * The whole kit on Oracle Database 23ai Free in a container (image {@code gvenzl/oracle-free}, slim variant,
 * pluggable database {@code freepdb1}). Runs wherever a Docker engine has or can pull the image; otherwise the report
 * says NOT RUN with the reason ({@link ContainerImages#require(String)}: no Debian package builds this image).
 */
@Testcontainers(disabledWithoutDocker = true)
class Oracle23ContainerTckTest extends RowQueueTck {

    /** The image, pinned to a major release and the slim variant ({@code -faststart} images start faster). */
    static final String IMAGE = "gvenzl/oracle-free:23-slim-faststart";

    @Override
    protected TckTarget target() {
        OracleContainer oracle = new OracleContainer(ContainerImages.require(IMAGE));
        oracle.start();
        TckTargets.Target target = TckTargets.driverManager("Oracle 23ai Free (Testcontainers, " + IMAGE + ")",
                oracle.getJdbcUrl(), oracle.getUsername(), oracle.getPassword());
        return TckTargets.of(target.name(), target.dataSource(), oracle::stop);
    }
}
