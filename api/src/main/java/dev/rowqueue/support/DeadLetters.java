package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;

import java.sql.PreparedStatement;
import java.util.List;
import java.util.OptionalLong;

/**
 * A work queue's dead letters: jobs buried by their consumer or by running out of attempts ({@code state = DEAD},
 * their unique key released), listed by id, revived (live, due now, attempts reset) or purged.
 */
public final class DeadLetters {

    private final Dialect dialect;
    private final Sql bury;
    private final Sql dead;
    private final Sql reviveOne;
    private final Sql reviveAll;
    private final Sql purge;

    /**
     * @param dialect the dialect
     * @param t       the queue's tables
     * @param update  the beginning of an {@code UPDATE} of one job by its primary key, before {@code SET}
     * @param live    the condition that a job is live
     */
    public DeadLetters(Dialect dialect, WorkTables t, String update, String live) {
        this.dialect = dialect;
        String now = dialect.nowMillis();
        String isDead = "state = " + WorkTables.DEAD;
        bury = Sql.of(update + " SET " + JobRules.bury() + " WHERE id = :id AND lease_token = :token AND " + live);
        dead = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM " + t.jobs() + " WHERE " + isDead + " ORDER BY id"
                + dialect.limit("n"));
        String revive = "UPDATE " + t.jobs() + " SET " + JobRules.revive(now) + " WHERE " + isDead;
        reviveOne = Sql.of(revive + " AND id = :id");
        reviveAll = Sql.of(revive);
        purge = Sql.of("DELETE FROM " + t.jobs() + " WHERE " + isDead);
    }

    /**
     * @param ids   the jobs, leased with {@code token}
     * @param token the lease token
     * @param error the error to keep
     * @return how many were buried, in one transaction
     */
    public SqlOp<Integer> bury(long[] ids, long token, String error) {
        return SqlOp.transaction(c -> {
            int buried = 0;
            try (PreparedStatement ps = bury.prepare(c)) {
                for (long id : ids) {
                    dialect.bind(bury, ps).set("id", id).set("token", token).set("error", error).done();
                    buried += ps.executeUpdate();
                }
            }
            return buried;
        });
    }

    /**
     * @param limit the most jobs
     * @return the dead jobs, by id
     */
    public SqlOp<List<Job>> dead(int limit) {
        return SqlOp.read(c -> {
            try (PreparedStatement ps = dead.prepare(c)) {
                dialect.bind(dead, ps).limit("n", limit).done();
                return Jdbc.jobs(ps, dialect);
            }
        });
    }

    /**
     * @param id one dead job, or empty for all
     * @return how many were revived
     */
    public SqlOp<Integer> revive(OptionalLong id) {
        Sql sql = id.isPresent() ? reviveOne : reviveAll;
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps);
                if (id.isPresent()) {
                    b.set("id", id.getAsLong());
                }
                b.done();
                return ps.executeUpdate();
            }
        });
    }

    /** @return how many dead jobs were deleted */
    public SqlOp<Integer> purge() {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = purge.prepare(c)) {
                dialect.bind(purge, ps).done();
                return ps.executeUpdate();
            }
        });
    }
}
