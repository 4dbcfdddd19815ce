package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A work queue's rate limit ({@link ClaimRule#rateLimited()}), kept in its cursors table: the row
 * {@link WorkTables#RATE_HEAD} counts the jobs the limit has let start, ever ({@code last_id}), and the rows
 * {@code rowqueue.rate.<i>}, for {@code i} below the limit, keep the lease start of the job numbered {@code i} modulo
 * the limit: a ring of the last {@code limit} starts.
 *
 * <p>A rate-limited claim locks the head row first (an {@code UPDATE} of it, so that a multi-primary cluster, which
 * orders writes and not row locks, orders it too) and reads it, reads the ring rows its next jobs would take and the
 * database's clock in one statement, and may start as many jobs as those rows hold starts at least a window old (or
 * none yet), taken in ring order. After the claim one {@code UPDATE} writes the leased jobs' starts into their rows
 * and moves the head, in the same transaction; a ring row the read did not find is inserted (the ring's first lap:
 * only the head row's holder writes ring rows, so the read under its lock knows which exist). So a job may start only once the job {@code limit} starts before it began a whole window earlier: no
 * window of that length ever holds more than {@code limit} starts. A start is the lease's begin as the claim wrote it
 * ({@link Job#leaseUntil()} less the lease), which is no earlier than the clock the claim read, so the bound holds for
 * the starts as the database recorded them.
 */
final class RateRing {

    private final Dialect dialect;
    private final WorkTables t;
    private final Rotation rotation;
    private final Map<Integer, Sql> reads = new ConcurrentHashMap<>();
    private final Map<Integer, Sql> moves = new ConcurrentHashMap<>();
    private final Sql slotInsert;

    /**
     * @param dialect  the dialect
     * @param t        the queue's tables
     * @param rotation the queue's cursor rows
     */
    RateRing(Dialect dialect, WorkTables t, Rotation rotation) {
        this.dialect = dialect;
        this.t = t;
        this.rotation = rotation;
        slotInsert = Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:slot, :start)");
    }

    /**
     * What a claim may start: how many jobs, and the ring rows they take.
     *
     * @param head    the jobs started before, ever (the head row's count)
     * @param allowed how many jobs may start now
     * @param slots   the ring rows of the next jobs, in order (at least {@code allowed})
     * @param found   those of {@code slots} that exist
     */
    record Window(long head, int allowed, List<String> slots, Set<String> found) {
    }

    /**
     * Locks the head row (creating it at 0 if missing) and reads what a claim of up to {@code max} jobs may start.
     *
     * @param c    a connection in a transaction
     * @param rule a rate-limited rule
     * @param max  the most jobs the claim wants
     * @return the window; {@link Window#allowed()} is 0 when every job of the last window's {@code limit} began
     *         less than a window ago
     * @throws SQLException from the driver
     */
    Window open(Connection c, ClaimRule rule, int max) throws SQLException {
        long head = rotation.lockCursor(c, WorkTables.RATE_HEAD);
        int wanted = Math.min(max, rule.rateLimit());
        List<String> slots = new ArrayList<>(wanted);
        for (int i = 0; i < wanted; i++) {
            slots.add(WorkTables.RATE_HEAD + "." + Math.floorMod(head + i, (long) rule.rateLimit()));
        }
        Sql read = reads.computeIfAbsent(wanted, n -> Sql.of("SELECT cursor_name, last_id, " + dialect.nowMillis()
                + " AS now_ms FROM " + t.cursors() + " WHERE cursor_name IN (" + Jdbc.parameterList(n, "s") + ")"));
        Map<String, Long> starts = new HashMap<>();
        long now = Long.MIN_VALUE; // read with the rows, and needed only if there is one
        try (PreparedStatement ps = read.prepare(c)) {
            Sql.Binder b = dialect.bind(read, ps);
            for (int i = 0; i < wanted; i++) {
                b.set("s" + i, slots.get(i));
            }
            b.done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    starts.put(rs.getString(1), rs.getLong(2));
                    now = rs.getLong(3);
                }
            }
        }
        int allowed = 0;
        while (allowed < wanted) {
            Long start = starts.get(slots.get(allowed));
            if (start != null && start > now - rule.rateWindowMs()) {
                break; // that job began less than a window ago: the ones after it too
            }
            allowed++;
        }
        return new Window(head, allowed, slots, starts.keySet());
    }

    /**
     * Writes the starts of the jobs a claim leased into their ring rows and moves the head past them.
     *
     * @param c       the claim's connection, in its transaction
     * @param window  what {@link #open} allowed
     * @param started the jobs leased (at most {@link Window#allowed()})
     * @param leaseMs their lease
     * @throws SQLException from the driver
     */
    void record(Connection c, Window window, List<Job> started, long leaseMs) throws SQLException {
        if (started.size() > window.allowed()) {
            throw new IllegalStateException("a rate-limited claim leased " + started.size() + " jobs of "
                    + window.allowed() + " allowed");
        }
        if (started.isEmpty()) {
            return;
        }
        List<Integer> moved = new ArrayList<>(); // the jobs whose ring row exists: moved by one UPDATE, with the head
        for (int i = 0; i < started.size(); i++) {
            if (window.found().contains(window.slots().get(i))) {
                moved.add(i);
            } else { // the ring's first lap: no racer, the head row is held
                try (PreparedStatement ps = slotInsert.prepare(c)) {
                    dialect.bind(slotInsert, ps).set("slot", window.slots().get(i))
                            .set("start", start(started.get(i), leaseMs)).done();
                    ps.executeUpdate();
                }
            }
        }
        Sql move = moves.computeIfAbsent(moved.size(), this::move);
        try (PreparedStatement ps = move.prepare(c)) {
            Sql.Binder b = dialect.bind(move, ps).set("head", WorkTables.RATE_HEAD)
                    .set("started", window.head() + started.size());
            for (int r = 0; r < moved.size(); r++) {
                int i = moved.get(r);
                b.set("s" + r, window.slots().get(i)).set("v" + r, start(started.get(i), leaseMs));
            }
            b.done();
            ps.executeUpdate();
        }
    }

    /** @return the lease start of a job a claim leased */
    private static long start(Job job, long leaseMs) {
        return job.leaseUntil().toEpochMilli() - leaseMs;
    }

    /**
     * @param rows the ring rows it writes
     * @return the {@code UPDATE} that moves the head to {@code :started} and writes ring row {@code :s<r>}'s start
     *         {@code :v<r>}; {@code ELSE last_id} gives the {@code CASE} a typed branch, for databases that type a
     *         parameter from the other branches
     */
    private Sql move(int rows) {
        StringBuilder cases = new StringBuilder(" WHEN :head THEN :started");
        for (int r = 0; r < rows; r++) {
            cases.append(" WHEN :s").append(r).append(" THEN :v").append(r);
        }
        return Sql.of("UPDATE " + t.cursors() + " SET last_id = CASE cursor_name" + cases + " ELSE last_id END"
                + " WHERE cursor_name IN (:head" + (rows == 0 ? "" : ", " + Jdbc.parameterList(rows, "s")) + ")");
    }
}
