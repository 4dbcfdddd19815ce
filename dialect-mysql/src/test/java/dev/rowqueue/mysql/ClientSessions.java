package dev.rowqueue.mysql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Kills a MySQL-family server's client sessions, as a network fault or an operator would. */
final class ClientSessions {

    private ClientSessions() {
    }

    /**
     * Kills ({@code KILL CONNECTION}) every client session that uses a database, mid-transaction or not. Clients
     * only: replication's own threads (an applier applying a transaction of the database shows it too) have no
     * {@code host:port}, and killing them breaks the server's replication, not the client.
     *
     * @param url      the server's URL (root, no password)
     * @param database the database whose sessions die
     * @return how many were killed; 0 if the server does not answer
     */
    static int kill(String url, String database) {
        int killed = 0;
        try (Connection c = DriverManager.getConnection(url, "root", ""); Statement s = c.createStatement()) {
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '"
                    + database + "' AND HOST LIKE '%:%' AND ID <> CONNECTION_ID()")) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            for (long id : ids) {
                try {
                    s.execute("KILL CONNECTION " + id);
                    killed++;
                } catch (SQLException gone) {
                    // it ended meanwhile
                }
            }
        } catch (SQLException e) {
            // a server that does not answer: nothing to kill there
        }
        return killed;
    }
}
