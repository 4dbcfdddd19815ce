package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingStore;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.RingEntry;

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
 * writes, a push of one payload in one statement, newest-first reads through the head row, a single-writer push, or
 * the whole push in code.
 */
public final class StandardRingStore implements RingStore {

    private final Dialect dialect;
    private final RingTables t;
    private final RingStatements.Ring ring;

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
    private final Sql maxSeq;
    private final RingStatements statements;

    /**
     * @param dialect    the dialect
     * @param tables     the ring's tables
     * @param capacity   its capacity
     * @param statements the database's own statements, replacing the portable steps they name
     */
    public StandardRingStore(Dialect dialect, RingTables tables, int capacity, RingStatements statements) {
        this.dialect = dialect;
        this.t = tables;
        this.ring = new RingStatements.Ring(dialect, tables, capacity);
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
        maxSeq = Sql.of("SELECT MAX(seq) FROM " + t.entries() + " WHERE grp = :grp");
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        if (statements.pushHook() != null) {
            return statements.pushHook().push(ring, group, payloads, steps(group, payloads));
        }
        if (statements.singleWriter() != null) {
            return singleWriterPush(statements.singleWriter(), group, payloads);
        }
        if (statements.singleWriterMerge() != null) {
            return singleWriterMerge(statements.singleWriterMerge(), group, payloads);
        }
        if (statements.pushOne() != null && payloads.size() == 1) {
            return pushOne(statements.pushOne(), group, payloads.get(0));
        }
        return steps(group, payloads);
    }

    /** The push in steps: bump the head row, then write the slots, in one transaction. */
    private SqlOp<long[]> steps(String group, List<String> payloads) {
        return SqlOp.transaction(c -> {
            int n = payloads.size();
            long last = bumpHead(c, group, n);
            long first = last - n + 1;
            writeSlots(c, group, first, payloads);
            return RingStatements.Ring.sequence(first, n);
        });
    }

    private SqlOp<long[]> pushOne(Sql pushOne, String group, String payload) {
        return SqlOp.statement(c -> {
            OptionalLong seq;
            try (PreparedStatement ps = pushOne.prepare(c)) {
                dialect.bind(pushOne, ps).set("grp", group).setInt("cap", ring.capacity()).set("payload", payload)
                        .done();
                seq = Jdbc.firstLong(ps);
            }
            if (seq.isEmpty()) { // the head row exists and is at Long.MAX_VALUE: nothing was written
                throw ring.exhausted(group, Long.MAX_VALUE, 1);
            }
            return new long[] {seq.getAsLong()};
        }).retryingDuplicateKey();
    }

    private SqlOp<long[]> singleWriterPush(Sql push, String group, List<String> payloads) {
        SqlOp<long[]> body = c -> {
            long[] seqs = new long[payloads.size()];
            try (PreparedStatement ps = push.prepare(c)) {
                for (int i = 0; i < seqs.length; i++) {
                    dialect.bind(push, ps).set("grp", group).setInt("cap", ring.capacity())
                            .set("payload", payloads.get(i)).done();
                    seqs[i] = Jdbc.firstLong(ps).orElseThrow(() -> new SQLException(
                            "the single-writer push into " + t.entries() + " returned no sequence number"));
                }
            } catch (SQLException e) {
                throw exhaustedOr(e, group);
            }
            return seqs;
        };
        return payloads.size() == 1 ? SqlOp.statement(body) : SqlOp.transaction(body);
    }

    private SqlOp<long[]> singleWriterMerge(Sql merge, String group, List<String> payloads) {
        return SqlOp.transaction(c -> {
            try (PreparedStatement ps = merge.prepare(c)) {
                for (String payload : payloads) {
                    dialect.bind(merge, ps).set("grp", group).setInt("cap", ring.capacity()).set("payload", payload)
                            .done();
                    ps.executeUpdate();
                }
            } catch (SQLException e) {
                throw exhaustedOr(e, group);
            }
            long newest;
            try (PreparedStatement ps = maxSeq.prepare(c)) {
                dialect.bind(maxSeq, ps).set("grp", group).done();
                newest = Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("the MERGE left no entry in group '"
                        + group + "' of " + t.entries()));
            }
            return RingStatements.Ring.sequence(newest - payloads.size() + 1, payloads.size());
        });
    }

    /**
     * A single-writer push's error, to rethrow: a numeric overflow (a number past {@link Long#MAX_VALUE}) is thrown
     * here as {@link RingStatements.Ring#exhausted}; any other error is returned.
     */
    private SQLException exhaustedOr(SQLException e, String group) {
        if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
            throw ring.exhausted(group, Long.MAX_VALUE, 1);
        }
        return e;
    }

    /**
     * Adds {@code n} to the group's last sequence number, creating the head row if missing, and locks it until the
     * transaction ends.
     */
    private long bumpHead(Connection c, String group, int n) throws SQLException {
        if (statements.bumpHook() != null) {
            return statements.bumpHook().bump(c, ring, group, n);
        }
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
                    throw ring.exhausted(group, last.getAsLong(), n);
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
     * Bumps the head row with the dialect's {@link RingStatements#bump() bump}; no row means the group is new or its
     * numbers are exhausted: the portable path then creates the head row or tells which.
     */
    private long bumpHeadWith(Connection c, Sql bump, String group, int n) throws SQLException {
        OptionalLong last;
        try (PreparedStatement ps = bump.prepare(c)) {
            dialect.bind(bump, ps).set("n", n).set("grp", group).set("max", Long.MAX_VALUE - n).done();
            last = Jdbc.firstLong(ps);
        }
        return last.isPresent() ? last.getAsLong() : portableBumpHead(c, group, n);
    }

    /**
     * Writes payloads into their slots. Called with the group's head row locked, so no other producer writes the
     * group's slots concurrently.
     */
    private void writeSlots(Connection c, String group, long firstSeq, List<String> payloads) throws SQLException {
        if (statements.slotsHook() != null) {
            statements.slotsHook().write(c, ring, group, firstSeq, payloads);
            return;
        }
        if (statements.upsert() != null) {
            upsertSlots(c, statements.upsert(), group, firstSeq, payloads);
            return;
        }
        try (PreparedStatement up = slotUpdate.prepare(c); PreparedStatement in = slotInsert.prepare(c)) {
            for (int i = ring.firstWritten(payloads.size()); i < payloads.size(); i++) {
                long seq = firstSeq + i;
                dialect.bind(slotUpdate, up).set("seq", seq).set("payload", payloads.get(i)).set("grp", group)
                        .setInt("slot", ring.slot(seq)).done();
                if (up.executeUpdate() == 0) {
                    dialect.bind(slotInsert, in).set("grp", group).setInt("slot", ring.slot(seq)).set("seq", seq)
                            .set("payload", payloads.get(i)).done();
                    in.executeUpdate();
                }
            }
        }
    }

    /**
     * Writes payloads into their slots with the dialect's {@link RingStatements#upsert() upsert}: one execution for
     * one slot, one batch for several.
     */
    private void upsertSlots(Connection c, Sql upsert, String group, long firstSeq, List<String> payloads)
            throws SQLException {
        int from = ring.firstWritten(payloads.size());
        boolean batched = payloads.size() - from > 1;
        try (PreparedStatement ps = upsert.prepare(c)) {
            for (int i = from; i < payloads.size(); i++) {
                long seq = firstSeq + i;
                Sql.Binder b = dialect.bind(upsert, ps).set("grp", group).setInt("slot", ring.slot(seq))
                        .set("seq", seq).set("payload", payloads.get(i));
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

    @Override
    public SqlOp<List<RingEntry>> read(String group, boolean newestFirst, int limit) {
        Sql byHead = newestFirst && limit > 0 && limit < ring.capacity() ? statements.newestByHead() : null;
        if (byHead != null) {
            return SqlOp.read(c -> {
                try (PreparedStatement ps = byHead.prepare(c)) {
                    dialect.bind(byHead, ps).set("grp", group).setInt("cap", ring.capacity())
                            .set("limit", (long) limit).done();
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
