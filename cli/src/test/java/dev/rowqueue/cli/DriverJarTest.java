package dev.rowqueue.cli;

import dev.rowqueue.spi.DialectProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --driver-jar: a JDBC driver and a dialect module that are not on the class path, compiled here into a jar of their
 * own (the driver takes jdbc:fakedb: URLs and hands them to H2), loaded at run time.
 */
class DriverJarTest {

    private static final String DRIVER = """
            package fake;
            import java.sql.*;
            import java.util.Properties;
            public class FakeDriver implements Driver {
                public Connection connect(String url, Properties info) throws SQLException {
                    return acceptsURL(url) ? DriverManager.getConnection("jdbc:h2:" + url.substring(12), info) : null;
                }
                public boolean acceptsURL(String url) { return url.startsWith("jdbc:fakedb:"); }
                public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
                    return new DriverPropertyInfo[0];
                }
                public int getMajorVersion() { return 1; }
                public int getMinorVersion() { return 0; }
                public boolean jdbcCompliant() { return false; }
                public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
                    throw new SQLFeatureNotSupportedException();
                }
            }
            """;

    private static final String DIALECT = """
            package fake;
            import dev.rowqueue.spi.*;
            import dev.rowqueue.portable.PortableDialect;
            import java.util.Map;
            public class FakeDialectProvider implements DialectProvider {
                public String name() { return "fakedb"; }
                public boolean supports(DatabaseProduct product) { return product.nameContains("fakedb"); }
                public Dialect create(DatabaseProduct product, Map<String, String> options) {
                    return new PortableDialect.Provider().create(product, options);
                }
            }
            """;

    private static Path buildJar(Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/fake"));
        Files.writeString(src.resolve("FakeDriver.java"), DRIVER);
        Files.writeString(src.resolve("FakeDialectProvider.java"), DIALECT);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        String api = Path.of(DialectProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", api,
                src.resolve("FakeDriver.java").toString(), src.resolve("FakeDialectProvider.java").toString());
        assertEquals(0, rc, "javac");
        Path jars = Files.createDirectories(dir.resolve("drivers"));
        Path jar = jars.resolve("fakedb-driver.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            add(out, "fake/FakeDriver.class", Files.readAllBytes(classes.resolve("fake/FakeDriver.class")));
            add(out, "fake/FakeDialectProvider.class",
                    Files.readAllBytes(classes.resolve("fake/FakeDialectProvider.class")));
            add(out, "META-INF/services/java.sql.Driver", "fake.FakeDriver\n".getBytes(StandardCharsets.UTF_8));
            add(out, "META-INF/services/dev.rowqueue.spi.DialectProvider",
                    "fake.FakeDialectProvider\n".getBytes(StandardCharsets.UTF_8));
        }
        return jar;
    }

    private static void add(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        OutputStream o = out;
        o.write(bytes);
        out.closeEntry();
    }

    @Test
    void drivers_and_dialects_load_from_jars_given_at_run_time(@TempDir Path dir) throws Exception {
        String url = "jdbc:fakedb:mem:" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        Cli.Result without = Cli.run("queues", "--url", url);
        assertEquals(ExitCode.DATABASE, without.code(), without::toString);
        assertTrue(without.err().contains("no JDBC driver takes jdbc:fakedb:mem:"), without.err());
        assertTrue(without.err().contains("add others, such as MySQL Connector/J, Oracle's ojdbc, IBM's db2jcc or"
                + " xerial's sqlite-jdbc, with --driver-jar PATH"), without.err());
        assertFalse(new Cli.Result(0, Cli.run("dialects").out(), "").out().contains("fakedb"));

        Path jar = buildJar(dir);
        Cli.Result with = Cli.run("queues", "--url", url, "--driver-jar", jar.toString());
        assertEquals(0, with.code(), with::toString);
        assertTrue(with.out().contains("No rowqueue queues in this database."), with.out());

        Cli.Result push = Cli.run("ring", "push", "fruit", "basket", "apples", "--capacity", "3", "--url", url,
                "--driver-jar", jar.getParent().toString());
        assertEquals(0, push.code(), push::toString);
        assertEquals("created ring fruit (capacity 3, strategy SAFE)\npushed 1 entry to fruit group basket: seq 1\n",
                push.out());

        Cli.Result dialects = Cli.run("dialects", "--driver-jar", jar.toString());
        assertEquals(0, dialects.code(), dialects::toString);
        assertTrue(dialects.out().lines().anyMatch(l -> l.matches("\\|\\s*fakedb\\s*\\|\\s*0\\s*\\|\\s*fake\\.FakeDialectProvider.*")),
                dialects.out());
        assertTrue(dialects.out().contains("fakedb-driver.jar"), dialects.out());

        Cli.Result missing = Cli.run("queues", "--url", url, "--driver-jar", dir.resolve("nope.jar").toString());
        assertEquals(ExitCode.USAGE, missing.code(), missing::toString);
        assertTrue(missing.err().contains("driver jar not found"), missing.err());
    }

    /**
     * Derby's network client without derbyshared.jar, which holds classes its driver needs to load: exit 3 naming the
     * missing class and the jar that usually holds it, not an uncaught ServiceConfigurationError with exit 1. The jar
     * is Maven Central's, copied to target/driver-jars/ by the build.
     */
    @Test
    void a_driver_that_cannot_load_is_exit_3_with_the_missing_class_and_its_jar() {
        Path client = Path.of("target/driver-jars/derbyclient.jar");
        assertTrue(Files.isRegularFile(client), "the build copies derbyclient.jar to " + client.toAbsolutePath());
        Cli.Result r = Cli.run("queues", "--url", "jdbc:derby://localhost:1527/nowhere", "--driver-jar",
                client.toString());
        assertEquals(ExitCode.DATABASE, r.code(), r::toString);
        assertTrue(r.err().contains("cannot load the JDBC driver in [" + client + "]"), r.err());
        assertTrue(r.err().contains("it needs the class org.apache.derby.shared."), r.err());
        assertTrue(r.err().contains("derbyshared.jar"), r.err());
        assertFalse(r.err().contains("unexpected"), r.err());
    }
}
