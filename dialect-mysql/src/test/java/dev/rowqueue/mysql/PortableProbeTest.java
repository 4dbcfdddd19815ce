package dev.rowqueue.mysql;

import dev.rowqueue.support.KeyBytes;
import dev.rowqueue.portable.PortableFeatures;
import dev.rowqueue.testkit.EmbeddedMariaDbServer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the portable dialect's probes find on MariaDB with the server's defaults: text that ignores case, and an index
 * limit (3,072 bytes in utf8mb4) too small for hex-encoded keys, so keys go into a binary column.
 */
class PortableProbeTest {

    @Test
    void mariadb_keys_are_utf8_bytes_in_a_binary_column_and_the_probe_leaves_no_table() throws SQLException {
        EmbeddedMariaDb server = EmbeddedMariaDb.get();
        server.recreateDatabase("portable_probe");
        try (Connection c = DriverManager.getConnection(server.url(EmbeddedMariaDb.Driver.MARIADB, "portable_probe"),
                "root", "")) {
            PortableFeatures f = PortableFeatures.probe(c);
            assertEquals(PortableFeatures.KeyForm.BYTES, f.keyForm(), "'a' = 'A' in MariaDB's default collation");
            assertEquals("VARBINARY(" + KeyBytes.MAX_BYTES + ")", f.keyType());
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'portable_probe'")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "the probe drops its scratch tables");
            }
        } finally {
            server.dropDatabase("portable_probe");
        }
    }

    @Test
    void on_a_server_that_requires_primary_keys_the_probes_find_what_they_find_elsewhere() throws SQLException {
        EmbeddedMariaDb shared = EmbeddedMariaDb.get();
        shared.recreateDatabase("portable_probe_pk");
        String usual;
        try (Connection c = DriverManager.getConnection(shared.url(EmbeddedMariaDb.Driver.MARIADB, "portable_probe_pk"),
                "root", "")) {
            usual = PortableFeatures.probe(c).toString();
        } finally {
            shared.dropDatabase("portable_probe_pk");
        }
        try (EmbeddedMariaDbServer server = EmbeddedMariaDbServer.dedicated(List.of("--innodb-force-primary-key=ON"))) {
            server.createDatabase("probe");
            try (Connection c = server.dataSource("probe").getConnection()) {
                PortableFeatures f = PortableFeatures.probe(c);
                assertTrue(f.uniqueIndexNulls(), "a unique index takes several NULLs on MariaDB: " + f);
                assertEquals(usual, f.toString(), "a probe table without a primary key is refused, not an answer");
            }
        }
    }
}
