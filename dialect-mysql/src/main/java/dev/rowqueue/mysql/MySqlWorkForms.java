package dev.rowqueue.mysql;

import dev.rowqueue.Job;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.JobRules;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.Claims;
import dev.rowqueue.support.KeyedClaims;
import dev.rowqueue.support.WorkForms;
import dev.rowqueue.support.WorkStatements;
import dev.rowqueue.spi.WorkStore.AckedAndClaimed;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The work queue's hooks on MySQL and MariaDB ({@link #statements}). Two claim paths (see {@link MySqlDialect.ClaimPath}):
 *
 * <ul>
 *   <li><b>skip-locked</b> (MySQL 8.0.1+, MariaDB 10.6+), two statements in one transaction: {@code SELECT <job
 *       columns>, <now> FROM jobs WHERE state = 0 AND due_ms <= <now> ORDER BY prio DESC, due_ms, id LIMIT :n FOR
 *       UPDATE SKIP LOCKED} locks the batch while other consumers pass it by, then {@code UPDATE ... WHERE id IN
 *       (...)} leases it. The rows are locked, so the jobs are known without reading them again. MySQL forbids a
 *       subquery on the table an {@code UPDATE} changes, hence two statements.</li>
 *   <li><b>last-insert-id</b>, the claim of the article "mysql 队列 实现并发读" (MySQL queue: concurrent reads) for servers
 *       without SKIP LOCKED (MySQL 5.7, MariaDB before 10.6), in its priority and schedule variant. A consistent
 *       (lock-free) read picks up to {@code n} candidate ids in claim order; then, once per job, {@code UPDATE jobs
 *       FORCE INDEX (PRIMARY) SET attempts = ..., lease_token = :token, due_ms = <now> + :lease, id =
 *       LAST_INSERT_ID(id) WHERE id IN (<candidates>) AND state = 0 AND due_ms <= <now> ORDER BY prio DESC, due_ms, id
 *       LIMIT 1} leases the first one still claimable and returns its id as the generated key. The update count tells
 *       whether anything was claimed: when nothing matches, {@code LAST_INSERT_ID()} keeps its old value. The update
 *       locks the row and re-checks the condition on its latest committed version after any lock wait, so two consumers
 *       never lease one job; a consumer that lost candidates to others tries again with fresh ones (three rounds).
 *       Bounding the update to candidates keeps it off rows a consistent read cannot see: scanning the claim index, it
 *       would wait for every uncommitted job of an open transaction (a transactional outbox) until that transaction
 *       ends. The leased rows are read back once, by id. The article's last variant, a join with a derived table
 *       selecting the candidate, does not re-check the condition after the lock and can hand one row to two readers; it
 *       is not used. MySQL evaluates single-table {@code SET} clauses left to right: {@code attempts} is computed
 *       before {@code lease_token} changes.</li>
 * </ul>
 *
 * <p>A batch {@code enqueue} is one {@code INSERT ... VALUES (...), (...) RETURNING id} on MariaDB 10.5+, inside a
 * compound statement that reads the server's clock once ({@link #insertReturning(int)}); elsewhere
 * one {@code INSERT} per job, each id read as the generated key (a multi-row insert's later ids cannot be trusted to
 * be consecutive under {@code innodb_autoinc_lock_mode=2} or with {@code auto_increment_increment > 1}).
 */
final class MySqlWorkForms implements WorkForms {

    private static final long[] NONE = {};

    private final MySqlDialect dialect;
    private final WorkTables t;
    private final String now;
    private final WorkStatements.ById byId;
    private final Portable portable;
    private final MySqlDialect.ClaimPath path;
    private final boolean returning;
    private final Sql insertOne;
    /** {@link #insertReturning(int)} by row count, built on first use. */
    private final java.util.concurrent.atomic.AtomicReferenceArray<Sql> inserts =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(Chunks.MAX_ROWS + 1);
    private final Sql lockBatch;
    private final Sql candidateIds;
    private final String claimable;
    private final Sql compoundClaim;
    private final Sql compoundAckOneAndClaim;
    private final java.util.Map<String, Sql> keyedCompound = new java.util.concurrent.ConcurrentHashMap<>();
    /** Whether every node takes writes and conflicts surface at commit (Galera, multi-primary Group Replication). */
    private final boolean multiMaster;
    /** Whether the server is a Group Replication member: limited claims run in {@link #ownTransaction}. */
    private final boolean groupMember;

    /**
     * The statements and hooks of a work queue on MySQL or MariaDB: statements on one job by primary key force the
     * primary key ({@link #byPrimaryKey}), candidates under a claim rule are read without locks (InnoDB's locking
     * reads may also lock, and with SKIP LOCKED skip, rows that the query's subqueries count: a key's leased jobs
     * whose row a worker is extending the lease of, which would undercount them; the lease's conditional update
     * settles races with other claimers), and these hooks.
     *
     * @param dialect   the dialect
     * @param tables    the queue's tables
     * @param path      the claim path
     * @param returning whether the server has {@code INSERT ... RETURNING}
     * @return the statements
     */
    static WorkStatements statements(MySqlDialect dialect, WorkTables tables, MySqlDialect.ClaimPath path,
                                     boolean returning) {
        WorkStatements.ById byId = byPrimaryKey(tables);
        return WorkStatements.PORTABLE.withById(byId).withUnlockedKeyedCandidates()
                .withForms(portable -> new MySqlWorkForms(dialect, tables, byId, path, returning, portable));
    }

    private MySqlWorkForms(MySqlDialect dialect, WorkTables tables, WorkStatements.ById byId,
                           MySqlDialect.ClaimPath path, boolean returning, Portable portable) {
        this.dialect = dialect;
        this.t = tables;
        this.now = dialect.nowMillis();
        this.byId = byId;
        this.portable = portable;
        this.path = path;
        this.returning = returning;
        this.multiMaster = dialect.galera()
                || dialect.groupReplication() == MySqlDialect.GroupReplication.MULTI_PRIMARY;
        this.groupMember = dialect.groupReplication() != MySqlDialect.GroupReplication.NONE;
        claimable = " WHERE " + JobRules.claimable(now) + " ORDER BY prio DESC, due_ms, id";
        insertOne = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " VALUES (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")");
        lockBatch = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + ", " + now + " AS now_ms FROM " + t.jobs() + claimable
                + " LIMIT :n FOR UPDATE SKIP LOCKED");
        candidateIds = Sql.of("SELECT id FROM " + t.jobs() + claimable + " LIMIT :n");
        compoundClaim = compound(0);
        compoundAckOneAndClaim = compound(1);
    }

    /**
     * Statements on one job found by its primary key force the primary key: with {@code state} in the WHERE clause
     * the optimizer would estimate the claim index's range ({@code btr_estimate_n_rows_in_range}), diving into its
     * head, where leases and acks hold page latches under load; with many consumers that estimate costs an ack more
     * than anything else (docs/mysql.md). DELETE takes the hint only in its multi-table form, here on one table.
     */
    private static WorkStatements.ById byPrimaryKey(WorkTables t) {
        return new WorkStatements.ById("UPDATE " + t.jobs() + " FORCE INDEX (PRIMARY)",
                "DELETE " + t.jobs() + " FROM " + t.jobs() + " FORCE INDEX (PRIMARY)",
                WorkStatements.ById.standard(t).live());
    }

    /**
     * The claim as one compound statement (MariaDB), acking {@code acks} jobs first in the same transaction: their
     * {@code DELETE}s run before the candidates are read, so an acked job is never claimed. Parameters:
     * {@code :a<i>} and {@code :t<i>} (the acks), {@code :window}, {@code :n}, {@code :token}, {@code :lease}. See
     * {@link #compoundClaim}.
     *
     * @param acks how many jobs it acks, 0 or more
     * @return the statement
     */
    Sql compound(int acks) {
        return compound(acks, ClaimRule.PLAIN);
    }

    /**
     * {@link #compound(int)} under a claim rule: with a per-key limit, the queue's claim gate (its cursor-table row,
     * created or bumped by one upsert, so Galera certifies it) is taken first, right after the transaction starts and
     * before the acks; the window's candidates are those of {@link Portable#keyedCandidatesSql}, read (without locks) when the
     * cursor opens, after the gate is held, so their counts of leased jobs include every earlier limited claim's.
     * Parameters as {@link #compound(int)}, and {@code :cursor} (the gate's name) and {@code :per_key}.
     *
     * @param acks how many jobs it acks
     * @param rule the rule: plain, fair, or a limit of 1 (one job per key per statement)
     * @return the statement
     */
    Sql compound(int acks, ClaimRule rule) {
        String vars = "v_id, v_payload, v_prio, v_attempts, v_enqueued, v_error, v_token, v_key, v_now";
        String[] names = {"id", "payload", "prio", "attempts", "enqueued_ms", "last_error", "lease_token", "job_key",
                "now_ms"};
        StringBuilder row = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            row.append(i == 0 ? "" : ", ").append(vars.split(", ")[i]).append(" AS ").append(names[i]);
        }
        StringBuilder acked = new StringBuilder();
        for (int i = 0; i < acks; i++) {
            acked.append(" ").append(byId.delete()).append(" WHERE id = :a").append(i)
                    .append(" AND lease_token = :t").append(i).append(" AND ").append(byId.live())
                    .append("; SET v_acked = CONCAT(v_acked, ROW_COUNT());");
        }
        return Sql.of("BEGIN NOT ATOMIC DECLARE v_nf INT DEFAULT 0; DECLARE v_got INT DEFAULT 0;"
                + " DECLARE v_acked VARCHAR(" + Math.max(acks, 1) + ") DEFAULT '';"
                + " DECLARE v_seen INT DEFAULT 0; DECLARE v_cand BIGINT; DECLARE v_id BIGINT;"
                + " DECLARE v_payload MEDIUMTEXT CHARACTER SET utf8mb4; DECLARE v_prio INT; DECLARE v_attempts INT;"
                + " DECLARE v_enqueued BIGINT; DECLARE v_error VARCHAR(" + Dialect.ERROR_LENGTH + ") CHARACTER SET"
                + " utf8mb4; DECLARE v_token BIGINT; DECLARE v_key " + dialect.typeOf(Schema.Type.KEY) + ";"
                + " DECLARE v_now BIGINT;"
                + " DECLARE c CURSOR FOR " + (rule.plain() ? "SELECT id FROM " + t.jobs() + claimable
                        : portable.keyedCandidatesSql(rule, "")) + " LIMIT :window;"
                + " DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_nf = 1;"
                + " DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;"
                + " SET TRANSACTION ISOLATION LEVEL READ COMMITTED; START TRANSACTION;"
                + (rule.limited() ? " INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:cursor, 0)"
                        + " ON DUPLICATE KEY UPDATE last_id = last_id + 1;" : "") + acked
                + " OPEN c; FETCH c INTO v_cand;"
                + " WHILE v_nf = 0 AND v_got < :n DO SET v_seen = v_seen + 1;"
                + " SELECT id, payload, prio, attempts, enqueued_ms, last_error, lease_token, job_key, " + now + " INTO "
                + vars
                + " FROM " + t.jobs() + " FORCE INDEX (PRIMARY) WHERE id = v_cand AND " + JobRules.claimable(now)
                + " FOR UPDATE SKIP LOCKED;"
                + " IF v_nf = 0 THEN UPDATE " + t.jobs() + " SET " + JobRules.lease("v_now")
                + " WHERE id = v_id;"
                + " SELECT " + row + "; SET v_got = v_got + 1; END IF;"
                + " SET v_nf = 0; FETCH c INTO v_cand; END WHILE; CLOSE c; COMMIT;"
                + " SELECT v_seen AS seen, v_acked AS acked; END");
    }

    // ---------------------------------------------------------------- enqueue

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        if (returning) {
            List<List<Integer>> chunks = Chunks.of(payloads, 0);
            SqlOp<long[]> body = c -> {
                long[] ids = new long[payloads.size()];
                for (List<Integer> chunk : chunks) {
                    insertReturning(c, payloads, chunk, priority, delayMs, ids);
                }
                return ids;
            };
            return chunks.size() == 1 ? SqlOp.statement(body) : SqlOp.transaction(body);
        }
        if (payloads.size() == 1) {
            return SqlOp.statement(c -> {
                try (PreparedStatement ps = c.prepareStatement(insertOne.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
                    dialect.bind(insertOne, ps).set("payload", payloads.get(0)).setInt("prio", priority)
                            .set("delay", delayMs).done();
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        if (!keys.next()) {
                            throw new SQLException("the driver returned no generated id for " + t.jobs());
                        }
                        return new long[] {keys.getLong(1)};
                    }
                }
            });
        }
        return null; // the portable enqueue: one INSERT per job, in a transaction
    }

    /**
     * The batch insert of {@code rows} jobs, payloads {@code :payload0} to {@code :payload<rows-1>}, then {@code :prio}
     * and {@code :delay}. On MariaDB it is a compound statement ({@link Compound}) that reads the server's clock once
     * into a local variable and inserts every row with it:
     *
     * <pre>{@code
     * BEGIN NOT ATOMIC DECLARE v_now BIGINT DEFAULT <now>; DECLARE v_prio INT DEFAULT :prio;
     *   DECLARE v_due BIGINT DEFAULT v_now + :delay;
     *   INSERT INTO jobs (...) VALUES (:payload0, v_prio, 0, v_due, 0, v_now), (...) RETURNING id; END
     * }</pre>
     *
     * Written out in each row ({@code (:payload0, :prio, 0, <now> + :delay, 0, <now>)}), the clock expression is
     * parsed and evaluated twice per row, about a quarter of the server's time per job of a batch of 100
     * (docs/mysql.md). The values are the same: the clock is the statement's start time either way. Rows are
     * inserted, and their ids returned, in the order of the {@code VALUES} list, which is payload order.
     *
     * @param rows the number of rows, 1 to {@link Chunks#MAX_ROWS}
     * @return the statement
     */
    Sql insertReturning(int rows) {
        Sql cached = inserts.get(rows);
        if (cached != null) {
            return cached;
        }
        boolean compound = dialect.compoundStatements();
        StringBuilder text = new StringBuilder(compound ? "BEGIN NOT ATOMIC DECLARE v_now BIGINT DEFAULT " + now
                + "; DECLARE v_prio INT DEFAULT :prio; DECLARE v_due BIGINT DEFAULT v_now + :delay; " : "")
                .append("INSERT INTO ").append(t.jobs())
                .append(" (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ");
        String row = compound ? ", v_prio, " + WorkTables.LIVE + ", v_due, 0, v_now)"
                : ", :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")";
        for (int r = 0; r < rows; r++) {
            text.append(r == 0 ? "(:payload" : ", (:payload").append(r).append(row);
        }
        Sql sql = Sql.of(text.append(compound ? " RETURNING id; END" : " RETURNING id").toString());
        inserts.set(rows, sql);
        return sql;
    }

    private void insertReturning(Connection c, List<String> payloads, List<Integer> rows, int priority, long delayMs,
                                 long[] ids) throws SQLException {
        Sql sql = insertReturning(rows.size());
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).setInt("prio", priority).set("delay", delayMs);
            for (int r = 0; r < rows.size(); r++) {
                b.set("payload" + r, payloads.get(rows.get(r)));
            }
            b.done();
            int[] read = {0};
            // execute(), not executeQuery(): MySQL Connector/J refuses executeQuery() for a statement that does not
            // start with SELECT, even though MariaDB answers INSERT ... RETURNING with a result set
            Compound.execute(ps, rs -> {
                if (read[0] == rows.size()) {
                    throw new SQLException("INSERT ... RETURNING returned more than " + rows.size() + " ids for "
                            + t.jobs());
                }
                ids[rows.get(read[0]++)] = rs.getLong(1);
            });
            if (read[0] != rows.size()) {
                throw new SQLException("INSERT ... RETURNING returned " + read[0] + " ids for " + rows.size()
                        + " rows of " + t.jobs());
            }
        }
    }

    // ---------------------------------------------------------------- claim

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        if (path != MySqlDialect.ClaimPath.SKIP_LOCKED) {
            return SqlOp.transaction(c -> claimByLastInsertId(c, max, leaseMs, token));
        }
        SqlOp<List<Job>> transaction = SqlOp.transaction(c -> claimSkipLocked(c, max, leaseMs, token));
        if (!dialect.compoundStatements()) {
            return transaction;
        }
        return Compound.orTransaction(
                c -> compoundClaim(c, NONE, NONE, max, leaseMs, token).claimed(), transaction);
    }

    /**
     * Acks and claims in one compound statement (MariaDB, auto-commit mode); inside a caller's transaction, and on
     * MySQL, as the default: the acks, then the claim, in one transaction.
     */
    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
        SqlOp<AckedAndClaimed> transaction = portable.ackAndClaim(ids, tokens, max, leaseMs, token);
        if (path != MySqlDialect.ClaimPath.SKIP_LOCKED || !dialect.compoundStatements()) {
            return transaction;
        }
        return Compound.orTransaction(c -> compoundClaim(c, ids, tokens, max, leaseMs, token), transaction);
    }

    /**
     * A claim under a rule as one compound statement (MariaDB with SKIP LOCKED): fair claims, and claims with a limit
     * of 1, where one statement takes at most one job per key ({@link #compound(int, ClaimRule)}); a higher limit takes
     * the generic rounds in a transaction. On a Group Replication member a claim with a per-key limit runs the generic
     * statements in a REPEATABLE READ transaction of its own ({@link #ownTransaction}). Both as {@link #keyedOwn}.
     * Inside a caller's transaction, and elsewhere on MySQL, the generic transaction.
     */
    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule) {
        if (groupMemberKeyed(rule) || compoundKeyed(rule)) {
            SqlOp<AckedAndClaimed> claim = ackAndClaim(NONE, NONE, max, leaseMs, token, rule);
            return SqlOp.statement(c -> claim.run(c).claimed());
        }
        return null; // the portable claim under the rule
    }

    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                              ClaimRule rule) {
        SqlOp<AckedAndClaimed> transaction = portable.ackAndClaim(ids, tokens, max, leaseMs, token, rule);
        if (groupMemberKeyed(rule)) {
            return keyedOwn(ids, tokens, rule, c -> ownTransaction(c, transaction::run), transaction);
        }
        if (!compoundKeyed(rule)) {
            return transaction;
        }
        return keyedOwn(ids, tokens, rule, c -> compoundClaim(c, ids, tokens, max, leaseMs, token, rule),
                transaction);
    }

    /** @return whether a claim under the rule runs in {@link #ownTransaction} (a Group Replication member) */
    private boolean groupMemberKeyed(ClaimRule rule) {
        return groupMember && rule.limited();
    }

    /**
     * A claim under a rule that runs in a transaction of its own in auto-commit mode ({@code own}: MariaDB's compound
     * statement, or {@link #ownTransaction} on a Group Replication member), and inside a caller's transaction as the
     * plain statements. On a multi-master cluster (Galera, multi-primary Group Replication), with a per-key limit:
     * a claim without acks first asks {@link #nothingClaimable}; and a claim that loses a certification race (another
     * node's claim bumped the gate first: 1213, 3101, 1180, its transaction rolled back whole) has claimed nothing,
     * and says so: its acks run alone, in a transaction of their own, and it returns them with no job, instead of the
     * core retrying the claim. Under a steady stream of claims from every node, those retries were what made a claim
     * fail: each attempt races every other node's claims, and the kit's 8-consumer keyed rule on three Group
     * Replication members saw claims that lost 19 to 23 times in a row, one short of the 24 attempts, after which the
     * claim fails and the jobs its consumer held wait for their leases to run out (docs/mysql.md). Another claim won
     * each lost race, so the queue moves on; the loser's caller claims again as after any empty claim.
     *
     * @param ids         the jobs to ack
     * @param tokens      their lease tokens
     * @param rule        the rule
     * @param own         the claim in a transaction of its own, on a connection in auto-commit mode
     * @param transaction the claim as plain statements, for a caller's transaction
     * @return the operation
     */
    private SqlOp<AckedAndClaimed> keyedOwn(long[] ids, long[] tokens, ClaimRule rule,
                                            Compound.Body<AckedAndClaimed> own,
                                            SqlOp<AckedAndClaimed> transaction) {
        return SqlOp.statement(c -> {
            if (!c.getAutoCommit()) {
                return transaction.run(c);
            }
            if (nothingClaimable(c, rule, ids.length)) {
                return new AckedAndClaimed(Set.of(), List.of());
            }
            try {
                return own.run(c);
            } catch (SQLException e) {
                if (!multiMaster || !rule.limited() || dialect.classify(e) != SqlErrorKind.ROLLED_BACK) {
                    throw e;
                }
                Set<Long> acked = new HashSet<>();
                if (ids.length > 0) {
                    ownTransaction(c, inTransaction -> {
                        for (int i = 0; i < ids.length; i++) {
                            if (portable.ack(ids[i], tokens[i]).run(inTransaction)) {
                                acked.add(ids[i]);
                            }
                        }
                        return null;
                    });
                }
                return new AckedAndClaimed(acked, List.of());
            }
        });
    }

    /**
     * Runs statements in a REPEATABLE READ transaction of their own on a connection in auto-commit mode
     * ({@code SET TRANSACTION ISOLATION LEVEL REPEATABLE READ}, {@code START TRANSACTION}, the statements,
     * {@code COMMIT}; {@code ROLLBACK} on any failure, a failed {@code COMMIT}'s included).
     *
     * <p>Why REPEATABLE READ, for the keyed claim on a Group Replication member: the claim holds the gate row while it
     * reads, and when another member's claim that bumped the gate is applied here, Group Replication's applier rolls
     * the holder back from its own thread (the holder then gets 1213). MySQL 9.7.4 crashed in that race (SIGSEGV in
     * {@code MVCC::view_close} <- {@code ha_innobase::external_lock} <- {@code mysql_unlock_read_tables} <-
     * {@code JOIN::join_free}): at READ COMMITTED InnoDB closes a transaction's read view at the end of every
     * statement, and it closed one the applier's rollback was releasing; the kit's 8-consumer keyed rule hit it within
     * two minutes of looping, with the candidate query written with subqueries and with joins alike (docs/mysql.md).
     * At REPEATABLE READ statements never close the read view. It is created by the first read, after the gate is
     * held, so the counts of leased jobs still include every earlier claim's; rows changed after it are only written
     * by the lease's conditional update, which checks their latest version, so the claim stays correct.
     *
     * @param c    a connection in auto-commit mode
     * @param body the statements
     * @param <R>  the result type
     * @return what the statements returned
     * @throws SQLException from the driver; the transaction is rolled back
     */
    private static <R> R ownTransaction(Connection c, Compound.Body<R> body) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            s.execute("START TRANSACTION");
            try {
                R result = body.run(c);
                s.execute("COMMIT");
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    s.execute("ROLLBACK"); // after a failed COMMIT too: nothing is left open for the next statement
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }

    /**
     * Whether a claim with a per-key limit and no acks on a multi-master cluster (Galera, multi-primary Group
     * Replication) finds no candidate at all, read before the claim gate is taken: then it returns nothing and writes
     * nothing. Every limited claim bumps the gate row, and on such a cluster two claims that bump it on different
     * nodes at once fail certification, the loser rolled back and retried (1213, 3101, 1180), so claims that find
     * nothing (consumers polling a queue whose keys are all at their limit) made the claims that find jobs lose. A
     * read that finds no candidate is a moment at which nothing was claimable, which is what an empty claim reports.
     * Elsewhere, and with acks (which may free a key), the claim runs as it is.
     *
     * @param c    a connection in auto-commit mode
     * @param rule the rule
     * @param acks how many jobs the claim acks first
     * @return whether the claim can return nothing without running
     * @throws SQLException from the driver
     */
    private boolean nothingClaimable(Connection c, ClaimRule rule, int acks) throws SQLException {
        return multiMaster && rule.limited() && acks == 0 && keyedCandidates(c, rule, 1).isEmpty();
    }

    /**
     * On a Group Replication member, the candidates of a claim under a per-key limit, found without the correlated
     * subqueries of {@link Portable#keyedCandidatesSql} (MySQL 9.7.4 crashed, SIGSEGV in {@code MVCC::view_close}, when the
     * group's applier rolled back such a claim: docs/mysql.md): a window of due jobs in claim order, then, for the keys
     * in it, their unexpired leases and their first due round in one grouped query over the key index (and the lowest
     * id of that round, where the window does not show it); a candidate is a job
     * without a key, or its key's next job while the key is below its limit, one per key. A window whose jobs all
     * belong to keys at their limit is widened, as the compound claim's is. Elsewhere, the statement of
     * {@link Portable#keyedCandidatesSql}.
     */
    @Override
    public List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
        if (!groupMember || !rule.limited()) {
            return portable.keyedCandidates(c, rule, n);
        }
        for (int window = Math.max(4 * n, 32); ; window *= 4) {
            List<Due> due = new ArrayList<>();
            Sql sql = memberWindow.computeIfAbsent(rule, r -> Sql.of("SELECT j.id, j.job_key, j.key_seq FROM "
                    + t.jobs() + " j WHERE " + JobRules.claimable("j", now) + portable.keyedOrder(r)
                    + " LIMIT :window"));
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).setInt("window", window).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        due.add(new Due(rs.getLong(1), dialect.readKey(rs, 2), rs.getLong(3)));
                    }
                }
            }
            List<Long> chosen = chooseCandidates(c, rule, n, due);
            if (chosen.size() >= n || due.size() < window || window >= MAX_MEMBER_WINDOW) {
                return chosen;
            }
        }
    }

    /** The widest window {@link #keyedCandidates} reads on a Group Replication member. */
    private static final int MAX_MEMBER_WINDOW = 8_192;
    private final java.util.Map<ClaimRule, Sql> memberWindow = new java.util.concurrent.ConcurrentHashMap<>();

    /** A due job of a window: its id, key and round. */
    private record Due(long id, String key, long seq) {
    }

    private List<Long> chooseCandidates(Connection c, ClaimRule rule, int n, List<Due> due) throws SQLException {
        List<String> keys = due.stream().map(Due::key).filter(java.util.Objects::nonNull).distinct().toList();
        java.util.Map<String, Long> leased = new java.util.HashMap<>();
        java.util.Map<String, Long> firstRound = new java.util.HashMap<>();
        String dueJob = JobRules.claimable("l", now);
        if (!keys.isEmpty()) { // one grouped read of the keys' live jobs: their unexpired leases, their first due round
            StringBuilder list = new StringBuilder();
            for (int i = 0; i < keys.size(); i++) {
                list.append(i == 0 ? ":k" : ", :k").append(i);
            }
            Sql sql = Sql.of("SELECT l.job_key, SUM(CASE WHEN l.lease_token IS NOT NULL AND l.due_ms > " + now
                    + " THEN 1 ELSE 0 END), MIN(CASE WHEN l.due_ms <= " + now + " THEN l.key_seq END) FROM "
                    + t.jobs() + " l WHERE l.job_key IN (" + list + ") AND l.state = " + WorkTables.LIVE
                    + " GROUP BY l.job_key");
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps);
                for (int i = 0; i < keys.size(); i++) {
                    b.set("k" + i, keys.get(i));
                }
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String key = dialect.readKey(rs, 1);
                        leased.put(key, rs.getLong(2));
                        long round = rs.getLong(3);
                        if (!rs.wasNull()) {
                            firstRound.put(key, round);
                        }
                    }
                }
            }
        }
        java.util.Map<String, Long> firstId = new java.util.HashMap<>();
        for (Due d : due) { // the key's next job: lowest round, then lowest id, among its due jobs (ids: below)
            if (d.key() != null && firstRound.get(d.key()) != null && d.seq() == firstRound.get(d.key())) {
                firstId.merge(d.key(), d.id(), Math::min);
            }
        }
        if (!firstId.isEmpty()) { // a due job of that round outside the window may have a lower id
            List<String> tied = List.copyOf(firstId.keySet());
            StringBuilder rounds = new StringBuilder();
            for (int i = 0; i < tied.size(); i++) {
                rounds.append(i == 0 ? "" : " OR ").append("(l.job_key = :k").append(i).append(" AND l.key_seq = :s")
                        .append(i).append(')');
            }
            Sql lowest = Sql.of("SELECT l.job_key, MIN(l.id) FROM " + t.jobs() + " l WHERE (" + rounds + ") AND "
                    + dueJob + " GROUP BY l.job_key");
            try (PreparedStatement ps = lowest.prepare(c)) {
                Sql.Binder b = dialect.bind(lowest, ps);
                for (int i = 0; i < tied.size(); i++) {
                    b.set("k" + i, tied.get(i)).set("s" + i, firstRound.get(tied.get(i)));
                }
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        firstId.put(dialect.readKey(rs, 1), rs.getLong(2));
                    }
                }
            }
        }
        List<Long> chosen = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        for (Due d : due) {
            if (chosen.size() == n) {
                break;
            }
            if (d.key() == null) {
                chosen.add(d.id());
            } else if (leased.getOrDefault(d.key(), 0L) < rule.maxLeasedPerKey()
                    && Long.valueOf(d.id()).equals(firstId.get(d.key())) && taken.add(d.key())) {
                chosen.add(d.id());
            }
        }
        return chosen;
    }

    /** @return whether a claim under the rule runs as one compound statement */
    private boolean compoundKeyed(ClaimRule rule) {
        return !rule.plain() && rule.maxLeasedPerKey() <= 1 && path == MySqlDialect.ClaimPath.SKIP_LOCKED
                && dialect.compoundStatements();
    }

    /**
     * The skip-locked claim as one compound statement (MariaDB), in a READ COMMITTED transaction of its own: the
     * acks' {@code DELETE}s if any (their results come back as one flag per ack in the summary row), then a
     * consistent (lock-free) read of a window of candidate ids in claim order, then each candidate locked by its
     * primary key with {@code FOR UPDATE SKIP LOCKED} (still claimable, not held by another consumer), leased, and
     * returned as a result set of one row, until the batch is full. Locking through the claim index instead makes
     * InnoDB check every delete-marked entry that leases and acks leave at the head of the index until purge removes
     * them, which makes a claim several times slower while purge lags; the lock-free read passes them cheaply, though
     * it still visits each of them, and with purge behind it is most of the cost of a one-job claim (docs/mysql.md).
     * A window whose candidates were all taken by other consumers is widened, up
     * to {@link Claims#CLAIM_ROUNDS} rounds, or {@link Claims#EMPTY_CLAIM_ROUNDS} while the claim has no job yet (the
     * acks run in the first only).
     */
    private AckedAndClaimed compoundClaim(Connection c, long[] ids, long[] tokens, int max, long leaseMs, long token)
            throws SQLException {
        return compoundClaim(c, ids, tokens, max, leaseMs, token, ClaimRule.PLAIN);
    }

    private AckedAndClaimed compoundClaim(Connection c, long[] ids, long[] tokens, int max, long leaseMs, long token,
                                          ClaimRule rule) throws SQLException {
        List<Locked> locked = new ArrayList<>();
        Set<Long> acked = new HashSet<>();
        // under a per-key limit the claims take turns, so no racer takes candidates: a window of the batch, not more
        // (each candidate of a keyed window costs two index lookups)
        int window = rule.limited() ? max : Math.max(4 * max, 32);
        for (int round = 0; Claims.anotherRound(round, locked.size()) && locked.size() < max;
             round++, window = (int) Math.min(4L * window, Integer.MAX_VALUE / 4)) {
            int acks = round == 0 ? ids.length : 0;
            Sql sql = rule.plain() ? (acks == 0 ? compoundClaim : acks == 1 ? compoundAckOneAndClaim : compound(acks))
                    : acks <= 1 ? keyedCompound.computeIfAbsent(rule + "/" + acks, k -> compound(acks, rule))
                    : compound(acks, rule);
            int[] seen = {-1};
            String[] ackedFlags = {""};
            int before = locked.size();
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).setInt("window", window).setInt("n", max - before)
                        .set("token", token).set("lease", leaseMs);
                if (sql.has("cursor")) {
                    b.set("cursor", WorkTables.CLAIM_GATE);
                }
                KeyedClaims.perKey(sql, b, rule);
                for (int i = 0; i < acks; i++) {
                    b.set("a" + i, ids[i]).set("t" + i, tokens[i]);
                }
                b.done();
                Compound.execute(ps, rs -> {
                    if (rs.getMetaData().getColumnCount() == 2) {
                        seen[0] = rs.getInt("seen");
                        ackedFlags[0] = rs.getString("acked");
                    } else {
                        locked.add(locked(rs));
                    }
                });
            } catch (SQLException e) {
                if (round == 0) {
                    throw e;
                }
                // each round commits on its own: the earlier rounds' acks and leases stand, and thrown away here they
                // would strand the leased jobs until their leases end (on Galera, a later round that lost a
                // certification race did); the failed round's rows were rolled back with it
                locked.subList(before, locked.size()).clear();
                break;
            }
            if (seen[0] < 0 || ackedFlags[0] == null || ackedFlags[0].length() != acks) {
                throw new SQLException("the claim's compound statement on " + t.jobs() + " returned no summary");
            }
            for (int i = 0; i < acks; i++) {
                if (ackedFlags[0].charAt(i) != '0') {
                    acked.add(ids[i]);
                }
            }
            if (seen[0] < window) {
                break; // the window held every claimable job: there is no more to find
            }
        }
        return new AckedAndClaimed(acked, leased(locked, leaseMs, token));
    }

    /** A job as locked by the candidate query, with the server time the query ran at. */
    private record Locked(long id, String payload, int prio, int attempts, long enqueuedMs, String lastError,
                          boolean leasedBefore, long nowMs, String key) {
    }

    private List<Job> claimSkipLocked(Connection c, int max, long leaseMs, long token) throws SQLException {
        List<Locked> locked = new ArrayList<>();
        try (PreparedStatement ps = lockBatch.prepare(c)) {
            dialect.bind(lockBatch, ps).setInt("n", max).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.add(locked(rs));
                }
            }
        }
        if (locked.isEmpty()) {
            return List.of();
        }
        long until = locked.get(0).nowMs() + leaseMs;
        List<Long> ids = locked.stream().map(Locked::id).toList();
        Sql lease = Sql.of("UPDATE " + t.jobs() + " SET " + JobRules.leaseUntil("", ":until") + " WHERE id IN ("
                + Jdbc.parameterList(ids.size(), "id") + ")");
        int leased;
        try (PreparedStatement ps = lease.prepare(c)) {
            Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("until", until), "id", ids).done();
            leased = ps.executeUpdate();
        }
        if (leased != ids.size()) {
            throw new SQLException("leased " + leased + " of " + ids.size() + " jobs of " + t.jobs()
                    + " locked with FOR UPDATE SKIP LOCKED; is the table an InnoDB table?");
        }
        return leased(locked, leaseMs, token);
    }

    /** @return a locked job as the claim's query returned it (its columns, and the server time {@code now_ms}) */
    private Locked locked(ResultSet rs) throws SQLException {
        rs.getLong("lease_token");
        boolean leasedBefore = !rs.wasNull();
        return new Locked(rs.getLong("id"), Jdbc.text(rs.getString("payload")), rs.getInt("prio"),
                rs.getInt("attempts"), rs.getLong("enqueued_ms"), rs.getString("last_error"), leasedBefore,
                rs.getLong("now_ms"), dialect.readKey(rs, "job_key"));
    }

    /** @return the jobs of a claim, as leased until the claim's server time plus the lease */
    private static List<Job> leased(List<Locked> locked, long leaseMs, long token) {
        if (locked.isEmpty()) {
            return List.of();
        }
        long until = locked.get(0).nowMs() + leaseMs;
        List<Job> jobs = new ArrayList<>(locked.size());
        for (Locked j : locked) {
            jobs.add(new Job(j.id(), j.payload(), j.prio(),
                    JobRules.attemptsAfterLease(j.attempts(), j.leasedBefore()), Instant.ofEpochMilli(j.enqueuedMs()),
                    Instant.ofEpochMilli(until), j.lastError(), token, j.key()));
        }
        return jobs;
    }

    private List<Job> claimByLastInsertId(Connection c, int max, long leaseMs, long token) throws SQLException {
        List<Long> ids = new ArrayList<>();
        for (int round = 0; Claims.anotherRound(round, ids.size()) && ids.size() < max; round++) {
            List<Long> candidates = portable.claims().select(c, candidateIds, max - ids.size(), -1);
            if (candidates.isEmpty()) {
                break;
            }
            int before = ids.size();
            Sql claim = claimOneOf(candidates.size());
            try (PreparedStatement ps = c.prepareStatement(claim.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
                while (ids.size() - before < candidates.size()) {
                    Jdbc.bindList(dialect.bind(claim, ps).set("token", token).set("lease", leaseMs), "id",
                            candidates).done();
                    if (ps.executeUpdate() == 0) {
                        break; // nothing left to claim: LAST_INSERT_ID() still holds an older value, do not read it
                    }
                    ids.add(LastInsertId.read(c, ps));
                }
            }
            if (ids.size() - before == candidates.size()) {
                break; // no race lost
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        Sql read = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM " + t.jobs() + " WHERE id IN ("
                + Jdbc.parameterList(ids.size(), "id") + ") AND lease_token = :token");
        try (PreparedStatement ps = read.prepare(c)) {
            Jdbc.bindList(dialect.bind(read, ps).set("token", token), "id", ids).done();
            return Claims.inOrder(Jdbc.jobs(ps, dialect), ids);
        }
    }

    /**
     * The concurrent-reads article's claim, bounded to candidates: the primary key is forced so that the statement
     * locks only rows a consistent read saw committed and claimable, never an uncommitted job of an open transaction (a
     * transactional outbox), which a scan of the claim index would wait for.
     *
     * @param candidates the number of candidate ids
     * @return the statement
     */
    Sql claimOneOf(int candidates) {
        return Sql.of("UPDATE " + t.jobs() + " FORCE INDEX (PRIMARY) SET " + JobRules.lease(now)
                + ", id = LAST_INSERT_ID(id) WHERE id IN (" + Jdbc.parameterList(candidates, "id") + ") AND "
                + JobRules.claimable(now) + " ORDER BY prio DESC, due_ms, id LIMIT 1");
    }

}
