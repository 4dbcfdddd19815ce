package dev.rowqueue.internal;

import dev.rowqueue.Counters;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A closed RowQueues refuses everything, through every handle, and stops its workers (issue 24, item 6). */
class ClosedRowQueuesTest {

    @Test
    void every_handle_and_the_instance_refuse_after_close_and_workers_stop() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:closed_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        RowQueues rq = RowQueues.builder(ds).build();
        WorkQueue mail = rq.workQueue("mail");
        mail.enqueue("a");
        Job leased = mail.claim(1).get(0);
        RingQueue ring = rq.ring("recent", 3);
        ring.push("g", "x");
        Counters counters = rq.counters("sales");
        counters.increment("k");
        AtomicInteger handled = new AtomicInteger();
        Worker worker = rq.workQueue("jobs").worker(ctx -> handled.incrementAndGet(),
                WorkerOptions.defaults()).start();
        try (Connection c = ds.getConnection()) {
            WorkQueue bound = mail.using(c);

            rq.close();

            List<Runnable> calls = List.of(
                    () -> mail.enqueue("b"), () -> mail.claim(1), () -> mail.ack(leased), () -> mail.stats(),
                    () -> mail.deadLetters(5), () -> mail.create(), () -> bound.enqueue("c"),
                    () -> mail.worker(ctx -> { }, WorkerOptions.defaults()),
                    () -> ring.push("g", "y"), () -> ring.oldestFirst("g"), () -> ring.groups(),
                    () -> counters.increment("k"), () -> counters.get("k"),
                    () -> rq.workQueue("mail"), () -> rq.ring("recent", 3), () -> rq.counters("sales"),
                    () -> rq.queues(), () -> rq.dropQueue("mail"), () -> rq.schema());
            for (Runnable call : calls) {
                assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            }
        }
        assertThat(worker.toString()).contains("CLOSED");
        assertThat(worker.running()).isZero();
        rq.close(); // twice: nothing
        RowQueues fresh = RowQueues.builder(ds).build();
        assertThat(fresh.workQueue("mail").stats().total()).isEqualTo(1);
        fresh.close();
    }
}
