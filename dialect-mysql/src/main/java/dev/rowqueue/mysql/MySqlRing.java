package dev.rowqueue.mysql;

import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.RingStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The safe ring's push on MySQL and MariaDB, two statements per push in one transaction, whatever the number of
 * payloads:
 *
 * <ol>
 *   <li>{@code INSERT INTO <ring>_head (grp, last_seq) VALUES (:grp, LAST_INSERT_ID(:n)) ON DUPLICATE KEY UPDATE
 *       last_seq = LAST_INSERT_ID(last_seq + :n)}: creates or bumps the group's head row, holding its row lock (the
 *       lock that serializes the group's producers) until commit. The new last sequence number comes back as the
 *       driver's generated key, in the same round trip. Passing {@code Long.MAX_VALUE} fails inside the server with
 *       error 1690 and writes nothing: that is the exhaustion guard.</li>
 *   <li>One multi-row {@code INSERT INTO <ring> ... VALUES (...), (...) ON DUPLICATE KEY UPDATE seq = ...,
 *       payload = ..., pushed_ms = ...} writes every slot {@code seq mod capacity}, inserting on the first lap and
 *       overwriting the oldest entry after. The new row's values are referred to as {@code VALUES(col)}, or through
 *       the row alias on MySQL 8.0.19+, where {@code VALUES()} is deprecated.</li>
 * </ol>
 *
 * <p>On MariaDB 10.1.1+ both statements, with their transaction, go to the server as one compound statement
 * ({@link Compound}): one round trip per push instead of about seven (the two statements, {@code COMMIT}, and the
 * core's auto-commit and isolation switches), for a push that fits one slot-write statement, outside a caller's
 * transaction. Elsewhere one round trip would need a multi-statement text, which needs the driver's
 * {@code allowMultiQueries} for the whole pool (a wider SQL-injection surface for the application's own queries);
 * two plain statements need nothing from the user.
 *
 * <p>On MariaDB 10.5+ the ring's DDL adds a {@code BEFORE INSERT} trigger ({@link #triggerDdl}) that does the head
 * bump for every inserted row whose {@code seq} is the placeholder {@value #PLACEHOLDER}, then sets the row's
 * {@code seq} and {@code slot}. A push of at most the capacity is then a single statement, {@code INSERT ... VALUES
 * (:grp, 0, -1, :payload, now) ... ON DUPLICATE KEY UPDATE ... RETURNING seq}: no compound block to parse, no
 * transaction statements, and the head bump happens under the statement's own atomicity (an error undoes both rows).
 * Rows inserted with a real number (the transaction path above, a migration copying a ring) pass the trigger
 * untouched. Rings created before the trigger existed get it the next time they are opened with schema creation on;
 * where it cannot be created (no {@code TRIGGER} privilege, or binary logging without {@code SUPER} or
 * {@code log_bin_trust_function_creators}), pushes stay on the compound statement, with a warning in the log. The
 * table's check {@code seq >= 0} makes a trigger push fail, writing nothing, if the trigger is dropped later; the
 * push then takes the compound statement.
 */
final class MySqlRing implements RingStatements.Bump, RingStatements.Slots, RingStatements.Push {
    private static final Logger log = LoggerFactory.getLogger(MySqlRing.class);

    /** The {@code seq} of a row whose number the push trigger assigns. */
    static final long PLACEHOLDER = -1;
    /** MariaDB's ER_CONSTRAINT_FAILED: the check {@code seq >= 0} failed, so the push trigger is gone. */
    private static final int CONSTRAINT_FAILED = 4025;

    private final MySqlDialect mysql;
    private final RingTables t;
    private final Sql bump;
    private final Sql lastSeq;
    private final Sql triggerExists;
    /** The trigger push of one payload, the common case, built once. */
    private final Sql triggerInsertOne;
    /** Whether the push trigger exists; {@code null} until the first push looks. */
    private volatile Boolean trigger;

    MySqlRing(MySqlDialect dialect, RingTables tables) {
        this.mysql = dialect;
        this.t = tables;
        bump = Sql.of("INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (:grp, LAST_INSERT_ID(:n))"
                + " ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + :n)");
        lastSeq = Sql.of("SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp");
        triggerExists = Sql.of("SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()"
                + " AND EVENT_OBJECT_TABLE = :entries AND TRIGGER_NAME = :name");
        triggerInsertOne = triggerInsert(1);
    }

    /**
     * @param dialect the dialect
     * @param tables  the ring's tables
     * @return the safe ring's statements: this bump, slot write and push, and on MariaDB 10.5+ the newest entries
     *         through the head row
     */
    static RingStatements statements(MySqlDialect dialect, RingTables tables) {
        MySqlRing ring = new MySqlRing(dialect, tables);
        return RingStatements.PORTABLE.withBump(ring).withSlots(ring).withPush(ring)
                .withNewestByHead(dialect.triggerPush() ? newestByHead(tables) : null);
    }

    /**
     * On MariaDB 10.5+, where safe rings have no {@code (grp, seq)} index (see {@link MySqlDialect#ddl()}): the
     * head row, joined as a constant table (a primary key lookup the optimizer does first), names the slots of the
     * last {@code :limit} numbers, one range of the primary key or two where they wrap around. Whole rings and the
     * oldest entries are read by the primary key and sorted.
     */
    private static Sql newestByHead(RingTables t) {
        String lo = "MOD(GREATEST(h.last_seq - :limit + 1, 1), :cap)";
        String hi = "MOD(h.last_seq, :cap)";
        return Sql.of("SELECT e." + Jdbc.ENTRY_COLUMNS.replace(", ", ", e.") + " FROM " + t.heads() + " h JOIN "
                + t.entries() + " e ON e.grp = h.grp WHERE h.grp = :grp AND e.seq > h.last_seq - :limit"
                + " AND ((" + lo + " <= " + hi + " AND e.slot BETWEEN " + lo + " AND " + hi + ") OR (" + lo + " > " + hi
                + " AND (e.slot >= " + lo + " OR e.slot <= " + hi + "))) ORDER BY e.seq DESC");
    }

    /**
     * The push trigger: for a row inserted with {@code seq} {@value #PLACEHOLDER}, bumps the group's head row by one
     * (creating it with 1; {@code LAST_INSERT_ID(expr)} hands the new number to the next line, and an overflow past
     * {@link Long#MAX_VALUE} fails the statement with error 1690), then gives the row that number and its slot.
     *
     * @param t        the ring's tables
     * @param capacity its capacity
     * @return {@code CREATE TRIGGER IF NOT EXISTS <ring>_push ...}: one statement whose body holds semicolons (a
     *         script for the {@code mysql} client needs a {@code DELIMITER} around it)
     */
    static String triggerDdl(RingTables t, int capacity) {
        return "CREATE TRIGGER IF NOT EXISTS " + triggerName(t) + " BEFORE INSERT ON " + t.entries()
                + " FOR EACH ROW IF NEW.seq = " + PLACEHOLDER + " THEN"
                + " INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (NEW.grp, LAST_INSERT_ID(1))"
                + " ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + 1);"
                + " SET NEW.seq = LAST_INSERT_ID(), NEW.slot = MOD(LAST_INSERT_ID(), " + capacity + ");"
                + " END IF";
    }

    /**
     * @param t a ring's tables
     * @return the name of its push trigger
     */
    static String triggerName(RingTables t) {
        return t.entries() + "_push";
    }

    /** The steps (the bump, the slot write), one compound statement, or one trigger push: see the class comment. */
    @Override
    public SqlOp<long[]> push(RingStatements.Ring ring, String group, List<String> payloads,
                              SqlOp<long[]> steps) {
        if (!mysql.compoundStatements() || chunks(ring, payloads).size() > 1) {
            return steps;
        }
        SqlOp<long[]> compound = Compound.orTransaction(c -> compoundPush(c, ring, group, payloads), steps);
        if (!mysql.triggerPush() || ring.firstWritten(payloads.size()) > 0) {
            return compound;
        }
        return SqlOp.statement(c -> hasTrigger(c) ? triggerPush(c, ring, group, payloads, compound) : compound.run(c));
    }

    /** Looks the push trigger up once (a ring's tables are not expected to lose it; see {@link #triggerPush}). */
    private boolean hasTrigger(Connection c) throws SQLException {
        Boolean known = trigger;
        if (known == null) {
            try (PreparedStatement ps = triggerExists.prepare(c)) {
                mysql.bind(triggerExists, ps).set("entries", t.entries()).set("name", triggerName(t)).done();
                known = Jdbc.firstLong(ps).orElse(0) > 0;
            }
            if (!known) {
                log.warn("ring {} has no push trigger {}: pushes use a compound statement, which costs the server"
                        + " more (creating the trigger, with the ring's schema, needs the TRIGGER privilege, and"
                        + " with binary logging SUPER or log_bin_trust_function_creators)", t.queue(), triggerName(t));
            }
            trigger = known;
        }
        return known;
    }

    /**
     * One statement: every payload inserted with the placeholder number, the trigger numbering them in order under
     * the head row's lock; {@code RETURNING} gives the numbers back.
     */
    private long[] triggerPush(Connection c, RingStatements.Ring ring, String group, List<String> payloads,
                               SqlOp<long[]> compound) throws SQLException {
        int n = payloads.size();
        Sql sql = n == 1 ? triggerInsertOne : triggerInsert(n);
        List<Long> returned = new ArrayList<>(n);
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = mysql.bind(sql, ps).set("grp", group);
            for (int r = 0; r < n; r++) {
                b.setInt("slot" + r, 0).set("seq" + r, PLACEHOLDER).set("payload" + r, payloads.get(r));
            }
            b.done();
            // execute(), not executeQuery(), which MySQL Connector/J refuses for a statement not starting with SELECT
            Compound.execute(ps, rs -> returned.add(rs.getLong(1)));
        } catch (SQLException e) {
            if (mysql.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw exhausted(c, ring, group, n);
            }
            if (e.getErrorCode() != CONSTRAINT_FAILED) {
                throw e;
            }
            log.warn("ring {}: its push trigger {} is gone (the statement failed its check and wrote nothing);"
                    + " pushes use a compound statement from now on", t.queue(), triggerName(t));
            trigger = false;
            return compound.run(c);
        }
        long[] seqs = returned.stream().mapToLong(Long::longValue).sorted().toArray();
        if (seqs.length != n || seqs[0] < 1 || seqs[n - 1] - seqs[0] != n - 1) {
            throw new IllegalStateException("ring " + t.queue() + ": a push of " + n + " payloads into group '"
                    + group + "' got the sequence numbers " + returned + " back; is its trigger "
                    + triggerName(t) + " rowqueue's?");
        }
        return seqs;
    }

    /**
     * @param rows the number of rows
     * @return the slot upsert of {@link #upsert}, returning each row's number
     */
    Sql triggerInsert(int rows) {
        return Sql.of(upsert(rows).text() + " RETURNING seq");
    }

    /** The head bump and the slot write in one compound statement, in a READ COMMITTED transaction of its own. */
    private long[] compoundPush(Connection c, RingStatements.Ring ring, String group, List<String> payloads)
            throws SQLException {
        int n = payloads.size();
        int from = ring.firstWritten(n);
        Sql sql = compoundPush(n - from);
        long[] last = {0};
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = mysql.bind(sql, ps).set("grp", group).set("n", n).setInt("cap", ring.capacity());
            for (int i = from; i < n; i++) {
                b.set("back" + (i - from), n - 1 - i).set("payload" + (i - from), payloads.get(i));
            }
            b.done();
            Compound.execute(ps, rs -> last[0] = rs.getLong(1));
        } catch (SQLException e) {
            if (mysql.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw exhausted(c, ring, group, n);
            }
            throw e;
        }
        return RingStatements.Ring.sequence(last[0] - n + 1, n);
    }

    /**
     * @param rows the slots written
     * @return the compound statement of a push writing {@code rows} slots; row {@code r} has the sequence number
     *         {@code last - :back<r>}
     */
    Sql compoundPush(int rows) {
        String now = mysql.nowMillis();
        StringBuilder sql = new StringBuilder("BEGIN NOT ATOMIC DECLARE v_last BIGINT;"
                + " DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;"
                + " SET TRANSACTION ISOLATION LEVEL READ COMMITTED; START TRANSACTION; ")
                .append(bump.text()).append("; SET v_last = LAST_INSERT_ID(); INSERT INTO ").append(t.entries())
                .append(" (grp, slot, seq, payload, pushed_ms) VALUES ");
        for (int r = 0; r < rows; r++) {
            sql.append(r == 0 ? "" : ", ").append("(:grp, MOD(v_last - :back").append(r).append(", :cap), v_last - :back")
                    .append(r).append(", :payload").append(r).append(", ").append(now).append(')');
        }
        sql.append(" ON DUPLICATE KEY UPDATE seq = VALUES(seq), payload = VALUES(payload), pushed_ms = VALUES(pushed_ms);"
                + " COMMIT; SELECT v_last; END");
        return Sql.of(sql.toString());
    }

    @Override
    public long bump(Connection c, RingStatements.Ring ring, String group, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(bump.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
            mysql.bind(bump, ps).set("grp", group).set("n", n).done();
            ps.executeUpdate();
            return LastInsertId.read(c, ps);
        } catch (SQLException e) {
            if (mysql.classify(e) != SqlErrorKind.NUMERIC_OVERFLOW) {
                throw e;
            }
        }
        throw exhausted(c, ring, group, n);
    }

    /** The bump failed with error 1690: the group's numbers would pass {@link Long#MAX_VALUE}. */
    private RuntimeException exhausted(Connection c, RingStatements.Ring ring, String group, int n)
            throws SQLException {
        long last;
        try (PreparedStatement ps = lastSeq.prepare(c)) {
            mysql.bind(lastSeq, ps).set("grp", group).done();
            last = Jdbc.firstLong(ps).orElse(Long.MAX_VALUE);
        }
        return ring.exhausted(group, last, n);
    }

    @Override
    public void write(Connection c, RingStatements.Ring ring, String group, long firstSeq, List<String> payloads)
            throws SQLException {
        for (List<Integer> chunk : chunks(ring, payloads)) {
            write(c, ring, group, firstSeq, payloads, chunk);
        }
    }

    /**
     * @param payloads a push
     * @return the indexes of the payloads it writes (the last {@code capacity}), in statements ({@link Chunks})
     */
    private static List<List<Integer>> chunks(RingStatements.Ring ring, List<String> payloads) {
        return Chunks.of(payloads, ring.firstWritten(payloads.size()));
    }

    private void write(Connection c, RingStatements.Ring ring, String group, long firstSeq, List<String> payloads,
                       List<Integer> rows) throws SQLException {
        Sql sql = upsert(rows.size());
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = mysql.bind(sql, ps).set("grp", group);
            for (int r = 0; r < rows.size(); r++) {
                int i = rows.get(r);
                long seq = firstSeq + i;
                b.setInt("slot" + r, ring.slot(seq)).set("seq" + r, seq).set("payload" + r, payloads.get(i));
            }
            b.done();
            ps.executeUpdate();
        }
    }

    /**
     * @param rows the number of rows
     * @return the multi-row slot upsert
     */
    Sql upsert(int rows) {
        String now = mysql.nowMillis();
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(t.entries())
                .append(" (grp, slot, seq, payload, pushed_ms) VALUES ");
        for (int r = 0; r < rows; r++) {
            sql.append(r == 0 ? "" : ", ").append("(:grp, :slot").append(r).append(", :seq").append(r)
                    .append(", :payload").append(r).append(", ").append(now).append(')');
        }
        sql.append(mysql.upsertRowAlias()).append(" ON DUPLICATE KEY UPDATE seq = ").append(mysql.upsertValue("seq"))
                .append(", payload = ").append(mysql.upsertValue("payload")).append(", pushed_ms = ")
                .append(mysql.upsertValue("pushed_ms"));
        return Sql.of(sql.toString());
    }
}
