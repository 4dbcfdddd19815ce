package dev.rowqueue.cli;

import dev.rowqueue.support.Sql;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The migration's progress, kept in a table on the target, {@value #TABLE}: one row per queue part with the last key
 * copied. Each batch of rows and its checkpoint commit in the same transaction, so after an interruption the next run
 * continues exactly after the last committed batch, neither skipping nor repeating a row.
 *
 * <p>The table uses only types every supported database accepts as written ({@code VARCHAR}, {@code DECIMAL}); its
 * rows stay after a migration so that a rerun only verifies, and it can be dropped once the migration is done.
 */
final class Checkpoints {

    /** The checkpoint table. */
    static final String TABLE = "rowqueue_migration";
    static final String COPYING = "copying";
    static final String DONE = "done";

    private static final String COLUMNS = "queue_name, part, state, last_key, last_num, rows_copied, source_db";

    private final DataSource target;

    /**
     * @param target the target database
     */
    Checkpoints(DataSource target) {
        this.target = target;
    }

    /**
     * A part's progress.
     *
     * @param state    {@value #COPYING} or {@value #DONE}
     * @param lastKey  the last text key copied, or {@code null}
     * @param lastNum  the last numeric key copied (the id, or the slot after {@code lastKey}), 0 if none
     * @param rows     rows copied so far
     * @param sourceDb the source this checkpoint belongs to
     */
    record Checkpoint(String state, String lastKey, long lastNum, long rows, String sourceDb) {
        boolean done() {
            return DONE.equals(state);
        }
    }

    /**
     * Creates the table unless it exists.
     *
     * @throws SQLException if it neither exists nor can be created
     */
    void ensureTable() throws SQLException {
        try (Connection c = target.getConnection()) {
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + COLUMNS + " FROM "
                    + TABLE + " WHERE 1 = 0")) {
                rs.next();
                return;
            } catch (SQLException missing) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE " + TABLE + " (queue_name VARCHAR(64) NOT NULL, part VARCHAR(16) NOT NULL,"
                            + " state VARCHAR(16) NOT NULL, last_key VARCHAR(1000), last_num DECIMAL(19,0) NOT NULL,"
                            + " rows_copied DECIMAL(19,0) NOT NULL, source_db VARCHAR(400) NOT NULL,"
                            + " PRIMARY KEY (queue_name, part))");
                } catch (SQLException create) {
                    create.addSuppressed(missing);
                    throw create;
                }
            }
        }
    }

    /**
     * Tells whether another data source reaches this same table, that is, the same database and schema: a row with
     * a random name is written here and looked for there, then removed.
     *
     * @param other another data source
     * @return whether {@code other} sees this table's rows
     * @throws SQLException if the probe row cannot be written or removed here
     */
    boolean sharedWith(DataSource other) throws SQLException {
        String token = "probe-" + java.util.UUID.randomUUID();
        start(token, "probe", "probe");
        try {
            Sql sql = Sql.of("SELECT COUNT(*) FROM " + TABLE + " WHERE queue_name = :queue");
            try (Connection c = other.getConnection(); PreparedStatement ps = sql.prepare(c)) {
                sql.bind(ps).set("queue", token).done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getLong(1) > 0;
                }
            } catch (SQLException noSuchTable) {
                return false;
            }
        } finally {
            forget(token);
        }
    }

    /**
     * @param queue the queue
     * @param part  the part
     * @return its checkpoint, if the migration has started it
     * @throws SQLException from the driver
     */
    Optional<Checkpoint> load(String queue, String part) throws SQLException {
        Sql sql = Sql.of("SELECT state, last_key, last_num, rows_copied, source_db FROM " + TABLE
                + " WHERE queue_name = :queue AND part = :part");
        try (Connection c = target.getConnection(); PreparedStatement ps = sql.prepare(c)) {
            sql.bind(ps).set("queue", queue).set("part", part).done();
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Checkpoint(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4),
                        rs.getString(5)));
            }
        }
    }

    /**
     * Records that a part's copy has begun.
     *
     * @param queue    the queue
     * @param part     the part
     * @param sourceDb the source's description
     * @throws SQLException from the driver
     */
    void start(String queue, String part, String sourceDb) throws SQLException {
        Sql sql = Sql.of("INSERT INTO " + TABLE + " (" + COLUMNS + ") VALUES (:queue, :part, :state, :key, 0, 0,"
                + " :source)");
        try (Connection c = target.getConnection(); PreparedStatement ps = sql.prepare(c)) {
            c.setAutoCommit(true);
            sql.bind(ps).set("queue", queue).set("part", part).set("state", COPYING).set("key", (String) null)
                    .set("source", sourceDb).done();
            ps.executeUpdate();
        }
    }

    /**
     * Moves a part's position, inside the transaction of the batch that copied up to it.
     *
     * @param c       the batch's connection, auto-commit off
     * @param queue   the queue
     * @param part    the part
     * @param lastKey the last text key, or {@code null}
     * @param lastNum the last numeric key
     * @param rows    rows copied so far
     * @throws SQLException from the driver
     */
    void advance(Connection c, String queue, String part, String lastKey, long lastNum, long rows)
            throws SQLException {
        Sql sql = Sql.of("UPDATE " + TABLE + " SET last_key = :key, last_num = :num, rows_copied = :rows"
                + " WHERE queue_name = :queue AND part = :part");
        try (PreparedStatement ps = sql.prepare(c)) {
            sql.bind(ps).set("key", lastKey).set("num", lastNum).set("rows", rows).set("queue", queue)
                    .set("part", part).done();
            if (ps.executeUpdate() != 1) {
                throw new SQLException("checkpoint of " + queue + "/" + part + " vanished from " + TABLE);
            }
        }
    }

    /**
     * Marks a part as copied.
     *
     * @param queue the queue
     * @param part  the part
     * @throws SQLException from the driver
     */
    void finish(String queue, String part) throws SQLException {
        Sql sql = Sql.of("UPDATE " + TABLE + " SET state = :state WHERE queue_name = :queue AND part = :part");
        try (Connection c = target.getConnection(); PreparedStatement ps = sql.prepare(c)) {
            c.setAutoCommit(true);
            sql.bind(ps).set("state", DONE).set("queue", queue).set("part", part).done();
            ps.executeUpdate();
        }
    }

    /**
     * Forgets a queue's checkpoints (before copying it afresh).
     *
     * @param queue the queue
     * @throws SQLException from the driver
     */
    void forget(String queue) throws SQLException {
        Sql sql = Sql.of("DELETE FROM " + TABLE + " WHERE queue_name = :queue");
        try (Connection c = target.getConnection(); PreparedStatement ps = sql.prepare(c)) {
            c.setAutoCommit(true);
            sql.bind(ps).set("queue", queue).done();
            ps.executeUpdate();
        }
    }
}
