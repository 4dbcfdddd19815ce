package dev.rowqueue.postgres;

import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.StandardRingStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * A ring whose push is one statement returning the sequence numbers it wrote, where numbers past
 * {@link Long#MAX_VALUE} surface as {@code 22003} (numeric value out of range) and become
 * {@link dev.rowqueue.SequenceExhaustedException}.
 */
abstract class SeqReturningRingStore extends StandardRingStore {

    /** The push statement; binds {@code :grp} and {@code :payloads}, maybe more. */
    private final Sql push;

    SeqReturningRingStore(PostgresDialect dialect, RingTables tables, int capacity, Sql push) {
        super(dialect, tables, capacity);
        this.push = push;
    }

    /**
     * Binds what the push statement needs besides {@code :grp} and {@code :payloads}.
     *
     * @param b the binder
     * @param n the push size
     * @throws SQLException from the driver
     */
    abstract void bindMore(Sql.Binder b, int n) throws SQLException;

    /**
     * @param group    the group
     * @param n        the push size
     * @param returned the sequence numbers the statement returned
     * @return the numbers the push took, ascending
     * @throws SQLException if the statement returned something impossible
     */
    abstract long[] taken(String group, int n, List<Long> returned) throws SQLException;

    @Override
    public final SqlOp<long[]> push(String group, List<String> payloads) {
        int n = payloads.size();
        return SqlOp.statement(c -> taken(group, n, run(c, group, payloads)));
    }

    private List<Long> run(Connection c, String group, List<String> payloads) throws SQLException {
        try (PreparedStatement ps = push.prepare(c)) {
            Sql.Binder b = dialect.bind(push, ps).set("grp", group).setArray("payloads", PgArrays.texts(c, payloads));
            bindMore(b, payloads.size());
            b.done();
            return Jdbc.longs(ps);
        } catch (SQLException e) {
            if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw exhausted(group, Long.MAX_VALUE, payloads.size());
            }
            throw e;
        }
    }
}
