package dev.rowqueue.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rowqueue tck} through a JDBC driver that counts the connections it opens ({@code jdbc:counted:} URLs, handed
 * to H2): the whole kit opens no more connections than its pool holds, and the report says how many it opened. It
 * opened one per operation before, thousands per run.
 */
class TckPoolTest {

    /** Takes {@code jdbc:counted:<rest>} and opens {@code jdbc:h2:<rest>}, counting. */
    static final class CountingDriver implements Driver {
        static final String PREFIX = "jdbc:counted:";
        final AtomicLong opened = new AtomicLong();

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            if (!acceptsURL(url)) {
                return null;
            }
            Connection c = DriverManager.getConnection("jdbc:h2:" + url.substring(PREFIX.length()), info);
            opened.incrementAndGet();
            return c;
        }

        @Override
        public boolean acceptsURL(String url) {
            return url != null && url.startsWith(PREFIX);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
            return new DriverPropertyInfo[0];
        }

        @Override
        public int getMajorVersion() {
            return 1;
        }

        @Override
        public int getMinorVersion() {
            return 0;
        }

        @Override
        public boolean jdbcCompliant() {
            return false;
        }

        @Override
        public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }
    }

    private static final CountingDriver DRIVER = new CountingDriver();

    @BeforeAll
    static void register() throws SQLException {
        DriverManager.registerDriver(DRIVER);
    }

    @AfterAll
    static void deregister() throws SQLException {
        DriverManager.deregisterDriver(DRIVER);
    }

    @Test
    void the_whole_kit_opens_no_more_connections_than_its_pool_and_the_report_says_how_many(@TempDir Path out)
            throws Exception {
        int poolSize = 20;
        long before = DRIVER.opened.get();
        Cli.Result r = Cli.run("tck", "--url", CountingDriver.PREFIX + "mem:cli_tck_pool;DB_CLOSE_DELAY=-1",
                "--user", "sa", "--dialect", "h2", "--pool-size", Integer.toString(poolSize), "--out", out.toString());
        assertEquals(0, r.code(), r::toString);
        long opened = DRIVER.opened.get() - before;
        // one connection checks the URL before the pool opens (the driver's own error, at once); the kit's pool
        assertTrue(opened <= poolSize + 1, "the run opened " + opened + " connections, pool size " + poolSize);

        String json = Files.readString(out.resolve("ConfiguredTck.json"));
        Matcher m = Pattern.compile("\"connectionsOpened\": (\\d+)").matcher(json);
        assertTrue(m.find(), json);
        // the pool's connections: the URL check and the session check (a build before the first rule) open theirs
        // before the pool does, and are not the kit's
        long reported = Long.parseLong(m.group(1));
        assertTrue(reported >= 1 && reported <= poolSize && reported < opened, "the report counts the pool's "
                + reported + " connections of the " + opened + " opened");
        assertTrue(Files.readString(out.resolve("ConfiguredTck.md")).contains("| Connections opened | "
                + reported + " |"));
    }

    @Test
    void a_pool_smaller_than_the_kit_needs_is_bad_usage(@TempDir Path out) {
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:mem:cli_tck_small_pool", "--pool-size", "4", "--out",
                out.toString());
        assertEquals(ExitCode.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("--pool-size must be at least 18"), r.err());
    }
}
