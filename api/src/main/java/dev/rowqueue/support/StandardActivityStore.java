package dev.rowqueue.support;

import dev.rowqueue.spi.ActivityStore;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The portable activity table: a batched {@code INSERT}, a {@code DELETE} of old minutes and a {@code SELECT} with
 * {@code GROUP BY}; the store {@link Dialect#activityStore()} returns unless a dialect returns its own.
 */
public final class StandardActivityStore implements ActivityStore {

    private static final Sql INSERT = Sql.of("INSERT INTO " + Dialect.ACTIVITY_TABLE + " (queue_name, minute_ms,"
            + " flush_id, n_enqueued, n_finished, n_failed, n_started, wait_ms_sum, wait_ms_max) VALUES (:queue,"
            + " :minute, :flush, :enqueued, :finished, :failed, :started, :waitsum, :waitmax)");
    private static final Sql DELETE = Sql.of("DELETE FROM " + Dialect.ACTIVITY_TABLE + " WHERE minute_ms < :before");
    private static final Sql READ = Sql.of("SELECT minute_ms, SUM(n_enqueued), SUM(n_finished), SUM(n_failed),"
            + " SUM(n_started), SUM(wait_ms_sum), MAX(wait_ms_max) FROM " + Dialect.ACTIVITY_TABLE
            + " WHERE queue_name = :queue AND minute_ms >= :since GROUP BY minute_ms");

    private final Dialect dialect;

    /**
     * @param dialect the dialect, for binding
     */
    public StandardActivityStore(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public SqlOp<Void> insert(List<Minute> minutes, long flushId) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = INSERT.prepare(c)) {
                for (Minute m : minutes) {
                    dialect.bind(INSERT, ps).set("queue", m.queue()).set("minute", m.minuteMs()).set("flush", flushId)
                            .set("enqueued", m.enqueued()).set("finished", m.finished()).set("failed", m.failed())
                            .set("started", m.started()).set("waitsum", m.waitSumMs()).set("waitmax", m.waitMaxMs())
                            .addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    @Override
    public SqlOp<Void> deleteBefore(long beforeMs) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = DELETE.prepare(c)) {
                dialect.bind(DELETE, ps).set("before", beforeMs).done();
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public SqlOp<List<Minute>> read(String queue, long sinceMs) {
        return SqlOp.read(c -> {
            List<Minute> minutes = new ArrayList<>();
            try (PreparedStatement ps = READ.prepare(c)) {
                dialect.bind(READ, ps).set("queue", queue).set("since", sinceMs).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        minutes.add(new Minute(queue, rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                                rs.getLong(5), rs.getLong(6), rs.getLong(7)));
                    }
                }
            }
            return minutes;
        });
    }
}
