package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

/**
 * A work queue's leases after the claim: ack (delete), nack (back to due, or dead after the last attempt), release and
 * extend, each one statement on the job's id and lease token, and the extension of many leases at once.
 */
public final class Leases {

    private final Dialect dialect;
    private final WorkTables t;
    private final String now;
    private final WorkStatements.ById byId;
    private final Sql ack;
    private final Sql nack;
    private final Sql release;
    private final Sql extend;

    /**
     * @param dialect the dialect
     * @param t       the queue's tables
     * @param byId    how statements on one job found by its primary key begin
     */
    public Leases(Dialect dialect, WorkTables t, WorkStatements.ById byId) {
        this.dialect = dialect;
        this.t = t;
        this.now = dialect.nowMillis();
        this.byId = byId;
        String mine = " WHERE id = :id AND lease_token = :token AND " + byId.live();
        String update = byId.update();
        ack = Sql.of(byId.delete() + mine);
        nack = Sql.of(update + " SET " + JobRules.nack(now) + mine);
        release = Sql.of(update + " SET " + JobRules.release(now) + mine);
        extend = Sql.of(update + " SET due_ms = " + now + " + :lease" + mine);
    }

    private SqlOp<Boolean> byToken(Sql sql, long id, long token, Binding extra) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).set("id", id).set("token", token);
                extra.bind(b);
                b.done();
                return ps.executeUpdate() == 1;
            }
        });
    }

    private interface Binding {
        void bind(Sql.Binder b) throws SQLException;
    }

    /**
     * @param id    the job
     * @param token its lease token
     * @return whether the job was deleted
     */
    public SqlOp<Boolean> ack(long id, long token) {
        return byToken(ack, id, token, b -> { });
    }

    /**
     * @param id          the job
     * @param token       its lease token
     * @param delayMs     when it is due again
     * @param maxAttempts the attempts after which it is dead instead
     * @param error       the error to record
     * @return whether the job was changed
     */
    public SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        return byToken(nack, id, token, b -> b.setInt("max", maxAttempts).set("delay", delayMs).set("error", error));
    }

    /**
     * @param id    the job
     * @param token its lease token
     * @return whether the job was released (due now, no lease)
     */
    public SqlOp<Boolean> release(long id, long token) {
        return byToken(release, id, token, b -> { });
    }

    /**
     * Releases every live job leased under any of some tokens (attempts unchanged): the claims that set them failed
     * with an unknown outcome. Running it twice has the effect of running it once, so it is retried like a read.
     *
     * @param tokens the tokens of the claims, at least one
     * @return how many jobs were released
     */
    public SqlOp<Integer> releaseAll(long[] tokens) {
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < tokens.length; i++) {
            in.append(i == 0 ? ":t" : ", :t").append(i);
        }
        Sql sql = Sql.of(byId.update() + " SET " + JobRules.release(now) + " WHERE lease_token IN (" + in + ") AND "
                + byId.live());
        return new SqlOp.Flagged<>(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps);
                for (int i = 0; i < tokens.length; i++) {
                    b.set("t" + i, tokens[i]);
                }
                b.done();
                return ps.executeUpdate();
            }
        }, true, true, false);
    }

    /**
     * @param id      the job
     * @param token   its lease token
     * @param leaseMs the new lease, from now
     * @return whether the lease was extended
     */
    public SqlOp<Boolean> extend(long id, long token, long leaseMs) {
        return byToken(extend, id, token, b -> b.set("lease", leaseMs));
    }

    /**
     * One {@code UPDATE} of every job whose id and token match; where fewer rows changed than jobs were given, a
     * {@code SELECT} of the same transaction tells which still carry their token (those were extended).
     *
     * @param ids     the jobs
     * @param tokens  their lease tokens, pairwise
     * @param leaseMs the new lease, from now
     * @return the jobs whose lease was extended
     */
    public SqlOp<Set<Long>> extendAll(long[] ids, long[] tokens, long leaseMs) {
        StringBuilder pairs = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            pairs.append(i == 0 ? "" : " OR ").append("(id = :i").append(i).append(" AND lease_token = :t").append(i)
                    .append(')');
        }
        Sql update = Sql.of(byId.update() + " SET due_ms = " + now + " + :lease WHERE " + byId.live() + " AND ("
                + pairs + ")");
        Sql mine = Sql.of("SELECT id FROM " + t.jobs() + " WHERE " + byId.live() + " AND (" + pairs + ")");
        return SqlOp.transaction(c -> {
            int changed;
            try (PreparedStatement ps = update.prepare(c)) {
                bindPairs(dialect.bind(update, ps).set("lease", leaseMs), ids, tokens).done();
                changed = ps.executeUpdate();
            }
            Set<Long> extended = new HashSet<>();
            if (changed == ids.length) {
                for (long id : ids) {
                    extended.add(id);
                }
                return extended;
            }
            try (PreparedStatement ps = mine.prepare(c)) {
                bindPairs(dialect.bind(mine, ps), ids, tokens).done();
                extended.addAll(Jdbc.longs(ps));
            }
            return extended;
        });
    }

    private static Sql.Binder bindPairs(Sql.Binder b, long[] ids, long[] tokens) throws SQLException {
        for (int i = 0; i < ids.length; i++) {
            b.set("i" + i, ids[i]).set("t" + i, tokens[i]);
        }
        return b;
    }
}
