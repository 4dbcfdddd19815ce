package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The {@link dev.rowqueue.RingStrategy#SINGLE_WRITER} ring for databases whose {@code MERGE} cannot return the row
 * it wrote (Oracle, Db2 LUW): "method three" of Baron Schwartz's "How to implement a queue in SQL", one {@code MERGE}
 * per payload that reads the group's {@code MAX(seq) + 1} in its source and writes slot {@code MOD(seq, capacity)},
 * then one read of the group's last sequence number, in one transaction. There is no head row: correct only with one
 * writer per group at a time (two writers read the same {@code MAX}), and a cleared group starts again at 1. A number
 * past {@link Long#MAX_VALUE} must make the database fail the {@code MERGE} with an error the dialect classifies as
 * {@link SqlErrorKind#NUMERIC_OVERFLOW}; it is reported as {@link dev.rowqueue.SequenceExhaustedException}, with
 * nothing written.
 */
public class MergeSingleWriterRingStore extends StandardRingStore {

    private final Sql merge;
    private final Sql last;

    /**
     * @param dialect  the dialect
     * @param tables   the ring's tables
     * @param capacity its capacity
     * @param merge    the {@code MERGE}, with parameters {@code :grp}, {@code :cap} and {@code :payload}
     */
    public MergeSingleWriterRingStore(Dialect dialect, RingTables tables, int capacity, Sql merge) {
        super(dialect, tables, capacity);
        this.merge = merge;
        this.last = Sql.of("SELECT MAX(seq) FROM " + t.entries() + " WHERE grp = :grp");
    }

    /** @return the statements this store runs: the {@code MERGE} and the read of the last sequence number */
    public List<Sql> statements() {
        return List.of(merge, last);
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        return SqlOp.transaction(c -> {
            try (PreparedStatement ps = merge.prepare(c)) {
                for (String payload : payloads) {
                    dialect.bind(merge, ps).set("grp", group).setInt("cap", capacity).set("payload", payload).done();
                    ps.executeUpdate();
                }
            } catch (SQLException e) {
                if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                    throw exhausted(group, Long.MAX_VALUE, 1);
                }
                throw e;
            }
            long newest;
            try (PreparedStatement ps = last.prepare(c)) {
                dialect.bind(last, ps).set("grp", group).done();
                newest = Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("the MERGE left no entry in group '"
                        + group + "' of " + t.entries()));
            }
            return sequence(newest - payloads.size() + 1, payloads.size());
        });
    }
}
