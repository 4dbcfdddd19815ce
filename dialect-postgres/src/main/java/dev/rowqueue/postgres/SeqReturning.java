package dev.rowqueue.postgres;

import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Runs a ring's push that is one statement returning the sequence numbers it wrote, where numbers past
 * {@link Long#MAX_VALUE} surface as {@code 22003} (numeric value out of range) and become
 * {@link dev.rowqueue.SequenceExhaustedException}: the single-writer and the trigger rings.
 */
final class SeqReturning {

    private SeqReturning() {
    }

    /** Binds what a push statement needs besides {@code :grp} and {@code :payloads}. */
    @FunctionalInterface
    interface More {
        /**
         * @param b the binder
         * @throws SQLException from the driver
         */
        void bind(Sql.Binder b) throws SQLException;
    }

    /**
     * @param c        a connection
     * @param ring     the ring
     * @param push     the push statement; binds {@code :grp} and {@code :payloads}, maybe more
     * @param group    the group
     * @param payloads the payloads
     * @param more     binds the rest
     * @return the sequence numbers the statement returned
     * @throws SQLException from the driver
     */
    static List<Long> run(Connection c, RingStatements.Ring ring, Sql push, String group, List<String> payloads,
                          More more) throws SQLException {
        try (PreparedStatement ps = push.prepare(c)) {
            Sql.Binder b = ring.dialect().bind(push, ps).set("grp", group)
                    .setArray("payloads", PgArrays.texts(c, payloads));
            more.bind(b);
            b.done();
            return Jdbc.longs(ps);
        } catch (SQLException e) {
            if (ring.dialect().classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw ring.exhausted(group, Long.MAX_VALUE, payloads.size());
            }
            throw e;
        }
    }
}
