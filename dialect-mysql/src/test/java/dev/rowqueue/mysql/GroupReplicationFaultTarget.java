package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.faults.Fault;
import dev.rowqueue.tck.faults.FaultTarget;
import dev.rowqueue.tck.faults.Holds;
import dev.rowqueue.testkit.LoopbackFirewall;
import dev.rowqueue.testkit.Signals;
import dev.rowqueue.testkit.SimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A three-member {@link GroupReplicationCluster} under the fault campaign. In multi-primary mode clients spread their
 * connections over the members round-robin, as over Galera's nodes; in single-primary mode they reach the primary
 * the way MySQL Router's metadata cache does: a router asks the group every half second which member is primary and
 * hands out connections of that member's pool. Node faults hit, in single-primary mode, the primary; in
 * multi-primary mode, the members in turn.
 */
final class GroupReplicationFaultTarget implements FaultTarget {

    static final String DATABASE = "faults";
    private static final Duration DOWN = Duration.ofSeconds(3);

    private final GroupReplicationCluster gr;
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final DataSource clients;
    private final PrimaryRouter router;
    private final LoopbackFirewall firewall;
    private int injections;

    private GroupReplicationFaultTarget(GroupReplicationCluster gr) {
        this.gr = gr;
        for (int i = 0; i < 3; i++) {
            HikariDataSource pool = MySqlTargets.pool(gr.url(i, DATABASE), "root", "", null, "gr-member" + (i + 1));
            pool.setConnectionTimeout(1_000);
            pools.add(pool);
        }
        if (gr.mode() == GroupReplicationCluster.Mode.SINGLE_PRIMARY) {
            router = new PrimaryRouter(gr, pools);
            clients = router;
        } else {
            router = null;
            clients = new GaleraTargets.RoundRobin(pools);
        }
        this.firewall = LoopbackFirewall.missing() == null ? new LoopbackFirewall() : null;
    }

    /**
     * @param mode the group's mode
     * @return a started group with the campaign's database, or NOT RUN where the chroot cannot be made
     */
    static GroupReplicationFaultTarget start(GroupReplicationCluster.Mode mode) {
        GroupReplicationCluster gr = GroupReplicationCluster.start(mode);
        try {
            gr.createDatabase(DATABASE);
            return new GroupReplicationFaultTarget(gr);
        } catch (RuntimeException | Error e) {
            gr.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "MySQL " + gr.version() + " Group Replication, 3 members, "
                + (router != null ? "single-primary (clients routed to the primary)" : "multi-primary");
    }

    @Override
    public RowQueues.Builder builder() {
        return RowQueues.builder(clients).retry(new RetryPolicy(60, Duration.ofMillis(5), Duration.ofMillis(500)));
    }

    private int victim() {
        int n = injections++;
        if (router != null) {
            int primary = gr.primary();
            return primary >= 0 ? primary : 0;
        }
        return (2 + n) % 3;
    }

    @Override
    public Injection inject(Fault fault, Duration hold) throws Exception {
        Instant began = Instant.now();
        switch (fault) {
            case KILL -> {
                int v = victim();
                gr.kill(v);
                TimeUnit.NANOSECONDS.sleep(DOWN.toNanos());
                Instant ended = Instant.now();
                gr.restart(v);
                return new Injection(role(v) + " SIGKILLed, restarted after " + DOWN.toSeconds() + " s", began, ended);
            }
            case STALL -> {
                int v = victim();
                long pid = gr.pid(v);
                Holds.during(hold, () -> Signals.send(pid, "STOP"), () -> Signals.send(pid, "CONT"));
                return new Injection(role(v) + " stopped for " + hold.toSeconds() + " s", began, Instant.now());
            }
            case PARTITION -> {
                if (firewall == null || !GroupReplicationCluster.ownAddresses()) {
                    throw new UnsupportedOperationException(firewall == null ? LoopbackFirewall.missing()
                            : "the members could not get loopback addresses of their own (ip addr add, as root)");
                }
                int v = victim();
                Holds.during(hold, () -> {
                    for (int other = 0; other < 3; other++) {
                        if (other != v) { // XCom does not bind its outgoing connections: tell members by their user
                            firewall.dropSentBy(gr.uid(v), gr.host(other));
                            firewall.dropSentBy(gr.uid(other), gr.host(v));
                        }
                    }
                }, firewall::heal);
                return new Injection(role(v) + " cut off from the others for " + hold.toSeconds() + " s (clients"
                        + " still reach it)", began, Instant.now());
            }
            case WHOLE_CLUSTER -> {
                gr.killAll();
                TimeUnit.NANOSECONDS.sleep(DOWN.toNanos());
                Instant ended = Instant.now();
                int first = gr.bootstrapFromMostAdvanced();
                return new Injection("all 3 members SIGKILLed, bootstrapped from member " + (first + 1)
                        + " (largest gtid_executed)", began, ended);
            }
            case CONNECTIONS_CUT -> {
                int killed = Holds.repeat(hold, () -> gr.killClientConnections(DATABASE));
                return new Injection(killed + " sessions killed on all members over " + hold.toSeconds() + " s",
                        began, Instant.now());
            }
            default -> throw new UnsupportedOperationException(fault.toString());
        }
    }

    private String role(int member) {
        return "member " + (member + 1) + (router != null ? " (the primary)" : "");
    }

    @Override
    public void awaitServing(Duration patience) {
        gr.rejoinAll(false);
    }

    @Override
    public void awaitWhole(Duration patience) {
        gr.rejoinAll();
    }

    @Override
    public void keepEvidence() {
        gr.keep();
    }

    @Override
    public void close() {
        if (router != null) {
            router.close();
        }
        pools.forEach(HikariDataSource::close);
        if (firewall != null) {
            firewall.close();
        }
        gr.close();
    }

    /**
     * Connections to the group's primary, as MySQL Router's metadata cache routes them: the primary is asked for every
     * half second, and a connection comes from that member's pool; while no member is primary, getting one fails
     * as a connection failure would (the operation is retried).
     */
    static final class PrimaryRouter extends SimpleDataSource implements AutoCloseable {
        private final List<HikariDataSource> pools;
        private final Thread refresher;
        private volatile int primary;
        private volatile boolean open = true;

        PrimaryRouter(GroupReplicationCluster gr, List<HikariDataSource> pools) {
            this.pools = pools;
            this.primary = gr.primary();
            this.refresher = new Thread(() -> {
                while (open) {
                    primary = gr.primary();
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "gr-primary-router");
            refresher.setDaemon(true);
            refresher.start();
        }

        @Override
        public Connection getConnection() throws SQLException {
            int p = primary;
            if (p < 0) {
                throw new SQLTransientConnectionException("no member of the group is primary now", "08001");
            }
            return pools.get(p).getConnection();
        }

        @Override
        public void close() {
            open = false;
            refresher.interrupt();
        }
    }
}
