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
            for (int i = 0; i < 3; i++) {
                pools.add(MySqlTargets.pool(cluster.url(i, DATABASE), "root", "", null, "gr-member" + (i + 1)));
            }
            GaleraTargets.RoundRobin ds = new GaleraTargets.RoundRobin(pools);
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
