package dev.rowqueue.spi;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@link DatabaseMetaData} says about a database: dialects are chosen and version-gated on it.
 *
 * @param productName    {@code getDatabaseProductName()}, e.g. "PostgreSQL", "MySQL", "MariaDB", "H2"
 * @param productVersion {@code getDatabaseProductVersion()}, e.g. "16.4" or "5.5.5-10.11.6-MariaDB"
 * @param majorVersion   the server's major version (for MariaDB behind a MySQL driver, MariaDB's own)
 * @param minorVersion   the server's minor version
 * @param driverName     {@code getDriverName()}
 * @param driverVersion  {@code getDriverVersion()}
 * @param url            the JDBC URL, possibly empty
 */
public record DatabaseProduct(String productName, String productVersion, int majorVersion, int minorVersion,
                              String driverName, String driverVersion, String url) {

    private static final Pattern MARIADB_IN_VERSION = Pattern.compile("(\\d+)\\.(\\d+)[.\\d]*-MariaDB",
            Pattern.CASE_INSENSITIVE);

    /** Validates and normalizes nulls to empty strings. */
    public DatabaseProduct {
        productName = Objects.requireNonNullElse(productName, "");
        productVersion = Objects.requireNonNullElse(productVersion, "");
        driverName = Objects.requireNonNullElse(driverName, "");
        driverVersion = Objects.requireNonNullElse(driverVersion, "");
        url = Objects.requireNonNullElse(url, "");
    }

    /**
     * Reads a product description from a connection's metadata. A MariaDB server seen through a MySQL driver
     * (which reports "MySQL" and a version like "5.5.5-10.11.6-MariaDB") gets MariaDB's own major and minor.
     *
     * @param md the metadata
     * @return the description
     * @throws SQLException if the driver fails
     */
    public static DatabaseProduct of(DatabaseMetaData md) throws SQLException {
        String version = md.getDatabaseProductVersion();
        int major = md.getDatabaseMajorVersion();
        int minor = md.getDatabaseMinorVersion();
        Matcher m = version == null ? null : MARIADB_IN_VERSION.matcher(version);
        if (m != null && m.find()) {
            major = Integer.parseInt(m.group(1));
            minor = Integer.parseInt(m.group(2));
        }
        String url;
        try {
            url = md.getURL();
        } catch (SQLException | RuntimeException e) {
            url = "";
        }
        return new DatabaseProduct(md.getDatabaseProductName(), version, major, minor, md.getDriverName(),
                md.getDriverVersion(), url);
    }

    /**
     * A description for rendering DDL without a connection (for example the CLI's {@code schema} command).
     *
     * @param productName  the product name a dialect recognises
     * @param majorVersion the major version to assume
     * @param minorVersion the minor version to assume
     * @return the description
     */
    public static DatabaseProduct assumed(String productName, int majorVersion, int minorVersion) {
        return new DatabaseProduct(productName, majorVersion + "." + minorVersion, majorVersion, minorVersion,
                "", "", "");
    }

    /**
     * @param name a product name
     * @return whether the product name contains it, ignoring case
     */
    public boolean nameContains(String name) {
        return productName.toLowerCase(Locale.ROOT).contains(name.toLowerCase(Locale.ROOT));
    }

    /**
     * MariaDB is recognised by its product name, by a version string containing "MariaDB" (MySQL drivers), or by
     * the MariaDB driver. Check this before treating a product as MySQL.
     *
     * @return whether the server is MariaDB
     */
    public boolean isMariaDb() {
        return nameContains("mariadb") || productVersion.toLowerCase(Locale.ROOT).contains("mariadb");
    }

    /**
     * @param major a major version
     * @param minor a minor version
     * @return whether the server is at least that version
     */
    public boolean atLeast(int major, int minor) {
        return majorVersion > major || (majorVersion == major && minorVersion >= minor);
    }

    /** @return product and version, e.g. "PostgreSQL 16.4" */
    public String describe() {
        return productName + " " + productVersion;
    }
}
