package dev.rowqueue.h2;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.StandardWorkStore;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The work queue on H2. H2's planner walks an index in order only for a query without {@code FOR UPDATE}, and for a
 * rotation range it prefers the claim index over the primary key; either way a claim would sort the whole backlog.
 * So candidates are found in two steps: an unlocked, index-ordered window of ids (claim order through the claim
 * index; id order through the primary key for rotations), then the window's rows are locked one at a time in that
 * order with {@code FOR UPDATE SKIP LOCKED} (a primary-key lookup each) until the batch is full. One statement for
 * the whole window would lock every claimable row of it: H2 locks the rows a {@code FOR UPDATE} query reads before
 * it sorts and cuts them to {@code FETCH FIRST n}, so one consumer's claim of one job held a whole window and the
 * others skipped it, widened their windows and locked still more, so throughput fell as consumers were added
 * (docs/benchmarks.md, first round). A window whose rows are all taken by other consumers is widened, until one
 * is not full (it held every claimable job), so a claim comes back empty only when nothing was left for it. The chosen
 * jobs are leased and read back in one statement, {@code SELECT ... FROM FINAL TABLE (UPDATE ...)}.
 */
final class H2WorkStore extends StandardWorkStore {

    private static final int MIN_WINDOW = 32;

    private final Sql claimWindow;
    private final Sql idWindow;
    private final Sql lockOne;
    private final java.util.Map<dev.rowqueue.spi.ClaimRule, Sql> keyedWindows =
            new java.util.concurrent.ConcurrentHashMap<>();

    H2WorkStore(Dialect dialect, WorkTables tables) {
        super(dialect, tables);
        claimWindow = Sql.of("SELECT id FROM " + t.jobs() + " WHERE state = " + WorkTables.LIVE + " AND due_ms <= " + now
                + " ORDER BY state, prio DESC, due_ms, id FETCH FIRST :k ROWS ONLY");
        idWindow = Sql.of("SELECT id FROM " + t.jobs() + " WHERE id > :from AND id <= :to ORDER BY id FETCH FIRST :k ROWS ONLY");
        lockOne = Sql.of("SELECT id FROM " + t.jobs() + " WHERE id = :id AND state = " + WorkTables.LIVE + " AND due_ms <= "
                + now + " FOR UPDATE SKIP LOCKED");
    }

    /**
     * Candidates under a claim rule, as claims find theirs: an unlocked window of the rule's query (which takes at most
     * one job per key under a per-key limit), then its rows locked one at a time, widening the window while every row
     * of a full one was taken by other consumers.
     */
    @Override
    protected List<Long> keyedCandidates(Connection c, dev.rowqueue.spi.ClaimRule rule, int n) throws SQLException {
        Sql sql = keyedWindows.computeIfAbsent(rule, r -> Sql.of(keyedCandidatesSql(r, " FETCH FIRST :k ROWS ONLY")));
        int window = Math.max(4 * n, MIN_WINDOW);
        for (int round = 0; ; round++, window = (int) Math.min(4L * window, Integer.MAX_VALUE)) {
            List<Long> ids;
            try (PreparedStatement ps = sql.prepare(c)) {
                perKey(sql, dialect.bind(sql, ps).setInt("k", window), rule).done();
                ids = Jdbc.longs(ps);
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            List<Long> locked = lock(c, ids, n);
            if (!locked.isEmpty() || ids.size() < window || round + 1 >= EMPTY_CLAIM_ROUNDS) {
                return locked;
            }
        }
    }

    /**
     * Ordered by {@code state} first, as the claim window is: H2 walks the claim index {@code (state, prio DESC,
     * due_ms, id)} or the fair index {@code (state, key_seq, prio DESC, id)} in order only when the ORDER BY names
     * every leading column; otherwise it sorts every due job.
     */
    @Override
    protected String keyedOrder(dev.rowqueue.spi.ClaimRule rule) {
        return " ORDER BY j.state," + super.keyedOrder(rule).substring(" ORDER BY".length());
    }

    @Override
    protected List<Long> candidates(Connection c, Candidates kind, int n, long last) throws SQLException {
        return kind == Candidates.CLAIM ? claimCandidates(c, n) : rotationCandidates(c, kind, n, last);
    }

    private List<Long> claimCandidates(Connection c, int n) throws SQLException {
        int window = Math.max(4 * n, MIN_WINDOW);
        for (int round = 0; ; round++, window = (int) Math.min(4L * window, Integer.MAX_VALUE)) {
            List<Long> ids;
            try (PreparedStatement ps = claimWindow.prepare(c)) {
                dialect.bind(claimWindow, ps).setInt("k", window).done();
                ids = Jdbc.longs(ps);
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            List<Long> locked = lock(c, ids, n);
            if (!locked.isEmpty() || ids.size() < window || round + 1 >= EMPTY_CLAIM_ROUNDS) {
                return locked; // a window that was not full held every claimable job
            }
        }
    }

    private List<Long> rotationCandidates(Connection c, Candidates kind, int n, long last) throws SQLException {
        long from = kind == Candidates.AFTER ? last : Long.MIN_VALUE;
        long to = kind == Candidates.AFTER ? Long.MAX_VALUE : last;
        int window = Math.max(4 * n, MIN_WINDOW);
        List<Long> result = new ArrayList<>();
        while (result.size() < n) {
            List<Long> ids;
            try (PreparedStatement ps = idWindow.prepare(c)) {
                dialect.bind(idWindow, ps).set("from", from).set("to", to).setInt("k", window).done();
                ids = Jdbc.longs(ps);
            }
            if (ids.isEmpty()) {
                break;
            }
            result.addAll(lock(c, ids, n - result.size()));
            if (ids.size() < window) {
                break;
            }
            from = ids.get(ids.size() - 1);
        }
        return result;
    }

    /**
     * Locks up to {@code n} of {@code ids} that are still claimable, in the order given, skipping rows other consumers
     * hold: one primary-key lookup per row, so no row beyond the {@code n} taken stays locked.
     */
    private List<Long> lock(Connection c, List<Long> ids, int n) throws SQLException {
        List<Long> locked = new ArrayList<>(n);
        try (PreparedStatement ps = lockOne.prepare(c)) {
            for (Long id : ids) {
                dialect.bind(lockOne, ps).set("id", id).done();
                if (Jdbc.firstLong(ps).isPresent()) {
                    locked.add(id);
                    if (locked.size() == n) {
                        break;
                    }
                }
            }
        }
        return locked;
    }

    @Override
    protected List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        Sql lease = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM FINAL TABLE (UPDATE " + t.jobs()
                + " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END, lease_token = :token,"
                + " due_ms = " + now + " + :lease WHERE id IN (" + Jdbc.parameterList(ids.size(), "id")
                + ") AND state = " + WorkTables.LIVE + " AND due_ms <= " + now + ")");
        try (PreparedStatement ps = lease.prepare(c)) {
            Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
            return inOrder(Jdbc.jobs(ps, dialect), ids);
        }
    }
}
