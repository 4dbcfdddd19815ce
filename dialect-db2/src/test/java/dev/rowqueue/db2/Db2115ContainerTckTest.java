package dev.rowqueue.db2;

import org.testcontainers.junit.jupiter.Testcontainers;

/** The kit on Db2 11.5 Community Edition in a container; NOT RUN without a Docker engine. */
@Testcontainers(disabledWithoutDocker = true)
class Db2115ContainerTckTest extends Db2ContainerTck {
    @Override
    String image() {
        return "icr.io/db2_community/db2:11.5.9.0";
    }
}
