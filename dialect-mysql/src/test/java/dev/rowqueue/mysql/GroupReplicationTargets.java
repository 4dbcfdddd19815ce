package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.TckTargets;

import java.util.ArrayList;
import java.util.List;

/**
 * TCK targets on the shared {@link GroupReplicationCluster} of this JVM. The pools keep the server's session settings:
 * what the dialect does on Group Replication, it must do on its own, having asked the server.
 */
final class GroupReplicationTargets {

    private GroupReplicationTargets() {
    }

    /**
     * A member's pool that refuses at once, naming the member and quoting its error log, once the member's
     * {@code mysqld} is gone: a member that crashed (MySQL 9.7.4 did, docs/mysql.md) then fails each rule in
     * milliseconds with the crash report, instead of each connection to it waiting for the pool's timeout.
     */
    static final class LiveMember extends dev.rowqueue.testkit.SimpleDataSource {
        private final javax.sql.DataSource pool;
        private final MySqlServer server;
        private final int number;

        LiveMember(javax.sql.DataSource pool, MySqlServer server, int number) {
            this.pool = pool;
            this.server = server;
            this.number = number;
        }

        @Override
        public java.sql.Connection getConnection() throws java.sql.SQLException {
            if (server.pid() < 0) {
                throw new java.sql.SQLNonTransientConnectionException("group member " + number + " (port "
                        + server.port() + ") is not running: " + server.tail(40), "08001");
            }
            return pool.getConnection();
        }
    }

    /** The database the kit runs in. */
    static final String DATABASE = "tck_group_replication";

    /**
     * @return a target on a multi-primary group whose every {@code getConnection} goes to the next member in turn (a
     *         pool per member, MySQL Connector/J), so each rule's connections, and each rowqueue operation's, are
     *         spread over the three members
     */
    static TckTargets.Target spread() {
        GroupReplicationCluster cluster = GroupReplicationCluster.acquire(GroupReplicationCluster.Mode.MULTI_PRIMARY);
        try {
            cluster.members().get(0).execute("DROP DATABASE IF EXISTS " + DATABASE);
            cluster.createDatabase(DATABASE);
            List<HikariDataSource> pools = new ArrayList<>();
            List<LiveMember> members = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                HikariDataSource pool = MySqlTargets.pool(cluster.url(i, DATABASE), "root", "", null,
                        "gr-member" + (i + 1));
                pools.add(pool);
                members.add(new LiveMember(pool, cluster.members().get(i), i + 1));
            }
            GaleraTargets.RoundRobin ds = new GaleraTargets.RoundRobin(members);
            String name = "MySQL " + cluster.version() + " Group Replication, 3 members on loopback, multi-primary,"
                    + " connections spread round-robin over the members (MySQL Connector/J)";
            return TckTargets.of(name, ds, () -> {
                pools.forEach(HikariDataSource::close);
                GroupReplicationCluster.release(cluster);
            });
        } catch (RuntimeException | Error e) {
            GroupReplicationCluster.release(cluster);
            throw e;
        }
    }
}
