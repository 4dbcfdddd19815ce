package dev.rowqueue.mysql;

import dev.rowqueue.tck.WorkerCrashScenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * Issue 15's crash test on the embedded MariaDB: a worker in a child JVM (MySQL Connector/J) killed with SIGKILL
 * mid-batch, a second worker in this JVM (MariaDB Connector/J) finishing every job (see {@link WorkerCrashScenario}
 * for what is checked).
 */
class WorkerCrashTest extends EmbeddedServerTest {

    @Override
    protected String database() {
        return "it_crash";
    }

    @Override
    protected MySqlTargets.Session session() {
        return new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+00:00", false);
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void a_worker_killed_mid_batch_loses_no_job_and_no_job_runs_twice_while_its_lease_lives() throws Exception {
        WorkerCrashScenario.Outcome outcome = WorkerCrashScenario.run(pools.get(EmbeddedMariaDb.Driver.MARIADB),
                server.url(EmbeddedMariaDb.Driver.MYSQL, database()), "root", "", "crashed");
        System.out.println(server.version() + ": " + outcome);
    }
}
