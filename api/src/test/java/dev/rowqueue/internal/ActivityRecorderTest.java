package dev.rowqueue.internal;

import dev.rowqueue.QueueActivity;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.ActivityStore;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.portable.PortableDialect;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.StandardActivityStore;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The activity recorder on H2 with a clock of the test's own: counts stay in memory until their minute has ended, one
 * flush writes every queue's minute in one batch, every tenth flush deletes rows older than an hour, reads add the
 * pending counts to the table's.
 */
class ActivityRecorderTest {
    private static final long MINUTE = 60_000;
    /** 2026-11-27 10:00 UTC. */
    private static final long T0 = 1_795_773_600_000L;

    private final JdbcDataSource ds = new JdbcDataSource();
    private final Dialect dialect = new PortableDialect(DatabaseProduct.assumed("H2", 2, 5));
    private final PooledExecutor executor;
    private final AtomicLong clock = new AtomicLong(T0 + 5_000);
    private final ActivityRecorder recorder;

    ActivityRecorderTest() throws Exception {
        ds.setURL("jdbc:h2:mem:activity_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        executor = new PooledExecutor(ds, dialect, new RetryPolicy(1, Duration.ZERO, Duration.ZERO));
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String ddl : dialect.ddl().activity()) {
                s.execute(ddl);
            }
        }
        recorder = new ActivityRecorder(dialect, executor, true, clock::get);
    }

    @AfterEach
    void shutdown() throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    private long rows() throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + Dialect.ACTIVITY_TABLE)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void counts_are_written_once_their_minute_has_ended_one_row_per_queue_and_minute() throws Exception {
        recorder.record("mail", ActivityRecorder.ENQUEUED, 3);
        recorder.record("mail", ActivityRecorder.FINISHED, 2);
        recorder.record("webhooks", ActivityRecorder.FAILED, 1);
        assertThat(recorder.flush(false)).as("the minute has not ended").isZero();
        assertThat(rows()).isZero();
        QueueActivity pending = recorder.read("mail", executor);
        assertThat(pending.enqueued().get(QueueActivity.MINUTES - 1)).as("pending counts are read").isEqualTo(3);

        clock.addAndGet(MINUTE);
        recorder.record("mail", ActivityRecorder.ENQUEUED, 1);
        assertThat(recorder.flush(false)).as("mail and webhooks of the minute that ended").isEqualTo(2);
        assertThat(rows()).isEqualTo(2);
        QueueActivity mail = recorder.read("mail", executor);
        assertThat(mail.enqueued().subList(QueueActivity.MINUTES - 2, QueueActivity.MINUTES)).containsExactly(3L, 1L);
        assertThat(mail.finished().get(QueueActivity.MINUTES - 2)).isEqualTo(2);
        assertThat(mail.start().toEpochMilli()).isEqualTo(T0 + MINUTE - 59 * MINUTE);
        assertThat(recorder.read("webhooks", executor).totalFailed()).isEqualTo(1);
        assertThat(recorder.flush(true)).as("on close: the current minute too").isEqualTo(1);
        assertThat(recorder.read("mail", executor).totalEnqueued()).as("nothing counted twice").isEqualTo(4);
    }

    @Test
    void every_tenth_flush_deletes_rows_older_than_an_hour_and_reads_ignore_them() throws Exception {
        recorder.record("mail", ActivityRecorder.ENQUEUED, 5);
        clock.addAndGet(MINUTE);
        recorder.flush(false); // flush 1 writes minute T0
        clock.addAndGet(61 * MINUTE);
        assertThat(recorder.read("mail", executor).totalEnqueued()).as("older than an hour").isZero();
        for (int i = 2; i < ActivityRecorder.CLEANUP_EVERY; i++) {
            recorder.flush(false);
        }
        assertThat(rows()).as("nothing deleted before the tenth flush").isEqualTo(1);
        recorder.flush(false);
        assertThat(rows()).isZero();
    }

    @Test
    void a_recorder_that_is_off_counts_nothing_and_reads_the_table() {
        ActivityRecorder off = new ActivityRecorder(dialect, executor, false, clock::get);
        off.record("mail", ActivityRecorder.ENQUEUED, 7);
        assertThat(off.read("mail", executor).totalEnqueued()).isZero();
        recorder.record("mail", ActivityRecorder.ENQUEUED, 7);
        recorder.close();
        assertThat(off.read("mail", executor).totalEnqueued()).as("another instance's counts, written on close")
                .isEqualTo(7);
    }

    /** The portable store, recording which operations ran, whose reads count every enqueue twice. */
    static final class TunedStore implements ActivityStore {
        final List<String> calls = new CopyOnWriteArrayList<>();
        private final ActivityStore portable;

        TunedStore(Dialect dialect) {
            portable = new StandardActivityStore(dialect);
        }

        @Override
        public SqlOp<Void> insert(List<Minute> minutes, long flushId) {
            calls.add("insert " + minutes.size());
            return portable.insert(minutes, flushId);
        }

        @Override
        public SqlOp<Void> deleteBefore(long beforeMs) {
            calls.add("deleteBefore");
            return portable.deleteBefore(beforeMs);
        }

        @Override
        public SqlOp<List<Minute>> read(String queue, long sinceMs) {
            calls.add("read " + queue);
            SqlOp<List<Minute>> real = portable.read(queue, sinceMs);
            return SqlOp.read(c -> real.run(c).stream().map(m -> new Minute(m.queue(), m.minuteMs(),
                    2 * m.enqueued(), m.finished(), m.failed(), m.started(), m.waitSumMs(), m.waitMaxMs())).toList());
        }
    }

    @Test
    void the_recorder_writes_and_reads_through_the_dialects_activity_store() {
        TunedStore[] store = new TunedStore[1];
        Dialect tuned = new Dialect(DatabaseProduct.assumed("H2", 2, 5)) {
            @Override
            public String name() {
                return "tuned-activity";
            }

            @Override
            public ActivityStore activityStore() {
                store[0] = new TunedStore(this);
                return store[0];
            }
        };
        ActivityRecorder tunedRecorder = new ActivityRecorder(tuned, executor, true, clock::get);
        tunedRecorder.record("mail", ActivityRecorder.ENQUEUED, 3);
        tunedRecorder.record("webhooks", ActivityRecorder.ENQUEUED, 1);
        clock.addAndGet(MINUTE);
        for (int i = 1; i <= ActivityRecorder.CLEANUP_EVERY; i++) {
            tunedRecorder.flush(false);
        }
        assertThat(tunedRecorder.read("mail", executor).totalEnqueued()).as("the store's answer").isEqualTo(6);
        assertThat(store[0].calls).containsExactly("insert 2", "deleteBefore", "read mail");
    }

    @Test
    void close_gives_up_on_the_last_counts_when_the_database_does_not_answer() throws Exception {
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        Executor stuck = new Executor() { // a commit that waits for ever (a synchronous standby that is gone)
            @Override
            public <R> R run(String what, dev.rowqueue.spi.SqlOp<R> op) {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("interrupted");
            }
        };
        ActivityRecorder hanging = new ActivityRecorder(dialect, stuck, true, clock::get);
        hanging.record("mail", ActivityRecorder.ENQUEUED, 1);
        try {
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), hanging::close,
                    "close() returns although the last write never ends");
        } finally {
            never.countDown();
        }
    }
}
