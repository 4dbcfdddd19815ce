package dev.rowqueue.testkit;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An H2 user of a test whose rights a DBA takes away and gives back, as a DBA would on a server: the user may read
 * and write every table of schema {@code PUBLIC}, then {@link #revoke(String)} takes the rights on a queue's tables
 * (the tables whose names contain the queue's name; {@link #revokeWrites(String)} only the rights to change them)
 * and {@link #grant(String)} gives them back.
 */
public final class H2Grants {
    private final DataSource admin;
    private final String user;

    private H2Grants(DataSource admin, String user) {
        this.admin = admin;
        this.user = user;
    }

    /**
     * Creates the user and grants it SELECT, INSERT, UPDATE and DELETE on every table of schema {@code PUBLIC}.
     *
     * @param admin    connections of an administrator
     * @param user     the new user's name (letters only)
     * @param password its password (letters only)
     * @return the user's grants
     * @throws SQLException if the database refuses
     */
    public static H2Grants create(DataSource admin, String user, String password) throws SQLException {
        H2Grants g = new H2Grants(admin, user);
        g.execute("CREATE USER " + user + " PASSWORD '" + password + "'");
        g.grant("");
        return g;
    }

    /**
     * @param nameContains part of the tables' names ({@code ""} for every table)
     * @throws SQLException if the database refuses
     */
    public void grant(String nameContains) throws SQLException {
        for (String t : tables(nameContains)) {
            execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \"" + t + "\" TO " + user);
        }
    }

    /**
     * @param nameContains part of the tables' names
     * @throws SQLException if the database refuses
     */
    public void revoke(String nameContains) throws SQLException {
        revoke(nameContains, "SELECT, INSERT, UPDATE, DELETE");
    }

    /**
     * Takes the rights to change the tables, leaving the right to read them (counts work, claims do not).
     *
     * @param nameContains part of the tables' names
     * @throws SQLException if the database refuses
     */
    public void revokeWrites(String nameContains) throws SQLException {
        revoke(nameContains, "INSERT, UPDATE, DELETE");
    }

    private void revoke(String nameContains, String privileges) throws SQLException {
        List<String> tables = tables(nameContains);
        if (tables.isEmpty()) {
            throw new IllegalArgumentException("no table's name contains " + nameContains);
        }
        for (String t : tables) {
            execute("REVOKE " + privileges + " ON \"" + t + "\" FROM " + user);
        }
    }

    private List<String> tables(String nameContains) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = admin.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES"
                     + " WHERE TABLE_SCHEMA = 'PUBLIC'")) {
            while (rs.next()) {
                if (rs.getString(1).toLowerCase(Locale.ROOT).contains(nameContains.toLowerCase(Locale.ROOT))) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
