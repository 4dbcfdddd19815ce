package dev.rowqueue.portable;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.Claims;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StandardWorkStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The portable work queue: {@link StandardWorkStore}, with claims that write before they read. A claim's first
 * statement is an {@code UPDATE} of no row, so a database that takes one write lock per transaction at its first
 * write (SQLite) makes the claim wait for that lock, with its busy timeout, before the claim reads its candidates;
 * a transaction that read first and then wants to write may instead fail at once when another writer committed in
 * between. Elsewhere the statement changes nothing and costs a round trip.
 */
final class PortableWorkStore extends StandardWorkStore {

    private final Sql writeFirst;

    PortableWorkStore(Dialect dialect, WorkTables tables) {
        super(dialect, tables);
        writeFirst = Sql.of("UPDATE " + t.jobs() + " SET attempts = attempts WHERE id = -1");
    }

    /** Keyed enqueues and claims write first too (a claim with a per-key limit writes its gate next anyway). */
    @Override
    protected void beforeKeyedReads(Connection c) throws SQLException {
        try (PreparedStatement ps = writeFirst.prepare(c)) {
            dialect.bind(writeFirst, ps).done();
            ps.executeUpdate();
        }
    }

    @Override
    protected List<Long> candidates(Connection c, Claims.Kind kind, int n, long last) throws SQLException {
        if (kind == Claims.Kind.CLAIM) { // rotation locks its cursor's row first
            try (PreparedStatement ps = writeFirst.prepare(c)) {
                dialect.bind(writeFirst, ps).done();
                ps.executeUpdate();
            }
        }
        return super.candidates(c, kind, n, last);
    }
}
