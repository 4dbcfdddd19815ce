package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.testkit.SimpleDataSource;
import dev.rowqueue.tck.TckTargets;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TCK targets on a {@link GaleraCluster} started for the test class and stopped with it. The pools keep the server's
 * session settings (READ COMMITTED comes from rowqueue itself): what the dialect does on Galera, it must do on its own.
 */
final class GaleraTargets {

    private GaleraTargets() {
    }

    /** The database the kit runs in. */
    static final String DATABASE = "tck_galera";

    /**
     * @return a target whose every {@code getConnection} goes to the next node in turn (a pool per node), so each
     *         rule's connections, and each rowqueue operation's, are spread over the three nodes
     */
    static TckTargets.Target spread() {
        GaleraCluster cluster = GaleraCluster.start();
        try {
            cluster.createDatabase(DATABASE);
            List<HikariDataSource> pools = new ArrayList<>();
            List<String> urls = cluster.urls(DATABASE);
            for (int i = 0; i < urls.size(); i++) {
                pools.add(MySqlTargets.pool(urls.get(i), "root", "", null, "galera-node" + (i + 1)));
            }
            RoundRobin ds = new RoundRobin(pools);
            return TckTargets.of(name(cluster, "connections spread round-robin over the 3 nodes"), ds, () -> {
                pools.forEach(HikariDataSource::close);
                cluster.close();
            });
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** @return a target on node 1 only (the others replicate) */
    static TckTargets.Target oneNode() {
        GaleraCluster cluster = GaleraCluster.start();
        try {
            cluster.createDatabase(DATABASE);
            HikariDataSource ds = MySqlTargets.pool(cluster.url(0, DATABASE), "root", "", null, "galera-node1");
            return TckTargets.of(name(cluster, "every connection to node 1"), ds, () -> {
                ds.close();
                cluster.close();
            });
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static String name(GaleraCluster cluster, String how) {
        return "MariaDB " + cluster.version() + " Galera cluster of 3 nodes on loopback (Galera provider "
                + cluster.providerVersion() + "), " + how;
    }

    /** A data source that hands out connections of its pools in turn. */
    static final class RoundRobin extends SimpleDataSource {
        private final List<? extends javax.sql.DataSource> nodes;
        private final AtomicInteger next = new AtomicInteger();

        RoundRobin(List<? extends javax.sql.DataSource> nodes) {
            this.nodes = List.copyOf(nodes);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return nodes.get(Math.floorMod(next.getAndIncrement(), nodes.size())).getConnection();
        }
    }
}
