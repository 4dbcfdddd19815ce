package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.faults.Fault;
import dev.rowqueue.tck.faults.FaultTarget;
import dev.rowqueue.tck.faults.Holds;
import dev.rowqueue.testkit.LoopbackFirewall;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL primary with a synchronous standby ({@link ReplicatedPostgres}) under the fault campaign. Clients use
 * one multi-host URL with {@code targetServerType=primary}, as an application behind a failover would. There is no
 * failover manager: the campaign promotes the standby itself after a primary is killed, a few seconds later, as one
 * would.
 */
final class PostgresFaultTarget implements FaultTarget {

    static final String DATABASE = "faults";
    private static final Duration PROMOTION_DELAY = Duration.ofSeconds(3);

    private final ReplicatedPostgres pg;
    private final HikariDataSource pool;
    private final LoopbackFirewall firewall;

    private PostgresFaultTarget(ReplicatedPostgres pg) {
        this.pg = pg;
        this.pool = ReplicatedPostgres.pool(pg.url(DATABASE), "rowqueue-faults", 24);
        this.firewall = LoopbackFirewall.missing() == null ? new LoopbackFirewall() : null;
    }

    /** @return a started pair with the campaign's database */
    static PostgresFaultTarget start() {
        ReplicatedPostgres pg = ReplicatedPostgres.start(ReplicatedPostgres.Mode.SYNCHRONOUS, DATABASE);
        try {
            return new PostgresFaultTarget(pg);
        } catch (RuntimeException | Error e) {
            pg.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "PostgreSQL " + pg.version() + ", primary + synchronous standby";
    }

    @Override
    public RowQueues.Builder builder() {
        return RowQueues.builder(pool).retry(new RetryPolicy(60, Duration.ofMillis(5), Duration.ofMillis(500)));
    }

    @Override
    public Injection inject(Fault fault, Duration hold) throws Exception {
        Instant began = Instant.now();
        switch (fault) {
            case KILL -> {
                pg.killStandby();
                pg.rebuildStandby();
                ReplicatedPostgres.Node killed = pg.killPrimary();
                TimeUnit.NANOSECONDS.sleep(PROMOTION_DELAY.toNanos());
                Instant ended = Instant.now();
                ReplicatedPostgres.Node promoted = pg.promoteStandby();
                pg.rebuildStandby();
                return new Injection("standby SIGKILLed and rebuilt; then primary " + killed.name + " SIGKILLed, "
                        + promoted.name + " promoted " + PROMOTION_DELAY.toSeconds() + " s later", began, ended);
            }
            case STALL -> {
                ReplicatedPostgres.Node primary = pg.primary();
                Holds.during(hold, () -> ReplicatedPostgres.signal(primary, "STOP"),
                        () -> ReplicatedPostgres.signal(primary, "CONT"));
                return new Injection("primary's processes stopped for " + hold.toSeconds() + " s", began,
                        Instant.now());
            }
            case PARTITION -> {
                if (firewall == null) {
                    throw new UnsupportedOperationException(LoopbackFirewall.missing());
                }
                Holds.during(hold, () -> firewall.cut("127.0.0.1", ReplicatedPostgres.REPLICATION_HOST),
                        firewall::heal);
                return new Injection("standby cut off from the primary for " + hold.toSeconds() + " s", began,
                        Instant.now());
            }
            case WHOLE_CLUSTER -> throw new UnsupportedOperationException("a primary and its standby do not"
                    + " bootstrap as a cluster: the primary's loss is the KILL cell's failover");
            case CONNECTIONS_CUT -> {
                int killed = Holds.repeat(hold, () -> pg.terminateClients(DATABASE));
                return new Injection(killed + " sessions terminated over " + hold.toSeconds() + " s", began,
                        Instant.now());
            }
            default -> throw new UnsupportedOperationException(fault.toString());
        }
    }

    @Override
    public void awaitWhole(Duration patience) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!pg.standbyStreaming()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no synchronous standby streams again within " + patience.toSeconds()
                        + " s");
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    @Override
    public void close() {
        pool.close();
        if (firewall != null) {
            firewall.close();
        }
        pg.close();
    }
}
