package dev.rowqueue.mysql;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Debian unstable (sid) root filesystem with {@code mysql-server-core} (MySQL proper, 9.x), made once with
 * {@code mmdebstrap} into {@code ~/.cache/rowqueue/mysql-sid} and reused by later runs, plus a data directory
 * template made once with {@code mysqld --initialize-insecure} ({@value #TEMPLATE} inside it). Sid's libraries are
 * newer than this machine's, so the server runs inside the root filesystem through {@code chroot}
 * ({@link MySqlServer}).
 *
 * <p>It is built into a temporary directory beside the cache and renamed into place once complete, under a lock file,
 * so a JVM never sees half a root filesystem and two JVMs never both build it. Where it cannot be made (not root, no
 * {@code mmdebstrap}, the mirror unreachable), {@link #get()} fails a JUnit assumption with the reason in one line:
 * the caller is reported NOT RUN, never passed.
 */
final class SidChroot {

    /** The suite's mirror. */
    static final String MIRROR = "http://deb.debian.org/debian";
    /** The data directory template inside the root filesystem, initialized once. */
    static final String TEMPLATE = "/var/lib/rowqueue-template";
    /** mysqld inside the root filesystem. */
    static final String MYSQLD = "/usr/sbin/mysqld";
    /** The marker written last into a complete root filesystem. */
    private static final String COMPLETE = "rowqueue-complete";

    private static Path root;
    private static String unavailable;

    private SidChroot() {
    }

    /** @return the cache directory of the root filesystem */
    static Path cacheDir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("rowqueue").resolve("mysql-sid");
    }

    /**
     * @return the root filesystem, built on first use, or a failed JUnit assumption (NOT RUN) with the reason it
     *         cannot be made here
     */
    static synchronized Path get() {
        if (root == null && unavailable == null) {
            try {
                root = make();
            } catch (Unavailable e) {
                unavailable = e.getMessage();
            }
        }
        Assumptions.assumeTrue(unavailable == null, () -> "no MySQL 9.x from Debian sid here: " + unavailable);
        return root;
    }

    /** The reason the root filesystem cannot be made here. */
    static final class Unavailable extends Exception {
        Unavailable(String reason) {
            super(reason);
        }
    }

    /** @return why the machine cannot make the root filesystem (before trying the mirror), or null */
    static String missing() {
        if (!"root".equals(System.getProperty("user.name")) && !isRoot()) {
            return "not root (chroot, mount namespaces and mmdebstrap's root mode need root)";
        }
        for (String tool : List.of("/usr/bin/unshare", "/usr/sbin/chroot", "/usr/bin/setpriv")) {
            if (!Files.isExecutable(Path.of(tool))) {
                return tool + " is missing (util-linux / coreutils)";
            }
        }
        return null;
    }

    private static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor(10, TimeUnit.SECONDS);
            return "0".equals(out);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Path make() throws Unavailable {
        Path dir = cacheDir();
        if (Files.exists(dir.resolve(COMPLETE))) {
            return dir;
        }
        String missing = missing();
        if (missing != null) {
            throw new Unavailable(missing);
        }
        try {
            Files.createDirectories(dir.getParent());
            try (FileChannel ch = FileChannel.open(dir.getParent().resolve("mysql-sid.lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock lock = ch.lock()) {
                if (Files.exists(dir.resolve(COMPLETE))) {
                    return dir; // another JVM built it while this one waited
                }
                build(dir);
                return dir;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void build(Path dir) throws Unavailable, IOException {
        if (!Files.isExecutable(Path.of("/usr/bin/mmdebstrap"))) {
            throw new Unavailable("mmdebstrap is not installed (Debian: apt-get install mmdebstrap; .ci/run does)");
        }
        Path tmp = dir.resolveSibling("mysql-sid.building-" + ProcessHandle.current().pid());
        delete(tmp);
        delete(dir); // an incomplete one, without the marker
        Path log = dir.resolveSibling("mysql-sid.build.log");
        long t0 = System.nanoTime();
        Result r = run(List.of("/usr/bin/mmdebstrap", "--variant=minbase",
                "--aptopt=Acquire::Check-Valid-Until \"false\"",
                "--include=mysql-server-core,ca-certificates", "sid", tmp.toString(), "deb " + MIRROR + " sid main"),
                1200);
        Files.writeString(log, r.output);
        if (r.exit != 0) {
            delete(tmp);
            String last = lastLines(r.output, 3);
            if (last.contains("Could not resolve") || last.contains("Failed to fetch") || last.contains("Temporary failure")
                    || r.output.contains("Could not resolve") || r.output.contains("Failed to fetch")) {
                throw new Unavailable("the Debian mirror " + MIRROR + " is unreachable: " + last);
            }
            throw new Unavailable("mmdebstrap failed (exit " + r.exit + ", log " + log + "): " + last);
        }
        long bootstrapMillis = (System.nanoTime() - t0) / 1_000_000;
        initializeTemplate(tmp);
        Files.writeString(tmp.resolve(COMPLETE), "mmdebstrap " + bootstrapMillis + " ms\n");
        try {
            Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot rename " + tmp + " to " + dir + " atomically", e);
        }
        System.out.printf("[SidChroot] made %s in %d ms (mmdebstrap %d ms)%n", dir,
                (System.nanoTime() - t0) / 1_000_000, bootstrapMillis);
    }

    /**
     * Runs {@code mysqld --initialize-insecure} once in the root filesystem, into {@link #TEMPLATE}: root@localhost
     * with no password; the init file adds root@127.0.0.1 (TCP from loopback) with every privilege.
     */
    private static void initializeTemplate(Path rootfs) throws Unavailable, IOException {
        Files.writeString(rootfs.resolve("rowqueue-init.sql"),
                "CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '';\n"
                        + "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n");
        Result r = run(inChroot(rootfs, List.of(MYSQLD, "--no-defaults", "--initialize-insecure", "--user=root",
                "--datadir=" + TEMPLATE, "--init-file=/rowqueue-init.sql", "--log-error=/rowqueue-initialize.log")),
                600);
        if (r.exit != 0 || !Files.isDirectory(rootfs.resolve(TEMPLATE.substring(1)).resolve("mysql"))) {
            String log = "";
            Path errLog = rootfs.resolve("rowqueue-initialize.log");
            if (Files.exists(errLog)) {
                log = lastLines(Files.readString(errLog, StandardCharsets.ISO_8859_1), 5);
            }
            throw new IllegalStateException("mysqld --initialize-insecure failed (exit " + r.exit + "): " + r.output
                    + log);
        }
    }

    /**
     * @param rootfs  the root filesystem
     * @param command a command inside it
     * @return the command run in a private mount namespace (gone with its last process) where {@code /proc} and
     *         {@code /dev} of the host are bind-mounted into the root filesystem, then chrooted into it; every step
     *         execs, so the process started is the command's own
     */
    static List<String> inChroot(Path rootfs, List<String> command) {
        return inChroot(rootfs, command, -1);
    }

    /**
     * @param rootfs  the root filesystem
     * @param command a command inside it
     * @param uid     the user (and group) id the command runs as, or -1 for root
     * @return the command run as {@link #inChroot(Path, List)} runs it, as that user
     */
    static List<String> inChroot(Path rootfs, List<String> command, int uid) {
        String r = rootfs.toString();
        StringBuilder script = new StringBuilder("set -e; mount --bind /proc '" + r + "/proc'; mount --rbind /dev '"
                + r + "/dev'; exec /usr/bin/setpriv --pdeathsig KILL -- /usr/sbin/chroot"
                + (uid >= 0 ? " --userspec=" + uid + ":" + uid : "") + " '" + r + "'");
        for (String c : command) {
            script.append(" '").append(c.replace("'", "'\\''")).append('\'');
        }
        List<String> full = new ArrayList<>(List.of("/usr/bin/unshare", "--mount", "--propagation", "private", "--",
                "/bin/sh", "-c", script.toString()));
        return full;
    }

    record Result(int exit, String output) {
    }

    private static Result run(List<String> command, int seconds) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out after " + seconds + " s: " + new String(out, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    static String lastLines(String text, int n) {
        String[] lines = text.strip().split("\n");
        return String.join(" | ", java.util.Arrays.asList(lines).subList(Math.max(0, lines.length - n), lines.length));
    }

    static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
