package dev.rowqueue.support;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueStats;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A work queue's reads for operators: counts by state (all, and per key), one job, pages of jobs, and the cancel of a
 * job that is not leased (a delete that a read explains when it misses).
 */
public final class JobReads {

    /** The columns {@link #jobInfo} reads, but the state. */
    private static final String INFO_COLUMNS = Jdbc.JOB_COLUMNS + ", unique_key";

    /** How many times a cancel that found its job ready or scheduled after its delete missed it deletes again. */
    private static final int CANCEL_ATTEMPTS = 3;

    private final Dialect dialect;
    private final WorkTables t;
    private final String now;
    private final Sql stats;
    private final Sql statsByKey;
    private final Sql jobById;
    private final Sql cancel;
    private final String jobState;
    private final Map<String, Sql> jobPages = new ConcurrentHashMap<>();

    /**
     * @param dialect the dialect
     * @param t       the queue's tables
     * @param byId    how statements on one job found by its primary key begin
     */
    public JobReads(Dialect dialect, WorkTables t, WorkStatements.ById byId) {
        this.dialect = dialect;
        this.t = t;
        this.now = dialect.nowMillis();
        String live = "state = " + WorkTables.LIVE;
        String dead = "state = " + WorkTables.DEAD;
        // ready, scheduled, leased, dead: QueueStats' order
        String counts = " SUM(CASE WHEN " + JobRules.claimable(now) + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND due_ms > " + now + " AND lease_token IS NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND due_ms > " + now + " AND lease_token IS NOT NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + dead + " THEN 1 ELSE 0 END) FROM " + t.jobs();
        stats = Sql.of("SELECT" + counts);
        statsByKey = Sql.of("SELECT job_key," + counts + " WHERE job_key IS NOT NULL"
                + " GROUP BY job_key ORDER BY COUNT(*) DESC, job_key" + dialect.limit("n"));
        // a job's state as JobState's ordinal, by the same tests as stats(): READY, SCHEDULED, LEASED, DEAD
        jobState = "CASE WHEN " + dead + " THEN 3 WHEN due_ms <= " + now + " THEN 0 WHEN lease_token IS NULL THEN 1"
                + " ELSE 2 END";
        jobById = Sql.of("SELECT " + INFO_COLUMNS + ", " + jobState + " AS job_state FROM " + t.jobs()
                + " WHERE id = :id");
        // ready or scheduled: live, and not under a lease that has not ended
        cancel = Sql.of(byId.delete() + " WHERE id = :id AND " + byId.live() + " AND (lease_token IS NULL OR due_ms <= "
                + now + ")");
    }

    /**
     * @param limit the most keys, those with the most jobs first
     * @return the counts per key
     */
    public SqlOp<Map<String, QueueStats>> statsByKey(int limit) {
        return SqlOp.read(c -> {
            Map<String, QueueStats> byKey = new LinkedHashMap<>();
            try (PreparedStatement ps = statsByKey.prepare(c)) {
                dialect.bind(statsByKey, ps).limit("n", limit).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        byKey.put(dialect.readKey(rs, 1), new QueueStats(rs.getLong(2), rs.getLong(3), rs.getLong(4),
                                rs.getLong(5)));
                    }
                }
            }
            return byKey;
        });
    }

    /** @return the counts by state */
    public SqlOp<QueueStats> stats() {
        return SqlOp.read(c -> {
            try (PreparedStatement ps = stats.prepare(c)) {
                dialect.bind(stats, ps).done();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new QueueStats(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
                }
            }
        });
    }

    /**
     * @param id the job
     * @return it, if it exists
     */
    public SqlOp<Optional<JobInfo>> job(long id) {
        return SqlOp.read(c -> readJob(c, id));
    }

    Optional<JobInfo> readJob(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = jobById.prepare(c)) {
            dialect.bind(jobById, ps).set("id", id).done();
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(jobInfo(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Maps a row of {@link #INFO_COLUMNS} and {@code job_state}.
     *
     * @param rs a result set on a row
     * @return the job
     * @throws SQLException from the driver
     */
    private JobInfo jobInfo(ResultSet rs) throws SQLException {
        JobState state = JobState.values()[rs.getInt("job_state")];
        long due = rs.getLong("due_ms");
        long token = rs.getLong("lease_token");
        boolean leased = state == JobState.LEASED && !rs.wasNull();
        Instant dueAt = Instant.ofEpochMilli(due);
        return new JobInfo(rs.getLong("id"), state, Jdbc.text(rs.getString("payload")), rs.getInt("prio"),
                rs.getInt("attempts"), Instant.ofEpochMilli(rs.getLong("enqueued_ms")), leased ? null : dueAt,
                leased ? token : 0L, leased ? dueAt : null, rs.getString("last_error"),
                dialect.readKey(rs, "job_key"), dialect.readKey(rs, "unique_key"));
    }

    /**
     * @param state       a state or {@code null} for all
     * @param key         a key or {@code null} for all
     * @param newestFirst the order by id
     * @param after       the id to continue after, or 0
     * @param limit       the page size
     * @return one page of jobs
     */
    public SqlOp<List<JobInfo>> jobs(JobState state, String key, boolean newestFirst, long after, int limit) {
        String shape = (state == null ? "ALL" : state.name()) + (key == null ? "" : "/key") + (newestFirst ? "/desc"
                : "/asc") + (after > 0 ? "/after" : "");
        Sql sql = jobPages.computeIfAbsent(shape, s -> jobPage(state, key != null, newestFirst, after > 0));
        return SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).limit("n", limit);
                if (key != null) {
                    b.set("key", key);
                }
                if (after > 0) {
                    b.set("after", after);
                }
                b.done();
                List<JobInfo> jobs = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && jobs.size() < limit) {
                        jobs.add(jobInfo(rs));
                    }
                }
                return jobs;
            }
        });
    }

    /**
     * @param state       a state or {@code null}
     * @param keyed       whether the query names a key ({@code :key})
     * @param newestFirst the order
     * @param after       whether it continues after a cursor ({@code :after})
     * @return the query of one page, limited by {@code :n}
     */
    private Sql jobPage(JobState state, boolean keyed, boolean newestFirst, boolean after) {
        List<String> where = new ArrayList<>();
        String live = "state = " + WorkTables.LIVE;
        if (state != null) {
            where.add(switch (state) {
                case READY -> JobRules.claimable(now);
                case SCHEDULED -> live + " AND due_ms > " + now + " AND lease_token IS NULL";
                case LEASED -> live + " AND due_ms > " + now + " AND lease_token IS NOT NULL";
                case DEAD -> "state = " + WorkTables.DEAD;
            });
        }
        if (keyed) {
            where.add("job_key = :key");
        }
        if (after) {
            where.add(newestFirst ? "id < :after" : "id > :after");
        }
        return Sql.of("SELECT " + INFO_COLUMNS + ", " + jobState + " AS job_state FROM " + t.jobs()
                + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)) + " ORDER BY id"
                + (newestFirst ? " DESC" : "") + dialect.limit("n"));
    }

    /**
     * One conditional {@code DELETE} of the job if it is live and not under a lease that has not ended: a claim that
     * leased it first makes the delete match nothing (the database re-checks the condition on the latest row after a
     * row lock), and a claim after the delete finds no job. Where the delete matched nothing, a read of the job tells
     * why; if that read finds the job ready or scheduled (its lease ended in between), the delete runs again.
     *
     * @param id the job
     * @return what became of it
     */
    public SqlOp<CancelOutcome> cancel(long id) {
        return SqlOp.transaction(c -> {
            for (int attempt = 0; attempt < CANCEL_ATTEMPTS; attempt++) {
                try (PreparedStatement ps = cancel.prepare(c)) {
                    dialect.bind(cancel, ps).set("id", id).done();
                    if (ps.executeUpdate() > 0) {
                        return CancelOutcome.CANCELLED;
                    }
                }
                Optional<JobInfo> job = readJob(c, id);
                if (job.isEmpty()) {
                    return CancelOutcome.NOT_FOUND;
                }
                if (job.get().state() == JobState.DEAD) {
                    return CancelOutcome.DEAD;
                }
                if (job.get().state() == JobState.LEASED) {
                    return CancelOutcome.LEASED;
                }
            }
            return CancelOutcome.LEASED; // leased again each time between the delete and the read
        });
    }
}
