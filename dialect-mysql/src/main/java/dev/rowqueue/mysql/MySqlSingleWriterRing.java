package dev.rowqueue.mysql;

import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.RingStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The source articles' single statement, {@link dev.rowqueue.RingStrategy#SINGLE_WRITER}: the next sequence number is
 * {@code MAX(seq) + 1} of the group, read inside the statement that writes slot {@code seq mod capacity}.
 *
 * <ul>
 *   <li>{@code upsert} (Baron Schwartz's "How to implement a queue in SQL"): {@code INSERT INTO ring (...) SELECT ...
 *       FROM (SELECT :grp AS g, LAST_INSERT_ID(COALESCE(MAX(seq), 0) + 1) AS s, ...) AS nx ON DUPLICATE KEY UPDATE
 *       seq = nx.s, ...}. The update clause names the derived table's columns, the form MySQL's manual gives for
 *       {@code INSERT ... SELECT} since {@code VALUES()} was deprecated, and which MySQL 5.7 and MariaDB accept
 *       too.</li>
 *   <li>{@code replace} ("MySQL Queues, part II — groups of queues"): {@code REPLACE INTO ring (...) SELECT ... FROM
 *       (...) AS nx}, which deletes the slot's old row and inserts the new one.</li>
 * </ul>
 *
 * <p>{@code LAST_INSERT_ID(expr)} hands the new sequence number back as the generated key: one round trip per
 * payload. <b>One writer per group at a time only.</b> Two concurrent pushes can read the same {@code MAX(seq)}: with
 * several producers on one group, pushes are silently overwritten at READ COMMITTED, and most fail with deadlocks at
 * REPEATABLE READ (the figures are in docs/mysql.md). There is no head row, so a cleared group starts again at 1.
 */
final class MySqlSingleWriterRing implements RingStatements.Push {

    private final MySqlDialect dialect;
    private final Sql push;

    MySqlSingleWriterRing(MySqlDialect dialect, RingTables t, MySqlDialect.SingleWriterStatement statement) {
        this.dialect = dialect;
        String next = "SELECT :grp AS g, LAST_INSERT_ID(COALESCE(MAX(seq), 0) + 1) AS s, :payload AS p, "
                + dialect.nowMillis() + " AS t FROM " + t.entries() + " WHERE grp = :grp";
        String select = " (grp, slot, seq, payload, pushed_ms) SELECT nx.g, nx.s MOD :cap, nx.s, nx.p, nx.t FROM ("
                + next + ") AS nx";
        push = Sql.of(statement == MySqlDialect.SingleWriterStatement.REPLACE
                ? "REPLACE INTO " + t.entries() + select
                : "INSERT INTO " + t.entries() + select
                        + " ON DUPLICATE KEY UPDATE seq = nx.s, payload = nx.p, pushed_ms = nx.t");
    }

    /** @return the push statement */
    Sql statement() {
        return push;
    }

    /** One statement per payload: one payload in auto-commit mode, several in one transaction. */
    @Override
    public SqlOp<long[]> push(RingStatements.Ring ring, String group, List<String> payloads, SqlOp<long[]> steps) {
        SqlOp<long[]> body = c -> {
            long[] seqs = new long[payloads.size()];
            for (int i = 0; i < seqs.length; i++) {
                seqs[i] = pushOne(c, ring, group, payloads.get(i));
            }
            return seqs;
        };
        return payloads.size() == 1 ? SqlOp.statement(body) : SqlOp.transaction(body);
    }

    private long pushOne(Connection c, RingStatements.Ring ring, String group, String payload) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(push.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
            dialect.bind(push, ps).set("grp", group).set("payload", payload).setInt("cap", ring.capacity()).done();
            ps.executeUpdate();
            return LastInsertId.read(c, ps);
        } catch (SQLException e) {
            if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw ring.exhausted(group, Long.MAX_VALUE, 1);
            }
            throw e;
        }
    }
}
