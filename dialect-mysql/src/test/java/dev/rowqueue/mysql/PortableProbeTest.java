package dev.rowqueue.mysql;

import dev.rowqueue.support.KeyBytes;
import dev.rowqueue.support.PortableFeatures;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
