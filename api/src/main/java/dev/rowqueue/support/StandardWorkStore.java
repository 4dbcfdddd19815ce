package dev.rowqueue.support;

import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueStats;
import dev.rowqueue.support.Claims;
import dev.rowqueue.support.DeadLetters;
import dev.rowqueue.support.KeyedClaims;
import dev.rowqueue.support.Rotation;
import dev.rowqueue.support.WorkStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The portable work queue. A claim selects candidate ids in claim order, then leases them with a conditional
 * {@code UPDATE} that repeats the claimability test ({@link JobRules#claimable}). Databases re-evaluate
 * an UPDATE's condition on the latest committed row after waiting for a row lock, so when two consumers race for a
 * row, the loser's update matches nothing and the job is never leased twice. Where the dialect has
 * {@link Dialect#skipLocked()}, candidates are locked as they are selected and racers skip them.
 *
 * <p>A database's {@link WorkStatements} replace steps with fewer round trips (an enqueue or a claim in one statement,
 * a lease that returns the jobs, the cursor's upsert) or find candidates in unlocked windows; dialects with more to
 * change override {@link #leaseAndRead} or {@link #claim}.
 */
public class StandardWorkStore implements WorkStore {

    /** How many rounds a claim that has jobs but fewer than it asked for runs, losing candidates to other consumers. */
    protected static final int CLAIM_ROUNDS = 3;

    /**
     * How many rounds a claim that has no job yet runs while it finds candidates and loses them all to other
     * consumers. An empty claim must mean that nothing was left for the claimer (consumers stop at their first one),
     * and each lost round means racers took jobs, so the rounds end when the claimable jobs do; this only bounds a
     * claim that keeps losing.
     */
    protected static final int EMPTY_CLAIM_ROUNDS = 32;

    /**
     * @param round    the rounds run so far
     * @param claimed  the jobs the claim has
     * @return whether the claim may run another round (it still wants jobs and the last round lost some)
     */
    protected static boolean anotherRound(int round, int claimed) {
        return round < (claimed == 0 ? EMPTY_CLAIM_ROUNDS : CLAIM_ROUNDS);
    }

    /** How many times an enqueue with a unique key inserts after the live job that held the key ended meanwhile. */
    protected static final int UNIQUE_ATTEMPTS = KeyedClaims.UNIQUE_ATTEMPTS;

    /**
     * How statements on one job found by its primary key (ack, nack, release, lease extension, burial) begin, and
     * their test that the job is live. A dialect's store changes them where its planner needs it (an index hint, a
     * test a partial index cannot match).
     *
     * @param update the beginning of the {@code UPDATE}, before {@code SET}
     * @param delete the beginning of the {@code DELETE}, before {@code WHERE}
     * @param live   the condition that the job is live
     */
    public record ById(String update, String delete, String live) {
        /**
         * @param t the queue's tables
         * @return {@code UPDATE <jobs>}, {@code DELETE FROM <jobs>} and {@code state = 0}
         */
        public static ById standard(WorkTables t) {
            return new ById("UPDATE " + t.jobs(), "DELETE FROM " + t.jobs(), "state = " + WorkTables.LIVE);
        }

        /**
         * @param condition another liveness test
         * @return these forms with it
         */
        public ById withLive(String condition) {
            return new ById(update, delete, condition);
        }
    }

    /** The dialect. */
    protected final Dialect dialect;
    /** The queue's tables. */
    protected final WorkTables t;
    /** The dialect's current-time expression. */
    protected final String now;
    /** How statements on one job found by its primary key begin. */
    protected final ById byId;

    private final Leases leases;
    private final JobReads reads;
    private final Map<ClaimRule, Sql> keyedCandidates = new ConcurrentHashMap<>();
    private final WorkStatements statements;
    private final Claims claims;
    private final DeadLetters deadLetters;
    private final Rotation rotation;
    private final KeyedClaims keyed;
    private final KeyedClaims.Steps keyedSteps = new KeyedClaims.Steps() {
        @Override
        public OptionalLong liveUnique(Connection c, String uniqueKey) throws SQLException {
            return keyed.liveUnique(c, uniqueKey);
        }

        @Override
        public long keyRound(Connection c, String key) throws SQLException {
            return keyed.keyRound(c, key);
        }

        @Override
        public long insertKeyed(Connection c, String payload, int priority, long delayMs, String key,
                                String uniqueKey, long round) throws SQLException {
            return StandardWorkStore.this.insertKeyed(c, payload, priority, delayMs, key, uniqueKey, round);
        }

        @Override
        public List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
            return StandardWorkStore.this.keyedCandidates(c, rule, n);
        }

        @Override
        public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
            return StandardWorkStore.this.leaseAndRead(c, ids, leaseMs, token);
        }

        @Override
        public boolean anotherRound(int round, int claimed) {
            return StandardWorkStore.anotherRound(round, claimed);
        }
    };
    private final Rotation.Steps rotationSteps = new Rotation.Steps() {
        @Override
        public long lockCursor(Connection c, String cursor) throws SQLException {
            return StandardWorkStore.this.lockCursor(c, cursor);
        }

        @Override
        public List<Long> candidates(Connection c, boolean after, int n, long last) throws SQLException {
            return StandardWorkStore.this.candidates(c, after ? Claims.Kind.AFTER : Claims.Kind.UP_TO, n, last);
        }

        @Override
        public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
            return StandardWorkStore.this.leaseAndRead(c, ids, leaseMs, token);
        }
    };

    /**
     * @param dialect the dialect
     * @param tables  the queue's tables
     */
    public StandardWorkStore(Dialect dialect, WorkTables tables) {
        this(dialect, tables, ById.standard(tables));
    }

    /**
     * @param dialect    the dialect
     * @param tables     the queue's tables
     * @param statements the database's own statements, replacing the portable steps they name
     */
    public StandardWorkStore(Dialect dialect, WorkTables tables, WorkStatements statements) {
        this(dialect, tables, ById.standard(tables), statements);
    }

    /**
     * @param dialect the dialect
     * @param tables  the queue's tables
     * @param byId    how statements on one job found by its primary key begin
     */
    protected StandardWorkStore(Dialect dialect, WorkTables tables, ById byId) {
        this(dialect, tables, byId, WorkStatements.PORTABLE);
    }

    /**
     * @param dialect    the dialect
     * @param tables     the queue's tables
     * @param byId       how statements on one job found by its primary key begin
     * @param statements the database's own statements, replacing the portable steps they name
     */
    protected StandardWorkStore(Dialect dialect, WorkTables tables, ById byId, WorkStatements statements) {
        this.dialect = dialect;
        this.t = tables;
        this.now = dialect.nowMillis();
        this.byId = byId;
        this.statements = statements;
        this.claims = new Claims(dialect, tables, statements, EMPTY_CLAIM_ROUNDS);
        this.deadLetters = new DeadLetters(dialect, tables, byId.update(), byId.live());
        this.rotation = new Rotation(dialect, tables);
        this.keyed = new KeyedClaims(dialect, tables);
        this.leases = new Leases(dialect, tables, byId);
        this.reads = new JobReads(dialect, tables, byId);
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        return claims.enqueue(payloads, priority, delayMs);
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        if (statements.claim() != null) {
            Sql claimable = statements.claimable();
            return SqlOp.statement(c -> {
                if (claimable != null) {
                    try (PreparedStatement ps = claimable.prepare(c)) {
                        dialect.bind(claimable, ps).done();
                        if (Jdbc.firstLong(ps).isEmpty()) {
                            return List.of(); // nothing to claim, and no write lock taken for it
                        }
                    }
                }
                return claims.returning(c, statements.claim(), max, leaseMs, token);
            });
        }
        return SqlOp.transaction(c -> {
            List<Job> claimed = new ArrayList<>();
            for (int round = 0; anotherRound(round, claimed.size()) && claimed.size() < max; round++) {
                List<Long> ids = candidates(c, Claims.Kind.CLAIM, max - claimed.size(), -1);
                if (ids.isEmpty()) {
                    break;
                }
                List<Job> leased = leaseAndRead(c, ids, leaseMs, token);
                claimed.addAll(leased);
                if (leased.size() == ids.size()) {
                    break; // got every candidate: no race lost, nothing more to gain from another round
                }
            }
            return claimed;
        });
    }

    // ---------------------------------------------------------------- keys

    /**
     * Inserts each job with its key and its round ({@link KeyedClaims#keyRound}); with a unique key, first looks for
     * the live job holding it, and inserts only if there is none, under a savepoint: a producer that loses the race (a
     * unique-key violation: a concurrent producer's job committed first, or is about to, and the insert waited for
     * it) rolls back to the savepoint and reads the winner's id, or, if that job already ended, inserts again.
     */
    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs, String key, String uniqueKey) {
        if (key == null && uniqueKey == null) {
            return enqueue(payloads, priority, delayMs);
        }
        if (uniqueKey != null && payloads.size() != 1) {
            throw new IllegalArgumentException("a unique key names one job; got " + payloads.size() + " payloads");
        }
        return SqlOp.transaction(c -> {
            beforeKeyedReads(c);
            return keyed.enqueue(c, keyedSteps, payloads, priority, delayMs, key, uniqueKey);
        });
    }

    /**
     * Runs first in the transaction of a keyed enqueue or claim; nothing by default. A store whose database must take
     * its write lock before the transaction reads (the portable dialect on SQLite) writes here.
     *
     * @param c a connection in a transaction
     * @throws SQLException from the driver
     */
    protected void beforeKeyedReads(Connection c) throws SQLException {
    }

    /**
     * Inserts one job with its key columns ({@link KeyedClaims#insertKeyed}).
     *
     * @param c         a connection
     * @param payload   the payload
     * @param priority  the priority
     * @param delayMs   the delay
     * @param key       the job key, or {@code null}
     * @param uniqueKey the unique key, or {@code null}
     * @param round     {@code key_seq}
     * @return the new id
     * @throws SQLException from the driver, a unique-key violation included
     */
    protected long insertKeyed(Connection c, String payload, int priority, long delayMs, String key, String uniqueKey,
                               long round) throws SQLException {
        return keyed.insertKeyed(c, payload, priority, delayMs, key, uniqueKey, round);
    }

    /**
     * A claim under a rule, in one transaction: with a per-key limit, the claim gate first ({@link #lockGate}), then
     * rounds of {@link #keyedCandidates} leased with {@link #leaseAndRead} ({@link #keyedRounds}).
     */
    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule) {
        if (rule.plain()) {
            return claim(max, leaseMs, token);
        }
        return SqlOp.transaction(c -> {
            beforeKeyedReads(c);
            if (rule.limited()) {
                lockGate(c);
            }
            return keyedRounds(c, max, leaseMs, token, rule);
        });
    }

    /** The claim gate, then the acks, then the claim's rounds, in one transaction. */
    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                              ClaimRule rule) {
        if (rule.plain()) {
            return ackAndClaim(ids, tokens, max, leaseMs, token);
        }
        return SqlOp.transaction(c -> {
            beforeKeyedReads(c);
            if (rule.limited()) {
                lockGate(c);
            }
            Set<Long> acked = new HashSet<>();
            for (int i = 0; i < ids.length; i++) {
                if (ack(ids[i], tokens[i]).run(c)) {
                    acked.add(ids[i]);
                }
            }
            return new AckedAndClaimed(acked, keyedRounds(c, max, leaseMs, token, rule));
        });
    }

    /**
     * Locks the queue's claim gate, the row {@link WorkTables#CLAIM_GATE} of the cursors table, until the transaction
     * ends, creating it if missing. Claims with a per-key limit take it first, so they run one at a time per queue,
     * across every node: each one's counts of leased jobs, read after it holds the gate, include every lease of the
     * claims before it. The statement changes the row ({@code last_id + 1}), so that databases that order only
     * writes (Galera certifies write sets, not row locks) order the gate too.
     *
     * @param c a connection in a transaction
     * @throws SQLException from the driver
     */
    protected void lockGate(Connection c) throws SQLException {
        lockGate(c, WorkTables.CLAIM_GATE);
    }

    /**
     * Bumps a gate row of the cursors table ({@code last_id + 1}), creating it if missing: the row is locked until the
     * transaction ends, and the write is certified where only writes are ordered across nodes.
     *
     * @param c    a connection in a transaction
     * @param name the gate's cursor name ({@link WorkTables#CLAIM_GATE})
     * @throws SQLException from the driver
     */
    protected final void lockGate(Connection c, String name) throws SQLException {
        rotation.lockGate(c, name);
    }


    /**
     * Claims in rounds of {@link #keyedCandidates} leased with {@link #leaseAndRead} ({@link KeyedClaims#rounds}).
     *
     * @param c       a connection in a transaction (holding the gate under a per-key limit)
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @param rule    the rule
     * @return the jobs, round by round, each round in its claim order
     * @throws SQLException from the driver
     */
    protected List<Job> keyedRounds(Connection c, int max, long leaseMs, long token, ClaimRule rule)
            throws SQLException {
        return keyed.rounds(c, keyedSteps, max, leaseMs, token, rule);
    }

    /**
     * Finds up to {@code n} candidates of a claim under a rule ({@link #keyedCandidatesSql}), locking them where the
     * dialect's {@link #keyedLocking} does.
     *
     * @param c    a connection in a transaction
     * @param rule the rule
     * @param n    the most ids
     * @return ids in claim order
     * @throws SQLException from the driver
     */
    protected List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
        if (claims.windows() != null) {
            Sql window = keyedCandidates.computeIfAbsent(rule, r -> Sql.of(keyedCandidatesSql(r,
                    statements.window().keyedLimit())));
            return claims.windows().claim(c, window, b -> perKey(window, b, rule), n);
        }
        Sql sql = keyedCandidates.computeIfAbsent(rule, r -> Sql.of(keyedCandidatesSql(r, keyedLocking("n"))));
        try (PreparedStatement ps = sql.prepare(c)) {
            perKey(sql, dialect.bind(sql, ps).limit("n", n), rule).done();
            return Jdbc.longs(ps);
        }
    }

    /**
     * Binds the per-key limit of a statement built with {@link #keyedCondition}, if it names one.
     *
     * @param sql  the statement
     * @param b    its binder
     * @param rule the claim rule
     * @return the binder
     * @throws SQLException from the driver
     */
    protected static Sql.Binder perKey(Sql sql, Sql.Binder b, ClaimRule rule) throws SQLException {
        return sql.has("per_key") ? b.setInt("per_key", rule.maxLeasedPerKey()) : b;
    }

    /**
     * The clauses after {@code ORDER BY} of {@link #keyedCandidatesSql}: the dialect's {@link Dialect#lockingLimit}
     * by default. A database whose locking reads would lock (and skip) the rows the query's subqueries count must
     * return its plain {@link Dialect#limit} here: the lease's conditional update then settles races.
     *
     * @param parameter the row limit parameter
     * @return the clauses
     */
    protected String keyedLocking(String parameter) {
        return dialect.lockingLimit(parameter);
    }

    /**
     * The candidates of a claim under a rule: due jobs, and, under a per-key limit, only a key's next job (none of the
     * key's due jobs comes before it in the key's order, {@code key_seq} then id) and only while the key has fewer
     * than the limit leased (a lease that has not run out). Jobs without a key are not limited. Ordered by round,
     * priority and id for fair claims, else by priority, due time and id. The leased jobs are counted with a scalar
     * subquery, not {@code NOT EXISTS}: a planner may run an {@code EXISTS} once for all rows (PostgreSQL's hashed
     * subplan, a scan of every leased job of the table), where a count per candidate is an index range on
     * {@code (job_key, lease_token)} of a few rows. The count comes first: most candidates a claim passes over
     * belong to keys at their limit, and it rules them out with one short lookup.
     *
     * <pre>{@code
     * SELECT j.id FROM <jobs> j WHERE j.state = 0 AND j.due_ms <= <now>
     *   AND (j.job_key IS NULL OR (
     *     (SELECT COUNT(*) FROM <jobs> l WHERE l.job_key = j.job_key AND l.lease_token IS NOT NULL
     *      AND l.state = 0 AND l.due_ms > <now>) < :per_key
     *     AND NOT EXISTS (SELECT 1 FROM <jobs> o WHERE o.job_key = j.job_key AND o.state = 0 AND o.due_ms <= <now>
     *                     AND (o.key_seq < j.key_seq OR (o.key_seq = j.key_seq AND o.id < j.id)))))
     * ORDER BY j.prio DESC, j.due_ms, j.id                                -- fair: j.key_seq, j.prio DESC, j.id
     * <locking limit :n>
     * }</pre>
     *
     * @param rule    the rule, not plain
     * @param locking the clauses after ORDER BY
     * @return the query
     */
    protected String keyedCandidatesSql(ClaimRule rule, String locking) {
        return "SELECT j.id FROM " + t.jobs() + " j WHERE " + JobRules.claimable("j", now)
                + keyedCondition(rule, alias -> "") + keyedOrder(rule) + locking;
    }

    /**
     * The per-key part of {@link #keyedCandidatesSql}'s condition ({@link KeyedClaims#condition}), with this store's
     * {@link #before}.
     *
     * @param rule  the rule
     * @param extra a further condition on the rows the subqueries look at, by their alias; "" for none
     * @return {@code " AND (j.job_key IS NULL OR (...))"}, or ""
     */
    protected String keyedCondition(ClaimRule rule, java.util.function.UnaryOperator<String> extra) {
        return keyed.condition(rule, extra, this::before);
    }

    /** @return the keyed statements' builder, for a dialect that composes its own claims from their parts */
    protected KeyedClaims keyedClaims() {
        return keyed;
    }

    /**
     * @param o the alias of a key's job
     * @param j the alias of the candidate
     * @return the condition that {@code o} comes before {@code j} in the key's order ({@code key_seq}, then id);
     *         SQL-92's form by default, a dialect with row value comparisons that its indexes serve may use those
     */
    protected String before(String o, String j) {
        return "(" + o + ".key_seq < " + j + ".key_seq OR (" + o + ".key_seq = " + j + ".key_seq AND " + o + ".id < "
                + j + ".id))";
    }

    /**
     * @param rule the rule
     * @return the candidates' {@code ORDER BY}, on alias {@code j}: by round, priority and id for fair claims, else by
     *         priority, due time and id. A dialect whose planner walks an index in order only when the ORDER BY names
     *         its leading columns too overrides this.
     */
    protected String keyedOrder(ClaimRule rule) {
        String leading = statements.window() == null ? "" : statements.window().keyedOrder();
        if (!leading.isEmpty()) {
            return " ORDER BY " + leading + "," + (rule.fair() ? " j.key_seq, j.prio DESC, j.id"
                    : " j.prio DESC, j.due_ms, j.id");
        }
        return rule.fair() ? " ORDER BY j.key_seq, j.prio DESC, j.id" : " ORDER BY j.prio DESC, j.due_ms, j.id";
    }

    @Override
    public SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token) {
        return SqlOp.transaction(c -> rotation.rotate(c, rotationSteps, cursor, max, leaseMs, token));
    }

    /**
     * Locks a rotation cursor's row for the transaction, creating it at position 0 if missing.
     *
     * @param c      a connection in a transaction
     * @param cursor the cursor name
     * @return its position
     * @throws SQLException from the driver
     */
    protected long lockCursor(Connection c, String cursor) throws SQLException {
        Sql upsert = statements.cursor();
        if (upsert != null) {
            try (PreparedStatement ps = upsert.prepare(c)) {
                dialect.bind(upsert, ps).set("cursor", cursor).done();
                return Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("the cursor upsert returned no row"));
            }
        }
        return rotation.lockCursor(c, cursor);
    }

    /**
     * Finds up to {@code n} claimable job ids (live, due), locking them where the dialect has
     * {@link Dialect#skipLocked()}. Dialects whose planner handles these queries badly override this.
     *
     * @param c    a connection in a transaction
     * @param kind claim order, or rotation before or after wrapping
     * @param n    the most ids wanted: bound to {@code :n}, or, where the query has no row limit (see
     *             {@link Dialect#lockingLimit}), set as the cursor's fetch size and maximum rows
     * @param last the rotation cursor's position (ignored for claims)
     * @return ids in the order the caller wants the jobs
     * @throws SQLException from the driver
     */
    protected List<Long> candidates(Connection c, Claims.Kind kind, int n, long last) throws SQLException {
        return claims.candidates(c, kind, n, last);
    }

    /**
     * Runs a candidate query: binds {@code :last} if the query has it, and limits the rows to {@code n}, through
     * {@code :n} or, where the query has no row limit (see {@link Dialect#lockingLimit}), on the cursor.
     *
     * @param c    a connection in a transaction
     * @param sql  a query returning ids
     * @param n    the most ids wanted
     * @param last the rotation cursor's position, if the query uses it
     * @return the ids in query order
     * @throws SQLException from the driver
     */
    protected List<Long> select(Connection c, Sql sql, int n, long last) throws SQLException {
        return claims.select(c, sql, n, last);
    }

    /**
     * Leases those of {@code ids} that are still claimable and reads them back.
     *
     * @param c       a connection in a transaction
     * @param ids     candidate ids in the order the caller wants the jobs
     * @param leaseMs the lease length
     * @param token   the lease token
     * @return the leased jobs, in the order of {@code ids}
     * @throws SQLException from the driver
     */
    protected List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        return claims.leaseAndRead(c, ids, leaseMs, token);
    }

    /**
     * @param jobs jobs in any order
     * @param ids  the wanted order
     * @return the jobs sorted by their position in {@code ids}
     */
    protected static List<Job> inOrder(List<Job> jobs, List<Long> ids) {
        return Claims.inOrder(jobs, ids);
    }

    /**
     * Runs a one-statement claim ({@link Claims#returning}).
     *
     * @param c       a connection
     * @param claim   the statement, binding {@code :n}, {@code :token} and {@code :lease}
     * @param max     the most jobs to claim
     * @param leaseMs the lease length
     * @param token   the lease token
     * @return the jobs in claim order
     * @throws SQLException from the driver
     */
    protected List<Job> claimReturning(Connection c, Sql claim, int max, long leaseMs, long token)
            throws SQLException {
        return claims.returning(c, claim, max, leaseMs, token);
    }

    @Override
    public SqlOp<Integer> bury(long[] ids, long token, String error) {
        return deadLetters.bury(ids, token, error);
    }

    @Override
    public SqlOp<List<Job>> dead(int limit) {
        return deadLetters.dead(limit);
    }

    @Override
    public SqlOp<Integer> revive(OptionalLong id) {
        return deadLetters.revive(id);
    }

    @Override
    public SqlOp<Integer> purgeDead() {
        return deadLetters.purge();
    }

    @Override
    public SqlOp<Boolean> ack(long id, long token) {
        return leases.ack(id, token);
    }

    @Override
    public SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        return leases.nack(id, token, delayMs, maxAttempts, error);
    }

    @Override
    public SqlOp<Boolean> release(long id, long token) {
        return leases.release(id, token);
    }

    @Override
    public SqlOp<Integer> releaseLeased(long[] tokens) {
        return leases.releaseAll(tokens);
    }

    @Override
    public SqlOp<Boolean> extend(long id, long token, long leaseMs) {
        return leases.extend(id, token, leaseMs);
    }

    @Override
    public SqlOp<Set<Long>> extendAll(long[] ids, long[] tokens, long leaseMs) {
        return leases.extendAll(ids, tokens, leaseMs);
    }

    @Override
    public SqlOp<QueueStats> stats() {
        return reads.stats();
    }

    @Override
    public SqlOp<Map<String, QueueStats>> statsByKey(int limit) {
        return reads.statsByKey(limit);
    }

    @Override
    public SqlOp<Optional<JobInfo>> job(long id) {
        return reads.job(id);
    }

    @Override
    public SqlOp<List<JobInfo>> jobs(JobState state, String key, boolean newestFirst, long after, int limit) {
        return reads.jobs(state, key, newestFirst, after, limit);
    }

    @Override
    public SqlOp<CancelOutcome> cancel(long id) {
        return reads.cancel(id);
    }
}
