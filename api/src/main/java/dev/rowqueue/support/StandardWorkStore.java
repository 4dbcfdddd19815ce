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
import dev.rowqueue.RateWindow;
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
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * The work queue's store: every dialect's. A claim selects candidate ids in claim order, then leases them with a
 * conditional {@code UPDATE} that repeats the claimability test ({@link JobRules#claimable}). Databases re-evaluate
 * an UPDATE's condition on the latest committed row after waiting for a row lock, so when two consumers race for a
 * row, the loser's update matches nothing and the job is never leased twice. Where the dialect has
 * {@link Dialect#skipLocked()}, candidates are locked as they are selected and racers skip them.
 *
 * <p>A database's {@link WorkStatements} replace steps with fewer round trips (an enqueue or a claim in one statement,
 * a lease that returns the jobs, the cursor's upsert, the claim gate) or find candidates in unlocked windows; where
 * statements do not say enough, its {@link WorkForms hooks} replace operations or steps. Each public operation asks
 * the hooks first and otherwise runs its portable form; the portable forms take their steps through the hooks too.
 */
public final class StandardWorkStore implements WorkStore {

    private final Dialect dialect;
    private final WorkTables t;
    private final String now;
    private final Leases leases;
    private final JobReads reads;
    private final Map<ClaimRule, Sql> keyedCandidates = new ConcurrentHashMap<>();
    private final WorkStatements statements;
    private final Claims claims;
    private final DeadLetters deadLetters;
    private final Rotation rotation;
    private final KeyedClaims keyed;
    private final RateRing rates;
    private final BinaryOperator<String> before;
    private final WorkForms forms;
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
            OptionalLong id = forms.insertKeyed(c, payload, priority, delayMs, key, uniqueKey, round);
            return id.isPresent() ? id.getAsLong()
                    : keyed.insertKeyed(c, payload, priority, delayMs, key, uniqueKey, round);
        }

        @Override
        public List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
            List<Long> ids = forms.keyedCandidates(c, rule, n);
            return ids != null ? ids : portable.keyedCandidates(c, rule, n);
        }

        @Override
        public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
            return StandardWorkStore.this.leaseAndRead(c, ids, leaseMs, token);
        }

        @Override
        public boolean anotherRound(int round, int claimed) {
            return Claims.anotherRound(round, claimed);
        }
    };
    private final Rotation.Steps rotationSteps = new Rotation.Steps() {
        @Override
        public long lockCursor(Connection c, String cursor) throws SQLException {
            return portable.lockCursor(c, cursor);
        }

        @Override
        public List<Long> candidates(Connection c, boolean after, int n, long last) throws SQLException {
            return claims.candidates(c, after ? Claims.Kind.AFTER : Claims.Kind.UP_TO, n, last);
        }

        @Override
        public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
            return StandardWorkStore.this.leaseAndRead(c, ids, leaseMs, token);
        }
    };
    private final PortableOperations portable = new PortableOperations();

    /**
     * @param dialect the dialect
     * @param tables  the queue's tables
     */
    public StandardWorkStore(Dialect dialect, WorkTables tables) {
        this(dialect, tables, WorkStatements.PORTABLE);
    }

    /**
     * @param dialect    the dialect
     * @param tables     the queue's tables
     * @param statements the database's own statements and hooks, replacing the portable steps they name
     */
    public StandardWorkStore(Dialect dialect, WorkTables tables, WorkStatements statements) {
        this.dialect = dialect;
        this.t = tables;
        this.now = dialect.nowMillis();
        WorkStatements.ById byId = statements.byId() != null ? statements.byId() : WorkStatements.ById.standard(tables);
        this.statements = statements;
        this.claims = new Claims(dialect, tables, statements, Claims.EMPTY_CLAIM_ROUNDS);
        this.deadLetters = new DeadLetters(dialect, tables, byId.update(), byId.live());
        this.rotation = new Rotation(dialect, tables);
        this.keyed = new KeyedClaims(dialect, tables);
        this.rates = new RateRing(dialect, tables, rotation);
        this.leases = new Leases(dialect, tables, byId);
        this.reads = new JobReads(dialect, tables, byId);
        this.before = statements.before() != null ? statements.before() : StandardWorkStore::sql92Before;
        this.forms = statements.forms() != null ? statements.forms().create(portable) : WorkForms.NONE;
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        SqlOp<long[]> form = forms.enqueue(payloads, priority, delayMs);
        return form != null ? form : claims.enqueue(payloads, priority, delayMs);
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        SqlOp<List<Job>> form = forms.claim(max, leaseMs, token);
        return form != null ? form : portable.claim(max, leaseMs, token);
    }

    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
        SqlOp<AckedAndClaimed> form = forms.ackAndClaim(ids, tokens, max, leaseMs, token);
        return form != null ? form : portable.ackAndClaim(ids, tokens, max, leaseMs, token);
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
        SqlOp<long[]> form = forms.enqueueKeyed(payloads, priority, delayMs, key, uniqueKey);
        return form != null ? form : portable.enqueue(payloads, priority, delayMs, key, uniqueKey);
    }

    /**
     * A claim under a rule, in one transaction: with a per-key limit, the claim gate first ({@link #lockGate}), then
     * rounds of candidates leased with {@link #leaseAndRead} ({@link KeyedClaims#rounds}). Under a rate limit, the
     * claim of the rule without it runs inside the limit's transaction ({@link RateRing}): the rate row locked first,
     * then at most as many jobs claimed as the limit allows now, then their starts written.
     */
    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule) {
        if (rule.rateLimited()) {
            ClaimRule inner = rule.withoutRate();
            return SqlOp.transaction(c -> rateLimited(c, rule, max, leaseMs, n -> claim(n, leaseMs, token, inner)));
        }
        if (rule.plain()) {
            return claim(max, leaseMs, token);
        }
        SqlOp<List<Job>> form = forms.claim(max, leaseMs, token, rule);
        return form != null ? form : portable.claim(max, leaseMs, token, rule);
    }

    /**
     * The claim gate, then the acks, then the claim's rounds, in one transaction. Under a rate limit: the rate row, the
     * acks, then the claim as {@link #claim(int, long, long, ClaimRule)} runs it.
     */
    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                              ClaimRule rule) {
        if (rule.rateLimited()) {
            ClaimRule inner = rule.withoutRate();
            return SqlOp.transaction(c -> {
                RateRing.Window window = rates.open(c, rule, max); // first: every rate-limited claim locks in one order
                Set<Long> acked = portable.ackAll(c, ids, tokens);
                return new AckedAndClaimed(acked, claimIn(c, window, leaseMs, n -> claim(n, leaseMs, token, inner)));
            });
        }
        if (rule.plain()) {
            return ackAndClaim(ids, tokens, max, leaseMs, token);
        }
        SqlOp<AckedAndClaimed> form = forms.ackAndClaim(ids, tokens, max, leaseMs, token, rule);
        return form != null ? form : portable.ackAndClaim(ids, tokens, max, leaseMs, token, rule);
    }

    /**
     * A claim under a rate limit, in the caller's transaction: the rate row locked and read ({@link RateRing#open}),
     * the claim of as many jobs as the limit allows now, and their starts written.
     *
     * @param c       a connection in a transaction
     * @param rule    the rate-limited rule
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param claim   the claim of {@code n} jobs without the rate limit
     * @return the jobs claimed
     * @throws SQLException from the driver
     */
    private List<Job> rateLimited(Connection c, ClaimRule rule, int max, long leaseMs,
                                  java.util.function.IntFunction<SqlOp<List<Job>>> claim) throws SQLException {
        return claimIn(c, rates.open(c, rule, max), leaseMs, claim);
    }

    private List<Job> claimIn(Connection c, RateRing.Window window, long leaseMs,
                              java.util.function.IntFunction<SqlOp<List<Job>>> claim) throws SQLException {
        if (window.allowed() == 0) {
            return List.of();
        }
        List<Job> jobs = claim.apply(window.allowed()).run(c);
        rates.record(c, window, jobs, leaseMs);
        return jobs;
    }

    /**
     * Runs the statements' first write ({@link WorkStatements#writeFirst}), if they have one.
     *
     * @param c a connection in a transaction
     * @throws SQLException from the driver
     */
    private void writeFirst(Connection c) throws SQLException {
        Sql write = statements.writeFirst();
        if (write != null) {
            try (PreparedStatement ps = write.prepare(c)) {
                dialect.bind(write, ps).done();
                ps.executeUpdate();
            }
        }
    }

    /**
     * Locks the queue's claim gate until the transaction ends: the statements' {@link WorkStatements#gate}, or the
     * row {@link WorkTables#CLAIM_GATE} of the cursors table, created if missing. Claims with a per-key limit take it
     * first, so they run one at a time per queue, across every node: each one's counts of leased jobs, read after it
     * holds the gate, include every lease of the claims before it. The portable statement changes the row
     * ({@code last_id + 1}), so that databases that order only writes (Galera certifies write sets, not row locks)
     * order the gate too.
     *
     * @param c a connection in a transaction
     * @throws SQLException from the driver
     */
    private void lockGate(Connection c) throws SQLException {
        Sql gate = statements.gate();
        if (gate == null) {
            rotation.lockGate(c, WorkTables.CLAIM_GATE);
            return;
        }
        try (PreparedStatement ps = gate.prepare(c)) {
            dialect.bind(gate, ps).done();
            if (ps.execute()) {
                ps.getResultSet().close();
            }
        }
    }

    /** SQL-92's form of "{@code o} comes before {@code j} in the key's order ({@code key_seq}, then id)". */
    private static String sql92Before(String o, String j) {
        return "(" + o + ".key_seq < " + j + ".key_seq OR (" + o + ".key_seq = " + j + ".key_seq AND " + o + ".id < "
                + j + ".id))";
    }

    @Override
    public SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token) {
        SqlOp<List<Job>> form = forms.rotate(cursor, max, leaseMs, token);
        return form != null ? form : portable.rotate(cursor, max, leaseMs, token);
    }

    /** Leases candidates and reads them back: the hooks' step, else {@link Claims#leaseAndRead}. */
    private List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        List<Job> jobs = forms.leaseAndRead(c, ids, leaseMs, token);
        return jobs != null ? jobs : claims.leaseAndRead(c, ids, leaseMs, token);
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
        SqlOp<Integer> form = forms.revive(id);
        return form != null ? form : deadLetters.revive(id);
    }

    @Override
    public SqlOp<Integer> purgeDead() {
        return deadLetters.purge();
    }

    @Override
    public SqlOp<Boolean> ack(long id, long token) {
        SqlOp<Boolean> form = forms.ack(id, token);
        return form != null ? form : leases.ack(id, token);
    }

    @Override
    public SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        SqlOp<Boolean> form = forms.nack(id, token, delayMs, maxAttempts, error);
        return form != null ? form : leases.nack(id, token, delayMs, maxAttempts, error);
    }

    @Override
    public SqlOp<Boolean> release(long id, long token) {
        SqlOp<Boolean> form = forms.release(id, token);
        return form != null ? form : leases.release(id, token);
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
    public SqlOp<Optional<RateWindow>> rateWindow() {
        return SqlOp.statement(rates::state);
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

    /**
     * The portable form of the operations the store does not run in one call to its parts, which the store runs when
     * a hook declines, and of those the hooks may ask for ({@link WorkForms.Portable}): the operation asked runs
     * portably, and what it calls (other operations, steps) goes through the store, hooks included.
     */
    private final class PortableOperations implements WorkForms.Portable {

        @Override
        public Claims claims() {
            return claims;
        }

        @Override
        public KeyedClaims keyed() {
            return keyed;
        }

        /** The keyed enqueue, with a key or a unique key ({@link StandardWorkStore#enqueue} runs the others). */
        SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs, String key, String uniqueKey) {
            return SqlOp.transaction(c -> {
                writeFirst(c);
                return keyed.enqueue(c, keyedSteps, payloads, priority, delayMs, key, uniqueKey);
            });
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
                writeFirst(c);
                List<Job> claimed = new ArrayList<>();
                for (int round = 0; Claims.anotherRound(round, claimed.size()) && claimed.size() < max; round++) {
                    List<Long> ids = claims.candidates(c, Claims.Kind.CLAIM, max - claimed.size(), -1);
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

        /** The acks, then the claim ({@link StandardWorkStore#claim}), in one transaction; the claim alone if none. */
        @Override
        public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
            SqlOp<List<Job>> claim = StandardWorkStore.this.claim(max, leaseMs, token);
            if (ids.length == 0) {
                return new SqlOp.Flagged<>(c -> new AckedAndClaimed(Set.of(), claim.run(c)), claim.singleStatement(),
                        false, claim.retriesDuplicateKey());
            }
            return SqlOp.transaction(c -> new AckedAndClaimed(ackAll(c, ids, tokens), claim.run(c)));
        }

        SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule) {
            if (rule.plain()) {
                return StandardWorkStore.this.claim(max, leaseMs, token);
            }
            return SqlOp.transaction(c -> {
                writeFirst(c);
                if (rule.limited()) {
                    lockGate(c);
                }
                return keyed.rounds(c, keyedSteps, max, leaseMs, token, rule);
            });
        }

        @Override
        public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                                  ClaimRule rule) {
            if (rule.plain()) {
                return StandardWorkStore.this.ackAndClaim(ids, tokens, max, leaseMs, token);
            }
            return SqlOp.transaction(c -> {
                writeFirst(c);
                if (rule.limited()) {
                    lockGate(c);
                }
                Set<Long> acked = ackAll(c, ids, tokens);
                return new AckedAndClaimed(acked, keyed.rounds(c, keyedSteps, max, leaseMs, token, rule));
            });
        }

        /** Acks each job through the store ({@link StandardWorkStore#ack}); returns those acked. */
        private Set<Long> ackAll(Connection c, long[] ids, long[] tokens) throws SQLException {
            Set<Long> acked = new HashSet<>();
            for (int i = 0; i < ids.length; i++) {
                if (StandardWorkStore.this.ack(ids[i], tokens[i]).run(c)) {
                    acked.add(ids[i]);
                }
            }
            return acked;
        }

        @Override
        public List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
            if (claims.windows() != null) {
                Sql window = keyedCandidates.computeIfAbsent(rule, r -> Sql.of(keyedCandidatesSql(r,
                        statements.window().keyedLimit())));
                return claims.windows().claim(c, window, b -> KeyedClaims.perKey(window, b, rule), n);
            }
            Sql sql = keyedCandidates.computeIfAbsent(rule, r -> Sql.of(keyedCandidatesSql(r,
                    statements.unlockedKeyedCandidates() ? dialect.limit("n") : dialect.lockingLimit("n"))));
            try (PreparedStatement ps = sql.prepare(c)) {
                KeyedClaims.perKey(sql, dialect.bind(sql, ps).limit("n", n), rule).done();
                return Jdbc.longs(ps);
            }
        }

        /**
         * The candidates of a claim under a rule: due jobs, and, under a per-key limit, only a key's next job (none of
         * the key's due jobs comes before it in the key's order, {@code key_seq} then id) and only while the key has
         * fewer than the limit leased (a lease that has not run out). Jobs without a key are not limited. Ordered by
         * round, priority and id for fair claims, else by priority, due time and id. The leased jobs are counted with a
         * scalar subquery, not {@code NOT EXISTS}: a planner may run an {@code EXISTS} once for all rows (PostgreSQL's
         * hashed subplan, a scan of every leased job of the table), where a count per candidate is an index range on
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
         */
        @Override
        public String keyedCandidatesSql(ClaimRule rule, String locking) {
            return "SELECT j.id FROM " + t.jobs() + " j WHERE " + JobRules.claimable("j", now)
                    + keyedCondition(rule, alias -> "") + keyedOrder(rule) + locking;
        }

        @Override
        public String keyedCondition(ClaimRule rule, UnaryOperator<String> extra) {
            return keyed.condition(rule, extra, before);
        }

        /**
         * A database's planner that walks an index in order only when the ORDER BY names its leading columns too
         * names them in its claim window ({@link WorkStatements.ClaimWindow#keyedOrder}).
         */
        @Override
        public String keyedOrder(ClaimRule rule) {
            String leading = statements.window() == null ? "" : statements.window().keyedOrder();
            if (!leading.isEmpty()) {
                return " ORDER BY " + leading + "," + (rule.fair() ? " j.key_seq, j.prio DESC, j.id"
                        : " j.prio DESC, j.due_ms, j.id");
            }
            return rule.fair() ? " ORDER BY j.key_seq, j.prio DESC, j.id" : " ORDER BY j.prio DESC, j.due_ms, j.id";
        }

        SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token) {
            return SqlOp.transaction(c -> rotation.rotate(c, rotationSteps, cursor, max, leaseMs, token));
        }

        @Override
        public long lockCursor(Connection c, String cursor) throws SQLException {
            Sql upsert = statements.cursor();
            if (upsert != null) {
                try (PreparedStatement ps = upsert.prepare(c)) {
                    dialect.bind(upsert, ps).set("cursor", cursor).done();
                    return Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("the cursor upsert returned no row"));
                }
            }
            return rotation.lockCursor(c, cursor);
        }

        @Override
        public SqlOp<Boolean> ack(long id, long token) {
            return leases.ack(id, token);
        }
    }
}
