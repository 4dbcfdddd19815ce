package dev.rowqueue.mysql;

import dev.rowqueue.tck.WorkerLeaseScenario;
import org.junit.jupiter.api.Test;

/** Issue 42's worker lease scenarios on the embedded MariaDB ({@link WorkerLeaseScenario}). */
class MariaDbWorkerLeaseTest extends EmbeddedServerTest {

    @Override
    protected String database() {
        return "it_leases";
    }

    @Override
    protected MySqlTargets.Session session() {
        return new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+00:00", false);
    }

    @Test
    void a_job_acked_while_a_heartbeat_is_in_flight_is_not_a_lost_lease() {
        WorkerLeaseScenario.ackDuringSlowBeat(pools.get(EmbeddedMariaDb.Driver.MARIADB), "slow_beat");
    }
}
