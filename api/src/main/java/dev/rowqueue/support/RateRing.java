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
import java.util.concurrent.ConcurrentHashMap;

/**
 * A work queue's rate limit ({@link ClaimRule#rateLimited()}), kept in its cursors table: the row
 * {@link WorkTables#RATE_HEAD} counts the jobs the limit has let start, ever ({@code last_id}), and the rows
 * {@code rowqueue.rate.<i>}, for {@code i} below the limit, keep the lease start of the job numbered {@code i} modulo
 * the limit: a ring of the last {@code limit} starts.
 *
 * <p>A rate-limited claim locks the head row first (an {@code UPDATE} of it, so that a multi-primary cluster, which
 * orders writes and not row locks, orders it too), reads the ring rows its next jobs would take and the database's
 * clock in one statement, and may start as many jobs as those rows hold starts at least a window old (or none yet),
 * taken in ring order. After the claim it writes each leased job's start into its row and moves the head, in the same
 * transaction. So a job may start only once the job {@code limit} starts before it began a whole window earlier: no
 * window of that length ever holds more than {@code limit} starts. A start is the lease's begin as the claim wrote it
 * ({@link Job#leaseUntil()} less the lease), which is no earlier than the clock the claim read, so the bound holds for
 * the starts as the database recorded them.
 */
final class RateRing {

    private final Dialect dialect;
    private final WorkTables t;
    private final Rotation rotation;
    private final Map<Integer, Sql> reads = new ConcurrentHashMap<>();
    private final Sql slotMove;
    private final Sql slotInsert;
    private final Sql headMove;

    /**
     * @param dialect  the dialect
     * @param t        the queue's tables
     * @param rotation the queue's cursor rows
     */
    RateRing(Dialect dialect, WorkTables t, Rotation rotation) {
        this.dialect = dialect;
        this.t = t;
        this.rotation = rotation;
        slotMove = Sql.of("UPDATE " + t.cursors() + " SET last_id = :start WHERE cursor_name = :slot");
        slotInsert = Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:slot, :start)");
        headMove = Sql.of("UPDATE " + t.cursors() + " SET last_id = :started WHERE cursor_name = :head");
    }

    /**
     * What a claim may start: how many jobs, and the ring rows they take.
     *
     * @param head    the jobs started before, ever (the head row's count)
     * @param allowed how many jobs may start now
     * @param slots   the ring rows of the next jobs, in order (at least {@code allowed})
     */
    record Window(long head, int allowed, List<String> slots) {
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
                + " AS now_ms FROM " + t.cursors() + " WHERE cursor_name IN (:head, " + Jdbc.parameterList(n, "s")
                + ")"));
        Map<String, Long> starts = new HashMap<>();
        long now = Long.MIN_VALUE;
        try (PreparedStatement ps = read.prepare(c)) {
            Sql.Binder b = dialect.bind(read, ps).set("head", WorkTables.RATE_HEAD);
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
        if (now == Long.MIN_VALUE) {
            throw new SQLException("the rate row " + WorkTables.RATE_HEAD + " of " + t.cursors() + " was not found");
        }
        int allowed = 0;
        while (allowed < wanted) {
            Long start = starts.get(slots.get(allowed));
            if (start != null && start > now - rule.rateWindowMs()) {
                break; // that job began less than a window ago: the ones after it too
            }
            allowed++;
        }
        return new Window(head, allowed, slots);
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
        for (int i = 0; i < started.size(); i++) {
            long start = started.get(i).leaseUntil().toEpochMilli() - leaseMs;
            String slot = window.slots().get(i);
            int moved;
            try (PreparedStatement ps = slotMove.prepare(c)) {
                dialect.bind(slotMove, ps).set("start", start).set("slot", slot).done();
                moved = ps.executeUpdate();
            }
            if (moved == 0) { // first use of the row: no racer, the head row is held
                try (PreparedStatement ps = slotInsert.prepare(c)) {
                    dialect.bind(slotInsert, ps).set("slot", slot).set("start", start).done();
                    ps.executeUpdate();
                }
            }
        }
        if (!started.isEmpty()) {
            try (PreparedStatement ps = headMove.prepare(c)) {
                dialect.bind(headMove, ps).set("started", window.head() + started.size())
                        .set("head", WorkTables.RATE_HEAD).done();
                ps.executeUpdate();
            }
        }
    }
}
