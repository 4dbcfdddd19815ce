package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingStore;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.RingEntry;
import dev.rowqueue.SequenceExhaustedException;
import dev.rowqueue.support.RingStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The portable {@link dev.rowqueue.RingStrategy#SAFE SAFE} ring: in one READ COMMITTED transaction, bump the group's
 * head row with a plain {@code UPDATE} (which takes the row lock that serializes the group's producers), read the
 * new last sequence number, then write each slot {@code seq mod capacity} with {@code UPDATE}, or {@code INSERT}
 * the first time the slot is used. A missing head row is inserted under a savepoint; losing that race to another
 * producer just means updating the row it created. This is the "fourth method" of "How to implement a queue in SQL",
 * made safe by the head row.
 *
 * <p>A database's {@link RingStatements} replace steps with fewer round trips: the head row's bump, the slots'
 * writes, a push of one payload in one statement, newest-first reads through the head row, or the single-writer push.
 */
public class StandardRingStore implements RingStore {

    /** The dialect, for statements pieces and error classification. */
    protected final Dialect dialect;
    /** The ring's tables. */
    protected final RingTables t;
    /** The ring's capacity. */
    protected final int capacity;

    private final Sql headUpdate;
    private final Sql headSelect;
    private final Sql headInsert;
    private final Sql slotUpdate;
    private final Sql slotInsert;
    private final Sql newest;
    private final Sql newestLimited;
    private final Sql oldest;
    private final Sql oldestLimited;
    private final Sql count;
    private final Sql lockHead;
    private final Sql deleteGroup;
    private final Sql distinctGroups;
    private final RingStatements statements;

    /**
     * @param dialect  the dialect
     * @param tables   the ring's tables
     * @param capacity its capacity
     */
    public StandardRingStore(Dialect dialect, RingTables tables, int capacity) {
        this(dialect, tables, capacity, RingStatements.PORTABLE);
    }

    /**
     * @param dialect    the dialect
     * @param tables     the ring's tables
     * @param capacity   its capacity
     * @param statements the database's own statements, replacing the portable steps they name
     */
    public StandardRingStore(Dialect dialect, RingTables tables, int capacity, RingStatements statements) {
        this.dialect = dialect;
        this.t = tables;
        this.capacity = capacity;
        this.statements = statements;
        String now = dialect.nowMillis();
        headUpdate = Sql.of("UPDATE " + t.heads() + " SET last_seq = last_seq + :n WHERE grp = :grp AND last_seq <= :max");
        headSelect = Sql.of("SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp");
        headInsert = Sql.of("INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (:grp, :n)");
        slotUpdate = Sql.of("UPDATE " + t.entries() + " SET seq = :seq, payload = :payload, pushed_ms = " + now
                + " WHERE grp = :grp AND slot = :slot");
        slotInsert = Sql.of("INSERT INTO " + t.entries()
                + " (grp, slot, seq, payload, pushed_ms) VALUES (:grp, :slot, :seq, :payload, " + now + ")");
        String select = "SELECT " + Jdbc.ENTRY_COLUMNS + " FROM " + t.entries() + " WHERE grp = :grp ORDER BY seq ";
        newest = Sql.of(select + "DESC");
        newestLimited = Sql.of(select + "DESC" + dialect.limit("limit"));
        oldest = Sql.of(select + "ASC");
        oldestLimited = Sql.of(select + "ASC" + dialect.limit("limit"));
        count = Sql.of("SELECT COUNT(*) FROM " + t.entries() + " WHERE grp = :grp");
        lockHead = Sql.of("UPDATE " + t.heads() + " SET last_seq = last_seq WHERE grp = :grp");
        deleteGroup = Sql.of("DELETE FROM " + t.entries() + " WHERE grp = :grp");
        distinctGroups = Sql.of("SELECT DISTINCT grp FROM " + t.entries());
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        if (statements.singleWriter() != null) {
            return singleWriterPush(statements.singleWriter(), group, payloads);
        }
        if (statements.pushOne() != null && payloads.size() == 1) {
            return pushOne(statements.pushOne(), group, payloads.get(0));
        }
        return SqlOp.transaction(c -> {
            int n = payloads.size();
            long last = bumpHead(c, group, n);
            long first = last - n + 1;
            writeSlots(c, group, first, payloads);
            return sequence(first, n);
        });
    }

    private SqlOp<long[]> pushOne(Sql pushOne, String group, String payload) {
        return SqlOp.statement(c -> {
            OptionalLong seq;
            try (PreparedStatement ps = pushOne.prepare(c)) {
                dialect.bind(pushOne, ps).set("grp", group).setInt("cap", capacity).set("payload", payload).done();
                seq = Jdbc.firstLong(ps);
            }
            if (seq.isEmpty()) { // the head row exists and is at Long.MAX_VALUE: nothing was written
                throw exhausted(group, Long.MAX_VALUE, 1);
            }
            return new long[] {seq.getAsLong()};
        }).retryingDuplicateKey();
    }

    private SqlOp<long[]> singleWriterPush(Sql push, String group, List<String> payloads) {
        SqlOp<long[]> body = c -> {
            long[] seqs = new long[payloads.size()];
            try (PreparedStatement ps = push.prepare(c)) {
                for (int i = 0; i < seqs.length; i++) {
                    dialect.bind(push, ps).set("grp", group).setInt("cap", capacity).set("payload", payloads.get(i))
                            .done();
                    seqs[i] = Jdbc.firstLong(ps).orElseThrow(() -> new SQLException(
                            "the single-writer push into " + t.entries() + " returned no sequence number"));
                }
            } catch (SQLException e) {
                if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                    throw exhausted(group, Long.MAX_VALUE, 1);
                }
                throw e;
            }
            return seqs;
        };
        return payloads.size() == 1 ? SqlOp.statement(body) : SqlOp.transaction(body);
    }

    /**
     * @param first the first number
     * @param n     how many
     * @return {@code first, first+1, ...}
     */
    protected static long[] sequence(long first, int n) {
        long[] seqs = new long[n];
        for (int i = 0; i < n; i++) {
            seqs[i] = first + i;
        }
        return seqs;
    }

    /**
     * The slot of a sequence number.
     *
     * @param seq a sequence number
     * @return {@code seq mod capacity}
     */
    protected int slot(long seq) {
        return (int) Math.floorMod(seq, (long) capacity);
    }

    /**
     * Which payloads of a push survive it: a push of more than {@code capacity} payloads only writes its last
     * {@code capacity}.
     *
     * @param n the push size
     * @return the index of the first payload to write
     */
    protected int firstWritten(int n) {
        return Math.max(0, n - capacity);
    }

    /**
     * Adds {@code n} to the group's last sequence number, creating the head row if missing, and locks it until the
     * transaction ends.
     *
     * @param c     a connection in a transaction
     * @param group the group
     * @param n     how many numbers to take
     * @return the new last sequence number
     * @throws SQLException from the driver
     * @throws SequenceExhaustedException if the numbers would pass {@link Long#MAX_VALUE}
     */
    protected long bumpHead(Connection c, String group, int n) throws SQLException {
        if (statements.bump() != null) {
            return bumpHeadWith(c, statements.bump(), group, n);
        }
        return portableBumpHead(c, group, n);
    }

    private long portableBumpHead(Connection c, String group, int n) throws SQLException {
        for (int attempt = 0; attempt < 5; attempt++) {
            int updated;
            try (PreparedStatement ps = headUpdate.prepare(c)) {
                dialect.bind(headUpdate, ps).set("n", n).set("grp", group).set("max", Long.MAX_VALUE - n).done();
                updated = ps.executeUpdate();
            }
            OptionalLong last;
            try (PreparedStatement ps = headSelect.prepare(c)) {
                dialect.bind(headSelect, ps).set("grp", group).done();
                last = Jdbc.firstLong(ps);
            }
            if (updated == 1) {
                return last.orElseThrow();
            }
            if (last.isPresent()) {
                if (last.getAsLong() > Long.MAX_VALUE - n) {
                    throw exhausted(group, last.getAsLong(), n);
                }
                continue; // another producer created the row after our UPDATE looked: update it now
            }
            boolean created = Jdbc.insertUnlessExists(c, dialect, () -> {
                try (PreparedStatement ps = headInsert.prepare(c)) {
                    dialect.bind(headInsert, ps).set("grp", group).set("n", n).done();
                    ps.executeUpdate();
                }
            });
            if (created) {
                return n;
            }
        }
        throw new IllegalStateException("head row of group '" + group + "' in " + t.heads()
                + " neither updatable nor insertable");
    }

    /**
     * Bumps the head row with one statement of the dialect's that returns the new last sequence number (a data
     * change table reference, {@code RETURNING}, ...), with parameters {@code :n}, {@code :grp} and {@code :max}
     * ({@code Long.MAX_VALUE - n}). No row means the group is new or its numbers are exhausted: the portable path
     * ({@link #bumpHead}) then creates the head row or tells which.
     *
     * @param c     a connection in a transaction
     * @param bump  the statement
     * @param group the group
     * @param n     how many numbers to take
     * @return the new last sequence number
     * @throws SQLException from the driver
     */
    protected long bumpHeadWith(Connection c, Sql bump, String group, int n) throws SQLException {
        OptionalLong last;
        try (PreparedStatement ps = bump.prepare(c)) {
            dialect.bind(bump, ps).set("n", n).set("grp", group).set("max", Long.MAX_VALUE - n).done();
            last = Jdbc.firstLong(ps);
        }
        return last.isPresent() ? last.getAsLong() : portableBumpHead(c, group, n);
    }

    /**
     * @param group the group
     * @param last  its last sequence number
     * @param n     the numbers asked for
     * @return the exception to throw
     */
    protected SequenceExhaustedException exhausted(String group, long last, int n) {
        return new SequenceExhaustedException("ring " + t.queue() + ", group '" + group + "': sequence number " + last
                + " + " + n + " would pass " + Long.MAX_VALUE + "; nothing was written");
    }

    /**
     * Writes payloads into their slots. Called with the group's head row locked, so no other producer writes the
     * group's slots concurrently.
     *
     * @param c        a connection in a transaction
     * @param group    the group
     * @param firstSeq the sequence number of {@code payloads.get(0)}
     * @param payloads the payloads in order
     * @throws SQLException from the driver
     */
    protected void writeSlots(Connection c, String group, long firstSeq, List<String> payloads) throws SQLException {
        if (statements.upsert() != null) {
            upsertSlots(c, statements.upsert(), group, firstSeq, payloads);
            return;
        }
        try (PreparedStatement up = slotUpdate.prepare(c); PreparedStatement in = slotInsert.prepare(c)) {
            for (int i = firstWritten(payloads.size()); i < payloads.size(); i++) {
                long seq = firstSeq + i;
                dialect.bind(slotUpdate, up).set("seq", seq).set("payload", payloads.get(i)).set("grp", group)
                        .setInt("slot", slot(seq)).done();
                if (up.executeUpdate() == 0) {
                    dialect.bind(slotInsert, in).set("grp", group).setInt("slot", slot(seq)).set("seq", seq)
                            .set("payload", payloads.get(i)).done();
                    in.executeUpdate();
                }
            }
        }
    }

    /**
     * Writes payloads into their slots with an upsert of the dialect's (a {@code MERGE} or equivalent) whose
     * parameters are {@code :grp}, {@code :slot}, {@code :seq} and {@code :payload}: one execution for one slot, one
     * batch for several. For dialects whose {@link #writeSlots} is a single upsert per slot.
     *
     * @param c        a connection in a transaction, with the group's head row locked
     * @param upsert   the upsert
     * @param group    the group
     * @param firstSeq the sequence number of {@code payloads.get(0)}
     * @param payloads the payloads in order
     * @throws SQLException from the driver
     */
    protected void upsertSlots(Connection c, Sql upsert, String group, long firstSeq, List<String> payloads)
            throws SQLException {
        int from = firstWritten(payloads.size());
        boolean batched = payloads.size() - from > 1;
        try (PreparedStatement ps = upsert.prepare(c)) {
            for (int i = from; i < payloads.size(); i++) {
                long seq = firstSeq + i;
                Sql.Binder b = dialect.bind(upsert, ps).set("grp", group).setInt("slot", slot(seq)).set("seq", seq)
                        .set("payload", payloads.get(i));
                if (batched) {
                    b.addBatch();
                } else {
                    b.done();
                    ps.executeUpdate();
                }
            }
            if (batched) {
                ps.executeBatch();
            }
        }
    }

    /**
     * For rings without an index on {@code (grp, seq)}: a query of the newest {@code :limit} entries of group
     * {@code :grp} (columns {@link Jdbc#ENTRY_COLUMNS}, newest first), {@code :limit} being below the capacity
     * {@code :cap}, that finds their slots through the head row's last sequence number ({@code seq mod capacity} of
     * the last {@code :limit} numbers) and leaves out slots holding older numbers (the group was cleared since).
     * {@link #read} uses it for newest-first reads with such a limit.
     *
     * @return the query, or {@code null} to read through the {@code (grp, seq)} index; by default
     *         {@link RingStatements#newestByHead()}
     */
    protected Sql newestByHead() {
        return statements.newestByHead();
    }

    @Override
    public SqlOp<List<RingEntry>> read(String group, boolean newestFirst, int limit) {
        Sql byHead = newestFirst && limit > 0 && limit < capacity ? newestByHead() : null;
        if (byHead != null) {
            return SqlOp.read(c -> {
                try (PreparedStatement ps = byHead.prepare(c)) {
                    dialect.bind(byHead, ps).set("grp", group).setInt("cap", capacity).set("limit", (long) limit)
                            .done();
                    return Jdbc.entries(ps);
                }
            });
        }
        Sql sql = limit > 0 ? (newestFirst ? newestLimited : oldestLimited) : (newestFirst ? newest : oldest);
        return SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).set("grp", group);
                if (limit > 0) {
                    b.limit("limit", limit);
                }
                b.done();
                return Jdbc.entries(ps);
            }
        });
    }

    @Override
    public SqlOp<Integer> size(String group) {
        return SqlOp.read(c -> {
            try (PreparedStatement ps = count.prepare(c)) {
                dialect.bind(count, ps).set("grp", group).done();
                return (int) Jdbc.firstLong(ps).orElse(0);
            }
        });
    }

    @Override
    public SqlOp<Void> clear(String group) {
        return SqlOp.transaction(c -> {
            try (PreparedStatement ps = lockHead.prepare(c)) {
                dialect.bind(lockHead, ps).set("grp", group).done();
                ps.executeUpdate();
            }
            try (PreparedStatement ps = deleteGroup.prepare(c)) {
                dialect.bind(deleteGroup, ps).set("grp", group).done();
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public SqlOp<List<String>> groups() {
        return SqlOp.read(c -> {
            List<String> groups = new ArrayList<>();
            try (PreparedStatement ps = distinctGroups.prepare(c); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    groups.add(dialect.readKey(rs, 1));
                }
            }
            return groups;
        });
    }
}
