package dev.rowqueue.testkit;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A minimal data source over {@link DriverManager}: one new connection per request. */
public final class DriverManagerDataSource extends SimpleDataSource {
    private final String url;
    private final String user;
    private final String password;

    /**
     * @param url      the JDBC URL
     * @param user     the user, or {@code null}
     * @param password the password, or {@code null}
     */
    public DriverManagerDataSource(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return user == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url, user, password);
    }

    @Override
    public Connection getConnection(String u, String p) throws SQLException {
        return DriverManager.getConnection(url, u, p);
    }

    @Override
    public PrintWriter getLogWriter() {
        return DriverManager.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        DriverManager.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) {
        DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
        return DriverManager.getLoginTimeout();
    }

    @Override
    public String toString() {
        return "DriverManagerDataSource[" + url + "]";
    }

    /**
     * A JDBC URL without its parameters and user information (either may hold a password), for reports and logs.
     *
     * @param url a JDBC URL
     * @return the URL up to its first {@code ?} or {@code ;} (or DB2's {@code :key=value;} after the database name;
     *         a {@code :} after the path that starts no property is part of the name, as in H2's
     *         {@code jdbc:h2:tcp://host/mem:name}), without
     *         {@code user:password@} after {@code //} and without Oracle's {@code user/password} before {@code @}
     */
    public static String displayUrl(String url) {
        String shown = url;
        int slashes = shown.indexOf("//");
        if (slashes >= 0) {
            int path = shown.indexOf('/', slashes + 2);
            int colonAfterPath = path < 0 ? -1 : shown.indexOf(':', path);
            if (colonAfterPath >= 0 && propertiesFollow(shown.substring(colonAfterPath + 1))) {
                shown = shown.substring(0, colonAfterPath);
            }
        }
        for (char c : new char[] {'?', ';'}) {
            int i = shown.indexOf(c);
            if (i >= 0) {
                shown = shown.substring(0, i);
            }
        }
        int at = shown.lastIndexOf('@');
        if (slashes >= 0 && at > slashes) {
            shown = shown.substring(0, slashes + 2) + shown.substring(at + 1);
        } else if (at >= 0) {
            int colon = shown.lastIndexOf(':', at);
            shown = shown.substring(0, colon + 1) + shown.substring(at);
        }
        return shown;
    }

    /** @return whether text after a {@code :} in the path starts DB2-style properties ({@code key=value;...}) */
    private static boolean propertiesFollow(String rest) {
        int end = rest.indexOf(';');
        String first = end < 0 ? rest : rest.substring(0, end);
        return first.indexOf('=') > 0;
    }
}
