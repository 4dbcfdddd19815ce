package dev.rowqueue.mysql;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link MySqlServer} fixture on the {@link SidChroot}: MySQL proper (not MariaDB) 9.x with the settings it
 * promises, a server that goes away with the JVM that started it, and nothing left behind by {@link MySqlServer#close}.
 * NOT RUN where the chroot cannot be made.
 */
class MySqlChrootServerTest {

    @Test
    void runsMySqlNineWithTheTestSettings() throws Exception {
        MySqlServer server = MySqlServer.shared();
        assertTrue(server.version().matches("9\\.\\d+\\.\\d+.*"), server.version());
        assertFalse(server.query("SELECT VERSION()").contains("MariaDB"));
        assertEquals("REPEATABLE-READ", server.query("SELECT @@global.transaction_isolation"));
        assertEquals("2", server.query("SELECT @@innodb_flush_log_at_trx_commit"));
        assertEquals("0", server.query("SELECT @@sync_binlog"));
        assertEquals("127.0.0.1", server.query("SELECT @@bind_address"));
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
                server.mariaDbUrl("") + "?transactionIsolation=READ-COMMITTED", "root", "");
             java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT @@transaction_isolation")) {
            rs.next();
            assertEquals("READ-COMMITTED", rs.getString(1), "the MariaDB driver target's URL setting");
        }
        System.out.printf("[MySqlChrootServerTest] MySQL %s up in %d ms%n", server.version(), server.startMillis());
    }

    @Test
    void closeStopsTheServerAndDeletesItsFiles() throws Exception {
        MySqlServer server = MySqlServer.start();
        long pid = server.pid();
        assertTrue(pid > 0);
        assertEquals("mysqld", Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip(),
                "the process handle is mysqld's own (every wrapper execs)");
        Path data = Path.of(server.query("SELECT @@datadir"));
        assertTrue(data.startsWith("/dev/shm"), data.toString());
        server.close();
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertFalse(Files.exists(data));
    }

    @Test
    void theErrorLogOfACrashedServerIsKeptWhenItCloses() throws Exception {
        MySqlServer server = MySqlServer.start();
        long pid = server.pid();
        String prefix = "mysqld-crash-" + server.port() + "-";
        assertEquals(0, new ProcessBuilder("kill", "-SEGV", Long.toString(pid)).start().waitFor());
        ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(30, TimeUnit.SECONDS).join());
        server.close();
        List<Path> kept;
        try (var files = Files.list(Path.of("target"))) {
            kept = files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
        }
        assertEquals(1, kept.size(), "one kept log for port " + server.port());
        assertTrue(Files.readString(kept.get(0), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains("mysqld got signal 11"));
        Files.delete(kept.get(0));
    }

    /** A JVM that starts a server, prints its pid and waits: SIGKILLed, it cannot stop the server itself. */
    public static void main(String[] args) throws Exception {
        MySqlServer server = MySqlServer.start();
        System.out.println("PID " + server.pid());
        System.out.flush();
        Thread.sleep(600_000);
    }

    @Test
    void theServerDiesWithTheJvmThatStartedIt() throws Exception {
        MySqlServer.shared(); // NOT RUN without the chroot
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process jvm = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                MySqlChrootServerTest.class.getName())).redirectErrorStream(true).start();
        long pid = -1;
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(jvm.getInputStream()))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("PID ")) {
                    pid = Long.parseLong(line.substring(4).strip());
                    break;
                }
            }
            assertTrue(pid > 0, "the child JVM did not start a server");
            assertTrue(ProcessHandle.of(pid).isPresent());
            jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
            jvm.waitFor(30, TimeUnit.SECONDS);
            long deadline = System.currentTimeMillis() + 30_000;
            while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
            }
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (alive) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            assertFalse(alive, "mysqld " + pid + " outlived the SIGKILLed JVM that started it");
        } finally {
            jvm.destroyForcibly();
            jvm.waitFor(30, TimeUnit.SECONDS);
            try (var dirs = Files.list(Path.of("/dev/shm"))) { // what the killed JVM could not delete
                for (Path d : dirs.toList()) {
                    if (d.getFileName().toString().startsWith("rowqueue-mysql-" + jvm.pid() + "-")) {
                        SidChroot.delete(d);
                    }
                }
            }
        }
    }
}
