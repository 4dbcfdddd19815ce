package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.faults.Fault;
import dev.rowqueue.tck.faults.FaultTarget;
import dev.rowqueue.tck.faults.Holds;
import dev.rowqueue.testkit.LoopbackFirewall;
import dev.rowqueue.testkit.Signals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A three-node {@link GaleraCluster} under the fault campaign. Clients reach it as an application behind a
 * round-robin of one pool per node would: each connection goes to the next node, a node that does not answer within
 * a second is passed over, and rowqueue retries an operation that failed before it could commit (up to 60 attempts,
 * backoff up to 500 ms). The victim of a node fault rotates over the nodes from one injection to the next.
 */
final class GaleraFaultTarget implements FaultTarget {

    /** The database the campaign runs in. */
    static final String DATABASE = "faults";
    private static final Duration DOWN = Duration.ofSeconds(3);

    private final GaleraCluster cluster;
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final GaleraTargets.RoundRobin spread;
    private final LoopbackFirewall firewall;
    private int injections;

    private GaleraFaultTarget(GaleraCluster cluster) {
        this.cluster = cluster;
        List<String> urls = cluster.urls(DATABASE);
        for (int i = 0; i < urls.size(); i++) {
            HikariDataSource pool = MySqlTargets.pool(urls.get(i), "root", "", null, "fault-node" + (i + 1));
            pool.setConnectionTimeout(1_000); // a dead or stalled node's pool gives up fast: the retry takes the next
            pools.add(pool);
        }
        this.spread = new GaleraTargets.RoundRobin(pools);
        this.firewall = LoopbackFirewall.missing() == null ? new LoopbackFirewall() : null;
    }

    /** @return a started cluster with the campaign's database, or NOT RUN without Galera */
    static GaleraFaultTarget start() {
        GaleraCluster cluster = GaleraCluster.start();
        try {
            cluster.createDatabase(DATABASE);
            return new GaleraFaultTarget(cluster);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "MariaDB " + cluster.version() + " Galera (galera-4 " + cluster.providerVersion().replaceAll("\\(.*", "")
                + "), 3 nodes";
    }

    @Override
    public RowQueues.Builder builder() {
        return RowQueues.builder(spread).retry(new RetryPolicy(60, Duration.ofMillis(5), Duration.ofMillis(500)));
    }

    @Override
    public Injection inject(Fault fault, Duration hold) throws Exception {
        int victim = (2 + injections++) % 3;
        String node = "node " + (victim + 1);
        Instant began = Instant.now();
        switch (fault) {
            case KILL -> {
                cluster.kill(victim);
                TimeUnit.NANOSECONDS.sleep(DOWN.toNanos());
                Instant ended = Instant.now();
                cluster.restart(victim);
                return new Injection(node + " SIGKILLed, restarted after " + DOWN.toSeconds() + " s", began, ended);
            }
            case STALL -> {
                long pid = cluster.pid(victim);
                Holds.during(hold, () -> Signals.send(pid, "STOP"), () -> Signals.send(pid, "CONT"));
                return new Injection(node + " stopped for " + hold.toSeconds() + " s", began, Instant.now());
            }
            case PARTITION -> {
                if (firewall == null) {
                    throw new UnsupportedOperationException(LoopbackFirewall.missing());
                }
                Holds.during(hold, () -> {
                    for (int other = 0; other < 3; other++) {
                        if (other != victim) {
                            firewall.cut(cluster.host(victim), cluster.host(other));
                        }
                    }
                }, firewall::heal);
                return new Injection(node + " cut off from the others for " + hold.toSeconds() + " s (clients"
                        + " still reach it)", began, Instant.now());
            }
            case WHOLE_CLUSTER -> {
                cluster.killAll();
                TimeUnit.NANOSECONDS.sleep(DOWN.toNanos());
                Instant ended = Instant.now();
                int first = cluster.bootstrapFromMostAdvanced();
                return new Injection("all 3 nodes SIGKILLed, bootstrapped from node " + (first + 1)
                        + " (wsrep-recover)", began, ended);
            }
            case CONNECTIONS_CUT -> {
                int killed = Holds.repeat(hold, () -> cluster.killClientConnections(DATABASE));
                return new Injection(killed + " sessions killed on all nodes over " + hold.toSeconds() + " s", began,
                        Instant.now());
            }
            default -> throw new UnsupportedOperationException(fault.toString());
        }
    }

    @Override
    public void awaitWhole(Duration patience) {
        for (int i = 0; i < 3; i++) {
            cluster.awaitSynced(i);
        }
    }

    @Override
    public void keepEvidence() {
        cluster.keep();
    }

    @Override
    public void close() {
        pools.forEach(HikariDataSource::close);
        if (firewall != null) {
            firewall.close();
        }
        cluster.close();
    }
}
