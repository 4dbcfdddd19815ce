package dev.rowqueue.mysql;

import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The safe ring on MySQL and MariaDB, two statements per push in one transaction, whatever the number of payloads:
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
 */
final class MySqlRingStore extends StandardRingStore {

    /** Rows per slot-write statement, so that a large batch stays far below {@code max_allowed_packet}. */
    private static final int MAX_ROWS = 100;
    /** Payload characters per slot-write statement (at most 3 bytes each in UTF-8, about 3 MB). */
    private static final long MAX_CHARS = 1_000_000;

    private final MySqlDialect mysql;
    private final Sql bump;
    private final Sql lastSeq;

    MySqlRingStore(MySqlDialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        this.mysql = dialect;
        bump = Sql.of("INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (:grp, LAST_INSERT_ID(:n))"
                + " ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + :n)");
        lastSeq = Sql.of("SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp");
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        SqlOp<long[]> transaction = super.push(group, payloads);
        if (!mysql.compoundStatements() || chunks(payloads).size() > 1) {
            return transaction;
        }
        return Compound.orTransaction(c -> compoundPush(c, group, payloads), transaction);
    }

    /** The head bump and the slot write in one compound statement, in a READ COMMITTED transaction of its own. */
    private long[] compoundPush(Connection c, String group, List<String> payloads) throws SQLException {
        int n = payloads.size();
        int from = firstWritten(n);
        Sql sql = compoundPush(n - from);
        long[] last = {0};
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).set("grp", group).set("n", n).setInt("cap", capacity);
            for (int i = from; i < n; i++) {
                b.set("back" + (i - from), n - 1 - i).set("payload" + (i - from), payloads.get(i));
            }
            b.done();
            Compound.execute(ps, rs -> last[0] = rs.getLong(1));
        } catch (SQLException e) {
            if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw exhausted(c, group, n);
            }
            throw e;
        }
        return sequence(last[0] - n + 1, n);
    }

    /**
     * @param rows the slots written
     * @return the compound statement of a push writing {@code rows} slots; row {@code r} has the sequence number
     *         {@code last - :back<r>}
     */
    Sql compoundPush(int rows) {
        String now = dialect.nowMillis();
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
    protected long bumpHead(Connection c, String group, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(bump.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
            dialect.bind(bump, ps).set("grp", group).set("n", n).done();
            ps.executeUpdate();
            return LastInsertId.read(c, ps);
        } catch (SQLException e) {
            if (dialect.classify(e) != SqlErrorKind.NUMERIC_OVERFLOW) {
                throw e;
            }
        }
        throw exhausted(c, group, n);
    }

    /** The bump failed with error 1690: the group's numbers would pass {@link Long#MAX_VALUE}. */
    private RuntimeException exhausted(Connection c, String group, int n) throws SQLException {
        long last;
        try (PreparedStatement ps = lastSeq.prepare(c)) {
            dialect.bind(lastSeq, ps).set("grp", group).done();
            last = Jdbc.firstLong(ps).orElse(Long.MAX_VALUE);
        }
        return exhausted(group, last, n);
    }

    @Override
    protected void writeSlots(Connection c, String group, long firstSeq, List<String> payloads) throws SQLException {
        for (List<Integer> chunk : chunks(payloads)) {
            write(c, group, firstSeq, payloads, chunk);
        }
    }

    /**
     * @param payloads a push
     * @return the indexes of the payloads it writes (the last {@code capacity}), in statements of at most
     *         {@value #MAX_ROWS} rows and {@value #MAX_CHARS} characters
     */
    private List<List<Integer>> chunks(List<String> payloads) {
        List<List<Integer>> chunks = new ArrayList<>();
        List<Integer> chunk = new ArrayList<>();
        long chars = 0;
        for (int i = firstWritten(payloads.size()); i < payloads.size(); i++) {
            if (!chunk.isEmpty() && (chunk.size() == MAX_ROWS || chars + payloads.get(i).length() > MAX_CHARS)) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                chars = 0;
            }
            chunk.add(i);
            chars += payloads.get(i).length();
        }
        chunks.add(chunk);
        return chunks;
    }

    private void write(Connection c, String group, long firstSeq, List<String> payloads, List<Integer> rows)
            throws SQLException {
        Sql sql = upsert(rows.size());
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).set("grp", group);
            for (int r = 0; r < rows.size(); r++) {
                int i = rows.get(r);
                long seq = firstSeq + i;
                b.setInt("slot" + r, slot(seq)).set("seq" + r, seq).set("payload" + r, payloads.get(i));
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
        String now = dialect.nowMillis();
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
