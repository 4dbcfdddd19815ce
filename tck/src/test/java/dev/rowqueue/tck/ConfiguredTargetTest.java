package dev.rowqueue.tck;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfiguredTargetTest {

    @AfterEach
    void clear() {
        ConfiguredTarget.use(null);
        System.clearProperty(ConfiguredTarget.URL);
        System.clearProperty(ConfiguredTarget.DIALECT);
    }

    @Test
    void report_names_never_show_url_parameters_or_credentials() {
        assertEquals("jdbc:h2:mem:x", ConfiguredTarget.displayUrl("jdbc:h2:mem:x;PASSWORD=secret"));
        assertEquals("jdbc:postgresql://db:5432/app",
                ConfiguredTarget.displayUrl("jdbc:postgresql://db:5432/app?user=u&password=secret"));
        assertEquals("jdbc:mariadb://db/app", ConfiguredTarget.displayUrl("jdbc:mariadb://u:secret@db/app"));
        assertEquals("jdbc:oracle:thin:@//db:1521/FREEPDB1",
                ConfiguredTarget.displayUrl("jdbc:oracle:thin:scott/secret@//db:1521/FREEPDB1"));
        assertEquals("jdbc:oracle:thin:@db:1521/FREEPDB1",
                ConfiguredTarget.displayUrl("jdbc:oracle:thin:scott/secret@db:1521/FREEPDB1"));
        assertEquals("jdbc:db2://db:50000/testdb",
                ConfiguredTarget.displayUrl("jdbc:db2://db:50000/testdb:user=u;password=secret;"));
        // in-memory databases behind a server URL keep their names (they were all "jdbc:h2:tcp://host:port/mem")
        assertEquals("jdbc:h2:tcp://localhost:9092/mem:orders",
                ConfiguredTarget.displayUrl("jdbc:h2:tcp://localhost:9092/mem:orders;DB_CLOSE_DELAY=-1"));
        assertEquals("jdbc:hsqldb:hsql://localhost:9001/mem:jobs",
                ConfiguredTarget.displayUrl("jdbc:hsqldb:hsql://localhost:9001/mem:jobs"));
    }

    @Test
    void a_program_setting_wins_over_system_properties_and_nothing_configured_is_reported() {
        assertFalse(ConfiguredTarget.isConfigured());
        assertThrows(IllegalStateException.class, ConfiguredTarget::create);

        System.setProperty(ConfiguredTarget.URL, "jdbc:h2:mem:configured_a;DB_CLOSE_DELAY=-1");
        System.setProperty(ConfiguredTarget.DIALECT, "portable");
        ConfiguredTarget fromProperties = ConfiguredTarget.create();
        assertEquals("jdbc:h2:mem:configured_a", fromProperties.name());
        assertEquals("portable", fromProperties.dialect().orElseThrow());

        ConfiguredTarget.use(new ConfiguredTarget.Settings("mine", "jdbc:h2:mem:configured_b;DB_CLOSE_DELAY=-1",
                "sa", "", null, Map.of()));
        ConfiguredTarget held = ConfiguredTarget.create();
        assertEquals("mine", held.name());
        assertTrue(held.dialect().isEmpty());
        assertFalse(new ConfiguredTarget.Settings(null, "jdbc:h2:mem:x", "u", "secret", null, Map.of()).toString()
                .contains("secret"));
    }

    @Test
    void the_target_connects_through_the_driver_manager() throws Exception {
        ConfiguredTarget.use(new ConfiguredTarget.Settings(null, "jdbc:h2:mem:configured_c", "sa", "", null,
                Map.of()));
        try (Connection c = ConfiguredTarget.create().dataSource().getConnection()) {
            assertEquals("H2", c.getMetaData().getDatabaseProductName());
        }
    }
}
