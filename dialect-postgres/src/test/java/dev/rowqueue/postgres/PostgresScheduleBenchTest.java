package dev.rowqueue.postgres;

import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The schedule cells of issue 25, measured on the newest embedded PostgreSQL and printed (no assertion on time):
 * statements per second of an idle scheduler with 1,000 schedules defined, and slot-to-enqueue latency (the job's
 * {@code enqueued_ms} minus its slot, both by the database's clock) with 100 schedules firing every second, two
 * schedulers, at poll intervals of 1 s (the default) and 100 ms. Skipped unless {@code -Drowqueue.schedule.bench=true}:
 * {@code ./mvnw -pl dialect-postgres -am verify -Dtest=PostgresScheduleBenchTest -Drowqueue.schedule.bench=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class PostgresScheduleBenchTest {

    @Test
    void idle_cost_and_slot_to_enqueue_latency() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("rowqueue.schedule.bench"), "-Drowqueue.schedule.bench=true");
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST);
        try (var pool = server.pool(server.newDatabase("schedbench"), 16)) {
            CountingDataSource counted = new CountingDataSource(pool);
            try (RowQueues definer = RowQueues.builder(pool).scheduler(false).build()) {
                definer.workQueue("idle_jobs").create();
                Schedules s = definer.schedules();
                for (int i = 0; i < 1000; i++) {
                    s.define("idle-" + i, "@yearly", ScheduleOptions.forQueue("idle_jobs"));
                }
                try (RowQueues node = RowQueues.builder(counted).build()) {
                    node.schedules().startScheduler();
                    Thread.sleep(1500);
                    long before = counted.executions();
                    long t0 = System.nanoTime();
                    Thread.sleep(10_000);
                    double seconds = (System.nanoTime() - t0) / 1e9;
                    System.out.printf("SCHEDULE BENCH PostgreSQL %s: idle, 1,000 schedules, poll 1 s: %.2f statements/s%n",
                            EmbeddedPostgresServer.NEWEST, (counted.executions() - before) / seconds);
                }
                for (int i = 0; i < 1000; i++) {
                    s.delete("idle-" + i);
                }
                for (Duration poll : List.of(Duration.ofSeconds(1), Duration.ofMillis(100))) {
                    String q = "lat_" + poll.toMillis();
                    definer.workQueue(q).create();
                    for (int i = 0; i < 100; i++) {
                        s.define(q + "-" + i, Schedule.every(Duration.ofSeconds(1)),
                                ScheduleOptions.forQueue(q).withPayload("{slot_ms}"));
                    }
                    try (RowQueues a = RowQueues.builder(pool).schedulerPollInterval(poll).build();
                         RowQueues b = RowQueues.builder(pool).schedulerPollInterval(poll).build()) {
                        a.schedules().startScheduler();
                        b.schedules().startScheduler();
                        Thread.sleep(20_000);
                    }
                    List<Long> lags = new ArrayList<>();
                    try (Connection c = pool.getConnection(); Statement st = c.createStatement();
                         ResultSet rs = st.executeQuery("SELECT payload, enqueued_ms FROM " + dev.rowqueue.spi.WorkTables.of(q).jobs())) {
                        while (rs.next()) {
                            lags.add(rs.getLong(2) - Long.parseLong(rs.getString(1)));
                        }
                    }
                    Collections.sort(lags);
                    System.out.printf("SCHEDULE BENCH PostgreSQL %s: 100 schedules every second, 2 schedulers, poll %d ms:"
                                    + " %d jobs, slot-to-enqueue p50 %d ms, p99 %d ms, max %d ms%n", EmbeddedPostgresServer.NEWEST,
                            poll.toMillis(), lags.size(), lags.get(lags.size() / 2),
                            lags.get((int) Math.min(lags.size() - 1, Math.round(lags.size() * 0.99))),
                            lags.get(lags.size() - 1));
                    for (int i = 0; i < 100; i++) {
                        s.delete(q + "-" + i);
                    }
                }
            }
        }
    }
}
