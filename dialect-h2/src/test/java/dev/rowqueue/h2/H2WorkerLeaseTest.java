package dev.rowqueue.h2;

import dev.rowqueue.tck.WorkerLeaseScenario;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** Issue 42's worker lease scenarios on H2 in memory ({@link WorkerLeaseScenario}). */
class H2WorkerLeaseTest {

    private static JdbcDataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    @Test
    void a_job_acked_while_a_heartbeat_is_in_flight_is_not_a_lost_lease() {
        WorkerLeaseScenario.ackDuringSlowBeat(h2("lease_slow_beat"), "slow_beat");
    }
}
