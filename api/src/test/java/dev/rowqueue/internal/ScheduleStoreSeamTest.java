package dev.rowqueue.internal;

import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.ScheduleStore;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.StandardScheduleStore;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schedules API and the scheduler run their statements through the dialect's {@link ScheduleStore}
 * ({@link Dialect#scheduleStore()}), so a dialect that returns its own store tunes every one of them (issue 36,
 * step 5).
 */
class ScheduleStoreSeamTest {

    /** The portable store, recording which of its operations ran and answering one of them its own way. */
    static final class RecordingStore implements ScheduleStore {
        final Set<String> calls = ConcurrentHashMap.newKeySet();
        private final ScheduleStore portable;

        RecordingStore(Dialect dialect) {
            this.portable = new StandardScheduleStore(dialect);
        }

        private <R> SqlOp<R> recorded(String call, SqlOp<R> op) {
            calls.add(call);
            return op;
        }

        @Override
        public SqlOp<List<Due>> due() {
            return recorded("due", portable.due());
        }

        @Override
        public SqlOp<Long> now() {
            return recorded("now", portable.now());
        }

        @Override
        public SqlOp<Boolean> insert(String name, Definition definition, long nextMs, long createdMs) {
            return recorded("insert", portable.insert(name, definition, nextMs, createdMs));
        }

        @Override
        public SqlOp<Boolean> update(String name, Definition definition) {
            return recorded("update", portable.update(name, definition));
        }

        @Override
        public SqlOp<Boolean> update(String name, Definition definition, long nextMs) {
            return recorded("update with slots", portable.update(name, definition, nextMs));
        }

        @Override
        public SqlOp<Boolean> setPaused(String name, boolean paused) {
            return recorded(paused ? "pause" : "resume", portable.setPaused(name, paused));
        }

        @Override
        public SqlOp<Boolean> delete(String name) {
            return recorded("delete", portable.delete(name));
        }

        @Override
        public SqlOp<List<Row>> readAll() {
            return recorded("read all", portable.readAll());
        }

        @Override
        public SqlOp<List<Row>> read(String name) {
            return recorded("read one", portable.read(name));
        }

        /** A tuned answer: the real last fires, and one of a schedule this store makes up. */
        @Override
        public SqlOp<Map<String, Long>> lastFires() {
            SqlOp<Map<String, Long>> real = portable.lastFires();
            return recorded("lastFires", SqlOp.read(c -> {
                Map<String, Long> fires = real.run(c);
                fires.put("tuned", 42L);
                return fires;
            }));
        }

        @Override
        public SqlOp<Boolean> claimSlot(String name, long slotMs, long firedMs) {
            return recorded("claimSlot", portable.claimSlot(name, slotMs, firedMs));
        }

        @Override
        public SqlOp<Boolean> advance(String name, long revision, long nextMs, long lastJob) {
            return recorded(lastJob >= 0 ? "advance awaiting" : "advance", portable.advance(name, revision, nextMs,
                    lastJob));
        }

        @Override
        public SqlOp<Void> prune(String name, long beforeMs) {
            return recorded("prune", portable.prune(name, beforeMs));
        }

        @Override
        public SqlOp<Boolean> jobPending(WorkTables tables, long id) {
            return recorded("jobPending", portable.jobPending(tables, id));
        }
    }

    private RecordingStore store;

    private RowQueues rq(String db) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
        return RowQueues.builder(ds).schedulerPollInterval(Duration.ofMillis(10))
                .registerDialect(TestDialects.provider("tuned-schedules", product -> new Dialect(product) {
                    @Override
                    public String name() {
                        return "tuned-schedules";
                    }

                    @Override
                    public ScheduleStore scheduleStore() {
                        store = new RecordingStore(this);
                        return store;
                    }
                })).build();
    }

    @Test
    void every_schedules_operation_runs_on_the_dialects_store() throws Exception {
        try (RowQueues rq = rq("schedule_store_seam")) {
            WorkQueue ticks = rq.workQueue("ticks").create();
            rq.workQueue("waits").create();
            Schedules schedules = rq.schedules();
            schedules.define("tick", Schedule.every(Duration.ofMillis(20)), ScheduleOptions.forQueue("ticks"));
            schedules.define("wait", Schedule.fixedDelay(Duration.ofMillis(20)), ScheduleOptions.forQueue("waits"));
            schedules.replace("tick", Schedule.every(Duration.ofMillis(20)),
                    ScheduleOptions.forQueue("ticks").withPayload("tuned"));
            schedules.replace("wait", Schedule.fixedDelay(Duration.ofMillis(30)), ScheduleOptions.forQueue("waits"));
            assertThat(schedules.pause("wait")).isTrue();
            assertThat(schedules.resume("wait")).isTrue();
            assertThat(schedules.list()).extracting(i -> i.name()).containsExactly("tick", "wait");
            assertThat(schedules.get("tick")).get().extracting(i -> i.options().payload()).isEqualTo("tuned");

            schedules.startScheduler();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (ticks.stats().total() < 2 || !store.calls.contains("jobPending")) {
                assertThat(System.nanoTime()).as("the scheduler fired through the store").isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(schedules.lastFires()).containsKey("tick").containsEntry("tuned", Instant.ofEpochMilli(42));
            assertThat(schedules.delete("tick")).isTrue();
            assertThat(schedules.get("tick")).isEmpty();

            assertThat(store.calls).contains("insert", "update", "update with slots", "pause", "resume", "read all",
                    "read one", "due", "claimSlot", "advance", "advance awaiting", "jobPending", "lastFires",
                    "delete");
        }
    }
}
