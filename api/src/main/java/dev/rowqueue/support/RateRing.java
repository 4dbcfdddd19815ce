package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.RateWindow;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * none yet), taken in ring order. After the claim one {@code UPDATE} writes the leased jobs' starts into their rows and
 * moves the head, in the same transaction; a ring row the read did not find is inserted (the ring's first lap: only the
 * head row's holder writes ring rows, so the read under its lock knows which exist). So a job may start only once the
 * job {@code limit} starts before it began a whole window earlier: no window of that length ever holds more than
 * {@code limit} starts. A start is the lease's begin as the claim wrote it ({@link Job#leaseUntil()} less the lease),
 * which is no earlier than the clock the claim read, so the bound holds for the starts as the database recorded them.
 *
 * <p>Two more rows, {@code rowqueue.rate.limit} and {@code rowqueue.rate.window} (milliseconds), hold the limit of the
 * claims that last started jobs, so that a reader without the options ({@link #state}: the console, the command line)
 * knows the window: inserted by the first claim that starts a job, and written by the same {@code UPDATE} as the
 * head only when a claim's limit differs from theirs.
 */
final class RateRing {

    /** The row holding the limit of the claims that last started jobs ({@link #state}). */
    static final String LIMIT_ROW = WorkTables.RATE_HEAD + ".limit";
    /** The row holding their window, in milliseconds. */
    static final String WINDOW_ROW = WorkTables.RATE_HEAD + ".window";

    private final Dialect dialect;
    private final WorkTables t;
    private final Rotation rotation;
    private final Map<Integer, Sql> reads = new ConcurrentHashMap<>();
    private final Map<String, Sql> moves = new ConcurrentHashMap<>();
    private final Sql slotInsert;
    private final Sql settingsRead;
    private final Sql startsRead;

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
        settingsRead = Sql.of("SELECT cursor_name, last_id, " + dialect.nowMillis() + " AS now_ms FROM " + t.cursors()
                + " WHERE cursor_name IN (:head, :limitRow, :windowRow)");
        startsRead = Sql.of("SELECT COUNT(CASE WHEN last_id > :since THEN 1 END), MAX(last_id) FROM " + t.cursors()
                + " WHERE cursor_name LIKE :ring AND cursor_name NOT IN (:limitRow, :windowRow)");
    }

    /**
     * What a claim may start: how many jobs, and the ring rows they take.
     *
     * @param head     the jobs started before, ever (the head row's count)
     * @param allowed  how many jobs may start now
     * @param slots    the ring rows of the next jobs, in order (at least {@code allowed})
     * @param found    those of {@code slots} that exist
     * @param rule     the claim's rule
     * @param settings the limit and window rows as read ({@link #LIMIT_ROW}, {@link #WINDOW_ROW}), those that exist
     */
    record Window(long head, int allowed, List<String> slots, Set<String> found, ClaimRule rule,
                  Map<String, Long> settings) {
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
        // the limit's settings rows are read with the ring rows: written by record() only when they change
        Sql read = reads.computeIfAbsent(wanted, n -> Sql.of("SELECT cursor_name, last_id, " + dialect.nowMillis()
                + " AS now_ms FROM " + t.cursors() + " WHERE cursor_name IN (" + Jdbc.parameterList(n, "s")
                + ", :limitRow, :windowRow)"));
        Map<String, Long> starts = new HashMap<>();
        long now = Long.MIN_VALUE; // read with the rows, and needed only if there is one
        try (PreparedStatement ps = read.prepare(c)) {
            Sql.Binder b = dialect.bind(read, ps).set("limitRow", LIMIT_ROW).set("windowRow", WINDOW_ROW);
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
        Map<String, Long> settings = new HashMap<>();
        for (String row : List.of(LIMIT_ROW, WINDOW_ROW)) {
            Long value = starts.remove(row);
            if (value != null) {
                settings.put(row, value);
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
        return new Window(head, allowed, slots, starts.keySet(), rule, settings);
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
                insert(c, window.slots().get(i), start(started.get(i), leaseMs));
            }
        }
        // the settings rows, so that readers know the limit (state()): inserted once, then written by the same
        // UPDATE only when a claim's limit differs from what they hold
        Map<String, Long> settings = Map.of(LIMIT_ROW, (long) window.rule().rateLimit(),
                WINDOW_ROW, window.rule().rateWindowMs());
        List<String> changed = new ArrayList<>();
        for (String row : List.of(LIMIT_ROW, WINDOW_ROW)) {
            Long held = window.settings().get(row);
            if (held == null) {
                insert(c, row, settings.get(row));
            } else if (held.longValue() != settings.get(row)) {
                changed.add(row);
            }
        }
        Sql move = moves.computeIfAbsent(moved.size() + "/" + changed.size(),
                k -> move(moved.size(), changed.size()));
        try (PreparedStatement ps = move.prepare(c)) {
            Sql.Binder b = dialect.bind(move, ps).set("head", WorkTables.RATE_HEAD)
                    .set("started", window.head() + started.size());
            for (int r = 0; r < moved.size(); r++) {
                int i = moved.get(r);
                b.set("s" + r, window.slots().get(i)).set("v" + r, start(started.get(i), leaseMs));
            }
            for (int r = 0; r < changed.size(); r++) {
                b.set("c" + r, changed.get(r)).set("w" + r, settings.get(changed.get(r)));
            }
            b.done();
            ps.executeUpdate();
        }
    }

    private void insert(Connection c, String row, long value) throws SQLException {
        try (PreparedStatement ps = slotInsert.prepare(c)) {
            dialect.bind(slotInsert, ps).set("slot", row).set("start", value).done();
            ps.executeUpdate();
        }
    }

    /**
     * The window as the database holds it: the settings rows the last claims that started jobs wrote, and the ring's
     * starts within the window by the database's clock. Reads only, no lock.
     *
     * @param c a connection
     * @return the window, or empty if no claim of this version started a job under a rate limit
     * @throws SQLException from the driver
     */
    Optional<RateWindow> state(Connection c) throws SQLException {
        Map<String, Long> rows = new HashMap<>();
        long now = 0;
        try (PreparedStatement ps = settingsRead.prepare(c)) {
            dialect.bind(settingsRead, ps).set("head", WorkTables.RATE_HEAD).set("limitRow", LIMIT_ROW)
                    .set("windowRow", WINDOW_ROW).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getLong(2));
                    now = rs.getLong(3);
                }
            }
        }
        Long limit = rows.get(LIMIT_ROW);
        Long windowMs = rows.get(WINDOW_ROW);
        Long total = rows.get(WorkTables.RATE_HEAD);
        if (limit == null || windowMs == null || total == null) {
            return Optional.empty();
        }
        try (PreparedStatement ps = startsRead.prepare(c)) {
            dialect.bind(startsRead, ps).set("since", now - windowMs).set("ring", WorkTables.RATE_HEAD + ".%")
                    .set("limitRow", LIMIT_ROW).set("windowRow", WINDOW_ROW).done();
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long last = rs.getLong(2);
                if (rs.wasNull()) {
                    return Optional.empty();
                }
                // ring rows above a lowered limit keep their old starts: at most the limit counts
                int started = (int) Math.min(rs.getLong(1), limit);
                return Optional.of(new RateWindow(limit.intValue(), Duration.ofMillis(windowMs), started,
                        Math.max(total, started), Instant.ofEpochMilli(last)));
            }
        }
    }

    /** @return the lease start of a job a claim leased */
    private static long start(Job job, long leaseMs) {
        return job.leaseUntil().toEpochMilli() - leaseMs;
    }

    /**
     * @param rows     the ring rows it writes
     * @param settings the settings rows it writes
     * @return the {@code UPDATE} that moves the head to {@code :started}, writes ring row {@code :s<r>}'s start
     *         {@code :v<r>} and settings row {@code :c<r>}'s value {@code :w<r>}; {@code ELSE last_id} gives the
     *         {@code CASE} a typed branch, for databases that type a parameter from the other branches
     */
    private Sql move(int rows, int settings) {
        StringBuilder cases = new StringBuilder(" WHEN :head THEN :started");
        for (int r = 0; r < rows; r++) {
            cases.append(" WHEN :s").append(r).append(" THEN :v").append(r);
        }
        for (int r = 0; r < settings; r++) {
            cases.append(" WHEN :c").append(r).append(" THEN :w").append(r);
        }
        return Sql.of("UPDATE " + t.cursors() + " SET last_id = CASE cursor_name" + cases + " ELSE last_id END"
                + " WHERE cursor_name IN (:head" + (rows == 0 ? "" : ", " + Jdbc.parameterList(rows, "s"))
                + (settings == 0 ? "" : ", " + Jdbc.parameterList(settings, "c")) + ")");
    }
}
