package dev.rowqueue.tck;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;
import org.testcontainers.DockerClientFactory;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ContainerImagesTest {

    @Test
    void names_are_made_explicit_as_engines_store_them() {
        assertEquals("docker.io/library/mysql:9.7", ContainerImages.normalize("mysql:9.7"));
        assertEquals("docker.io/library/postgres:17-alpine",
                ContainerImages.normalize("docker.io/library/postgres:17-alpine"));
        assertEquals("docker.io/gvenzl/oracle-free:23-slim-faststart",
                ContainerImages.normalize("gvenzl/oracle-free:23-slim-faststart"));
        assertEquals("icr.io/db2_community/db2:12.1.0.0",
                ContainerImages.normalize("icr.io/db2_community/db2:12.1.0.0"));
        assertEquals("localhost:5000/queue:latest", ContainerImages.normalize("localhost:5000/queue"));
        assertEquals("docker.io/library/mariadb:latest", ContainerImages.normalize("MariaDB"));
    }

    @Test
    void the_list_of_images_built_here_is_read_by_name(@TempDir Path dir) throws Exception {
        Path list = dir.resolve("list");
        Files.writeString(list, "# comment\n\ndocker.io/library/mariadb:11.8  mysql/Containerfile.mariadb-11.8\n"
                + "docker.io/library/mysql:9.7 mysql/Containerfile.mysql-9.7\n");
        String before = System.getProperty(ContainerImages.LIST_PROPERTY);
        System.setProperty(ContainerImages.LIST_PROPERTY, list.toString());
        try {
            assertTrue(ContainerImages.builtHere(ContainerImages.normalize("mariadb:11.8")));
            assertTrue(ContainerImages.builtHere(ContainerImages.normalize("mysql:9.7")));
            assertFalse(ContainerImages.builtHere(ContainerImages.normalize("mysql:8.4")));
            assertFalse(ContainerImages.builtHere(ContainerImages.normalize("# comment")));
            System.setProperty(ContainerImages.LIST_PROPERTY, dir.resolve("absent").toString());
            assertFalse(ContainerImages.builtHere(ContainerImages.normalize("mysql:9.7")));
        } finally {
            if (before == null) {
                System.clearProperty(ContainerImages.LIST_PROPERTY);
            } else {
                System.setProperty(ContainerImages.LIST_PROPERTY, before);
            }
        }
    }

    @Test
    void a_blank_name_is_refused_before_any_engine_is_asked() {
        assertThrows(IllegalArgumentException.class, () -> ContainerImages.require(" "));
        assertThrows(IllegalArgumentException.class, () -> ContainerImages.require(null));
    }

    @Test
    void an_image_nobody_has_makes_the_target_not_run_with_the_reason() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> ContainerImages.require("localhost/rowqueue-absent:never"));
        assertTrue(e.getMessage().contains("localhost/rowqueue-absent:never"), e.getMessage());
    }

    @Test
    void an_image_listed_as_built_here_but_missing_names_the_build_script(@TempDir Path dir) throws Exception {
        assumeTrue(DockerClientFactory.instance().isDockerAvailable(), "no Docker engine here");
        Path list = dir.resolve("list");
        Files.writeString(list, "localhost/rowqueue-absent:never  x/Containerfile\n");
        String before = System.getProperty(ContainerImages.LIST_PROPERTY);
        System.setProperty(ContainerImages.LIST_PROPERTY, list.toString());
        try {
            TestAbortedException e = assertThrows(TestAbortedException.class,
                    () -> ContainerImages.require("localhost/rowqueue-absent:never"));
            assertTrue(e.getMessage().contains("not built here: run .ci/images/build"), e.getMessage());
            System.clearProperty(ContainerImages.LIST_PROPERTY);
            e = assertThrows(TestAbortedException.class,
                    () -> ContainerImages.require("localhost/rowqueue-absent:never"));
            assertTrue(e.getMessage().contains("registry only: "), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty(ContainerImages.LIST_PROPERTY);
            } else {
                System.setProperty(ContainerImages.LIST_PROPERTY, before);
            }
        }
    }
}
