package dev.rowqueue.db2;

import dev.rowqueue.Job;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.JobRules;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.WorkForms;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The work queue's hooks on Db2.
 * <ul>
 *   <li>Enqueue: {@code SELECT id FROM FINAL TABLE (INSERT ... VALUES (...), (...)) ORDER BY INPUT SEQUENCE}, up to
 *       {@value #ENQUEUE_CHUNK} rows per statement, ids in payload order.</li>
 *   <li>Claim: one statement that picks, locks and leases the jobs and returns them:
 *       {@code SELECT ... FROM FINAL TABLE (UPDATE (SELECT ... ORDER BY prio DESC, due_ms, id FETCH FIRST n ROWS
 *       ONLY) INCLUDE (claim_due BIGINT) SET ...) ORDER BY prio DESC, claim_due, id SKIP LOCKED DATA}. Rows other
 *       consumers hold are skipped, not waited for; the {@code INCLUDE} column carries each job's due time from
 *       before the lease, so the jobs come back in claim order. It runs in a transaction of its own, which the core
 *       runs at READ COMMITTED (cursor stability), where SKIP LOCKED DATA applies.</li>
 *   <li>Rotation: the cursor row is locked (the portable step), then the same statement picks jobs after the cursor,
 *       and, wrapping around, from the lowest id.</li>
 *   <li>Ack: {@code SELECT id FROM OLD TABLE (DELETE ...)}, the destructive pop of a leased job.</li>
 * </ul>
 */
final class Db2WorkForms implements WorkForms {

    /** Rows per multi-row INSERT of an enqueue. */
    static final int ENQUEUE_CHUNK = 100;

    private final Db2Dialect dialect;
    private final WorkTables t;
    private final String now;
    private final Portable portable;
    private final Sql claim;
    private final Sql rotateAfter;
    private final Sql rotateUpTo;
    private final Sql moveCursor;
    private final Sql ack;
    private final Sql insertKeyed;
    private final String payloadType;

    Db2WorkForms(Db2Dialect dialect, WorkTables tables, Portable portable) {
        this.dialect = dialect;
        this.t = tables;
        this.now = dialect.nowMillis();
        this.portable = portable;
        payloadType = dialect.typeOf(Schema.Type.PAYLOAD);
        claim = lease("ORDER BY prio DESC, due_ms, id", " INCLUDE (claim_due BIGINT)", ", claim_due = due_ms",
                "prio DESC, claim_due, id");
        rotateAfter = lease("AND id > :last ORDER BY id", "", "", "id");
        rotateUpTo = lease("AND id <= :last ORDER BY id", "", "", "id");
        moveCursor = Sql.of("UPDATE " + t.cursors() + " SET last_id = :last WHERE cursor_name = :cursor");
        ack = Sql.of("SELECT id FROM OLD TABLE (DELETE FROM " + t.jobs() + " WHERE id = :id AND lease_token = :token"
                + " AND state = " + WorkTables.LIVE + ")");
        insertKeyed = Sql.of("SELECT id FROM FINAL TABLE (INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms,"
                + " attempts, enqueued_ms, job_key, unique_key, key_seq) VALUES (CAST(:payload AS " + payloadType
                + "), CAST(:prio AS INTEGER), " + WorkTables.LIVE + ", " + now + " + CAST(:delay AS BIGINT), 0, " + now
                + ", CAST(:key AS " + Db2Keys.COLUMN_TYPE + "), CAST(:ukey AS " + Db2Keys.COLUMN_TYPE
                + "), CAST(:seq AS BIGINT)))");
    }

    /** One {@code SELECT id FROM FINAL TABLE (INSERT ...)}, keys bound as their stored bytes. */
    @Override
    public OptionalLong insertKeyed(Connection c, String payload, int priority, long delayMs, String key,
                                    String uniqueKey, long round) throws SQLException {
        try (PreparedStatement ps = insertKeyed.prepare(c)) {
            dialect.bind(insertKeyed, ps).set("payload", payload).setInt("prio", priority).set("delay", delayMs)
                    .set("key", key).set("ukey", uniqueKey).set("seq", round).done();
            return OptionalLong.of(Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("INSERT into " + t.jobs()
                    + " returned no id")));
        }
    }

    /** The leasing statement: pick up to :n claimable jobs, skipping locked ones, lease them, return them. */
    private Sql lease(String pick, String include, String extraSet, String order) {
        return Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM FINAL TABLE (UPDATE (SELECT " + Jdbc.JOB_COLUMNS + " FROM "
                + t.jobs() + " WHERE " + JobRules.claimable(now) + " " + pick + " FETCH FIRST :n ROWS ONLY)" + include
                + " SET " + JobRules.lease(now) + extraSet + ") ORDER BY " + order + " SKIP LOCKED DATA");
    }

    private Sql insert(int rows) {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < rows; i++) {
            values.append(i == 0 ? "" : ", ").append("(CAST(:payload").append(i).append(" AS ").append(payloadType)
                    .append("), CAST(:prio AS INTEGER), ").append(WorkTables.LIVE).append(", ").append(now)
                    .append(" + CAST(:delay AS BIGINT), 0, ").append(now).append(')');
        }
        String table = t.jobs();
        return Sql.of("SELECT id FROM FINAL TABLE (INSERT INTO " + table + " (payload, prio, state, due_ms, attempts,"
                + " enqueued_ms) VALUES " + values + ") ORDER BY INPUT SEQUENCE");
    }

    /** @return the statements this store renders (the enqueue of two rows stands for every chunk size), for tests */
    List<Sql> statements() {
        return List.of(insert(2), claim, rotateAfter, rotateUpTo, moveCursor, ack, insertKeyed);
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        SqlOp<long[]> body = c -> {
            long[] ids = new long[payloads.size()];
            for (int from = 0; from < ids.length; from += ENQUEUE_CHUNK) {
                List<String> chunk = payloads.subList(from, Math.min(ids.length, from + ENQUEUE_CHUNK));
                Sql sql = insert(chunk.size());
                try (PreparedStatement ps = sql.prepare(c)) {
                    Sql.Binder b = dialect.bind(sql, ps).setInt("prio", priority).set("delay", delayMs);
                    for (int i = 0; i < chunk.size(); i++) {
                        b.set("payload" + i, chunk.get(i));
                    }
                    b.done();
                    List<Long> keys = Jdbc.longs(ps);
                    if (keys.size() != chunk.size()) {
                        throw new SQLException("INSERT returned " + keys.size() + " ids for " + chunk.size() + " rows");
                    }
                    for (int i = 0; i < keys.size(); i++) {
                        ids[from + i] = keys.get(i);
                    }
                }
            }
            return ids;
        };
        return payloads.size() <= ENQUEUE_CHUNK ? SqlOp.statement(body) : SqlOp.transaction(body);
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        return SqlOp.transaction(c -> lease(c, claim, max, -1, leaseMs, token));
    }

    @Override
    public SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token) {
        return SqlOp.transaction(c -> {
            long last = portable.lockCursor(c, cursor);
            List<Job> jobs = new ArrayList<>(lease(c, rotateAfter, max, last, leaseMs, token));
            if (jobs.size() < max) {
                jobs.addAll(lease(c, rotateUpTo, max - jobs.size(), last, leaseMs, token));
            }
            if (!jobs.isEmpty()) {
                try (PreparedStatement ps = moveCursor.prepare(c)) {
                    dialect.bind(moveCursor, ps).set("last", jobs.get(jobs.size() - 1).id()).set("cursor", cursor)
                            .done();
                    ps.executeUpdate();
                }
            }
            return jobs;
        });
    }

    private List<Job> lease(Connection c, Sql sql, int n, long last, long leaseMs, long token) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).setInt("n", n).set("token", token).set("lease", leaseMs);
            if (sql.has("last")) {
                b.set("last", last);
            }
            b.done();
            return Jdbc.jobs(ps, dialect);
        }
    }

    @Override
    public SqlOp<Boolean> ack(long id, long token) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = ack.prepare(c)) {
                dialect.bind(ack, ps).set("id", id).set("token", token).done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }
}
