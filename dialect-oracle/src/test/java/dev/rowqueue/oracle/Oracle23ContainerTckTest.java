package dev.rowqueue.oracle;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.oracle.OracleContainer;

/**
 * The whole kit on Oracle Database 23ai Free in a container (image {@code gvenzl/oracle-free}, slim variant,
 * pluggable database {@code freepdb1}). Runs wherever a Docker engine is available; without one, JUnit disables the
 * class and the report says NOT RUN.
 */
@Testcontainers(disabledWithoutDocker = true)
class Oracle23ContainerTckTest extends RowQueueTck {

    /** The image, pinned to a major release and the slim variant ({@code -faststart} images start faster). */
    static final String IMAGE = "gvenzl/oracle-free:23-slim-faststart";

    @Container
    static final OracleContainer ORACLE = new OracleContainer(IMAGE);

    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("Oracle 23ai Free (Testcontainers, " + IMAGE + ")", ORACLE.getJdbcUrl(),
                ORACLE.getUsername(), ORACLE.getPassword());
    }
}
