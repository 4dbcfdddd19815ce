package dev.rowqueue.mysql;

import dev.rowqueue.spi.DatabaseProduct;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A MySQL-family server's product and full version, for the dialect's version gates. {@link DatabaseProduct} carries
 * only major and minor, but MySQL 8.0 grew features in patch releases (SKIP LOCKED in 8.0.1, the NO PAD binary
 * collation in 8.0.17, the row alias of {@code ON DUPLICATE KEY UPDATE} in 8.0.19), so the patch level is parsed
 * from the version string: {@code "8.0.36"}, {@code "11.4.5-MariaDB"}, {@code "10.11.19-MariaDB-0+deb12u1"}, or
 * {@code "5.5.5-10.11.6-MariaDB"} (MariaDB seen through MySQL Connector/J, which keeps the replication prefix).
 *
 * @param mariaDb whether the server is MariaDB (see {@link DatabaseProduct#isMariaDb()})
 * @param major   the major version
 * @param minor   the minor version
 * @param patch   the patch level, 0 if the version string has none
 */
public record ServerVersion(boolean mariaDb, int major, int minor, int patch) implements Comparable<ServerVersion> {

    private static final Pattern LEADING = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");
    private static final String REPLICATION_PREFIX = "5.5.5-";

    /**
     * @param product what the driver reported
     * @return the server's version; major and minor fall back to the product's when the string cannot be parsed
     */
    public static ServerVersion of(DatabaseProduct product) {
        boolean mariaDb = product.isMariaDb();
        String v = product.productVersion().strip();
        if (mariaDb && v.startsWith(REPLICATION_PREFIX)) {
            v = v.substring(REPLICATION_PREFIX.length());
        }
        Matcher m = LEADING.matcher(v);
        if (m.find()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            int patch = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
            if (major == product.majorVersion() || product.majorVersion() == 0) {
                return new ServerVersion(mariaDb, major, minor, patch);
            }
        }
        return new ServerVersion(mariaDb, product.majorVersion(), product.minorVersion(), 0);
    }

    /**
     * @param major a major version
     * @param minor a minor version
     * @param patch a patch level
     * @return whether this server is at least that version
     */
    public boolean atLeast(int major, int minor, int patch) {
        return compareTo(new ServerVersion(mariaDb, major, minor, patch)) >= 0;
    }

    @Override
    public int compareTo(ServerVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    /** @return e.g. "MariaDB 11.4.5" or "MySQL 8.0.36" */
    @Override
    public String toString() {
        return (mariaDb ? "MariaDB " : "MySQL ") + major + "." + minor + "." + patch;
    }
}
