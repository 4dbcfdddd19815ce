package dev.rowqueue.h2;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.StandardWorkStore;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The work queue on H2: candidates are locked with {@code FOR UPDATE SKIP LOCKED} (see {@link H2Dialect}), then
 * leased and read back in one statement, {@code SELECT ... FROM FINAL TABLE (UPDATE ...)}.
 */
final class H2WorkStore extends StandardWorkStore {

    H2WorkStore(Dialect dialect, WorkTables tables) {
        super(dialect, tables);
    }

    @Override
    protected List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        Sql lease = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM FINAL TABLE (UPDATE " + t.jobs()
                + " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END, lease_token = :token,"
                + " due_ms = " + now + " + :lease WHERE id IN (" + Jdbc.parameterList(ids.size(), "id")
                + ") AND state = " + WorkTables.LIVE + " AND due_ms <= " + now + ")");
        try (PreparedStatement ps = lease.prepare(c)) {
            Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
            return inOrder(Jdbc.jobs(ps), ids);
        }
    }
}
