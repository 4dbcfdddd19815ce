package dev.rowqueue.cli;

import dev.rowqueue.Enqueue;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * An enqueue with a unique key that tells whether it enqueued a job or found the live job holding the key. The enqueue
 * runs in a transaction of its own connection; before it commits, a second connection looks for the returned id. A
 * job this enqueue inserted is not committed yet, so the second connection does not see it; a job that held the key
 * (also one a concurrent producer committed first) is committed, so it does.
 */
final class UniqueEnqueue {

    /**
     * @param id       the job id
     * @param enqueued whether this enqueue inserted it (otherwise a live job already held the unique key)
     */
    record Outcome(long id, boolean enqueued) {
    }

    private UniqueEnqueue() {
    }

    static Outcome enqueue(Endpoint.Opened db, WorkQueue queue, String payload, Enqueue how) {
        String probe = "SELECT COUNT(*) FROM " + WorkTables.of(queue.name()).jobs() + " WHERE id = ?";
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                long id = queue.using(c).enqueue(payload, how);
                boolean committedBefore;
                try (Connection other = db.dataSource().getConnection();
                     PreparedStatement ps = other.prepareStatement(probe)) {
                    ps.setLong(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        committedBefore = rs.next() && rs.getLong(1) > 0;
                    }
                }
                c.commit();
                return new Outcome(id, !committedBefore);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new CliException(ExitCode.DATABASE, "cannot enqueue into " + queue.name() + ": " + e.getMessage(),
                    e);
        }
    }
}
