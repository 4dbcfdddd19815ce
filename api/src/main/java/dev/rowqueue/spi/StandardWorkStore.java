package dev.rowqueue.spi;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueStats;
import dev.rowqueue.support.ClaimWindows;
import dev.rowqueue.support.WorkStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The portable work queue. A claim selects candidate ids in claim order, then leases them with a conditional
 * {@code UPDATE} that repeats the claimability test ({@code state = LIVE AND due_ms <= now}). Databases re-evaluate
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
    protected static final int UNIQUE_ATTEMPTS = 16;

    /** The columns {@link #jobInfo} reads, but the state. */
    private static final String INFO_COLUMNS = Jdbc.JOB_COLUMNS + ", unique_key";

    /** How many times a cancel that found its job ready or scheduled after its delete missed it deletes again. */
    private static final int CANCEL_ATTEMPTS = 3;

    /** Which candidates a claim or rotation looks for. */
    protected enum Candidates {
        /** Claim order: priority descending, due time, id. */
        CLAIM,
        /** Rotation: ids above the cursor, ascending. */
        AFTER,
        /** Rotation after wrapping: ids up to the cursor, ascending. */
        UP_TO
    }

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

    private final Sql insert;
    private final Sql candidates;
    private final Sql candidatesAfter;
    private final Sql candidatesUpTo;
    private final Sql cursorLock;
    private final Sql cursorSelect;
    private final Sql cursorInsert;
    private final Sql cursorMove;
    private final Sql ack;
    private final Sql nack;
    private final Sql release;
    private final Sql extend;
    private final Sql bury;
    private final Sql dead;
    private final Sql reviveOne;
    private final Sql reviveAll;
    private final Sql purge;
    private final Sql stats;
    private final Sql statsByKey;
    private final Sql insertKeyed;
    private final Sql keyRound;
    private final Sql liveUnique;
    private final Sql gateBump;
    private final Sql jobById;
    private final Sql cancel;
    private final String jobState;
    private final Map<String, Sql> jobPages = new ConcurrentHashMap<>();
    private final Map<ClaimRule, Sql> keyedCandidates = new ConcurrentHashMap<>();
    private final WorkStatements statements;
    private final ClaimWindows windows;

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
        this.windows = statements.window() == null ? null
                : new ClaimWindows(dialect, statements.window(), EMPTY_CLAIM_ROUNDS);
        String live = "state = " + WorkTables.LIVE;
        String dead = "state = " + WorkTables.DEAD;
        insert = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES (:payload, :prio, "
                + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")");
        String claimable = "SELECT id FROM " + t.jobs() + " WHERE " + live + " AND due_ms <= " + now;
        candidates = Sql.of(claimable + " ORDER BY prio DESC, due_ms, id" + dialect.lockingLimit("n"));
        candidatesAfter = Sql.of(claimable + " AND id > :last ORDER BY id" + dialect.lockingLimit("n"));
        candidatesUpTo = Sql.of(claimable + " AND id <= :last ORDER BY id" + dialect.lockingLimit("n"));
        cursorLock = Sql.of("UPDATE " + t.cursors() + " SET last_id = last_id WHERE cursor_name = :cursor");
        cursorSelect = Sql.of("SELECT last_id FROM " + t.cursors() + " WHERE cursor_name = :cursor");
        cursorInsert = Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:cursor, 0)");
        cursorMove = Sql.of("UPDATE " + t.cursors() + " SET last_id = :last WHERE cursor_name = :cursor");
        String mine = " WHERE id = :id AND lease_token = :token AND " + byId.live();
        String update = byId.update();
        ack = Sql.of(byId.delete() + mine);
        // State and unique_key are assigned before attempts: MySQL evaluates single-table SET clauses left to right.
        nack = Sql.of(update + " SET state = CASE WHEN attempts + 1 >= :max THEN " + WorkTables.DEAD
                + " ELSE " + WorkTables.LIVE + " END, unique_key = CASE WHEN attempts + 1 >= :max THEN NULL ELSE"
                + " unique_key END, attempts = attempts + 1, due_ms = " + now
                + " + :delay, last_error = :error, lease_token = NULL" + mine);
        release = Sql.of(update + " SET due_ms = " + now + ", lease_token = NULL" + mine);
        extend = Sql.of(update + " SET due_ms = " + now + " + :lease" + mine);
        bury = Sql.of(update + " SET state = " + WorkTables.DEAD + ", unique_key = NULL, last_error = :error,"
                + " lease_token = NULL" + mine);
        this.dead = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM " + t.jobs() + " WHERE " + dead + " ORDER BY id"
                + dialect.limit("n"));
        String revive = "UPDATE " + t.jobs() + " SET state = " + WorkTables.LIVE + ", attempts = 0, due_ms = " + now
                + ", lease_token = NULL WHERE " + dead;
        reviveOne = Sql.of(revive + " AND id = :id");
        reviveAll = Sql.of(revive);
        purge = Sql.of("DELETE FROM " + t.jobs() + " WHERE " + dead);
        // ready, scheduled, leased, dead: QueueStats' order
        String counts = " SUM(CASE WHEN " + live + " AND due_ms <= " + now + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND due_ms > " + now + " AND lease_token IS NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND due_ms > " + now + " AND lease_token IS NOT NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + dead + " THEN 1 ELSE 0 END) FROM " + t.jobs();
        stats = Sql.of("SELECT" + counts);
        statsByKey = Sql.of("SELECT job_key," + counts + " WHERE job_key IS NOT NULL"
                + " GROUP BY job_key ORDER BY COUNT(*) DESC, job_key" + dialect.limit("n"));
        insertKeyed = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms,"
                + " job_key, unique_key, key_seq) VALUES (:payload, :prio, " + WorkTables.LIVE + ", " + now
                + " + :delay, 0, " + now + ", :key, :ukey, :seq)");
        keyRound = Sql.of("SELECT 1 AS part, MAX(key_seq) AS key_seq FROM " + t.jobs() + " WHERE job_key = :key AND "
                + live + " UNION ALL SELECT 2, MIN(key_seq) FROM " + t.jobs() + " WHERE " + live
                + " AND key_seq > 0 AND due_ms <= " + now);
        liveUnique = Sql.of("SELECT id FROM " + t.jobs() + " WHERE unique_key = :ukey AND " + live);
        gateBump = Sql.of("UPDATE " + t.cursors() + " SET last_id = last_id + 1 WHERE cursor_name = :cursor");
        // a job's state as JobState's ordinal, by the same tests as stats(): READY, SCHEDULED, LEASED, DEAD
        jobState = "CASE WHEN " + dead + " THEN 3 WHEN due_ms <= " + now + " THEN 0 WHEN lease_token IS NULL THEN 1"
                + " ELSE 2 END";
        jobById = Sql.of("SELECT " + INFO_COLUMNS + ", " + jobState + " AS job_state FROM " + t.jobs()
                + " WHERE id = :id");
        // ready or scheduled: live, and not under a lease that has not ended
        cancel = Sql.of(byId.delete() + " WHERE id = :id AND " + byId.live() + " AND (lease_token IS NULL OR due_ms <= "
                + now + ")");
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        Sql one = statements.enqueueOne();
        if (one != null && payloads.size() == 1) {
            return SqlOp.statement(c -> {
                try (PreparedStatement ps = one.prepare(c)) {
                    dialect.bind(one, ps).set("payload", payloads.get(0)).setInt("prio", priority)
                            .set("delay", delayMs).done();
                    return new long[] {Jdbc.firstLong(ps).orElseThrow(() -> new SQLException(
                            "the enqueue into " + t.jobs() + " returned no id"))};
                }
            });
        }
        return SqlOp.transaction(c -> {
            long[] ids = new long[payloads.size()];
            try (PreparedStatement ps = insert.prepare(c, dialect.generatedKeyColumn())) {
                for (int i = 0; i < ids.length; i++) {
                    dialect.bind(insert, ps).set("payload", payloads.get(i)).setInt("prio", priority)
                            .set("delay", delayMs).done();
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        if (!keys.next()) {
                            throw new SQLException("the driver returned no generated id for " + t.jobs());
                        }
                        ids[i] = keys.getLong(1);
                    }
                }
            }
            return ids;
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
                return claimReturning(c, statements.claim(), max, leaseMs, token);
            });
        }
        return SqlOp.transaction(c -> {
            List<Job> claimed = new ArrayList<>();
            for (int round = 0; anotherRound(round, claimed.size()) && claimed.size() < max; round++) {
                List<Long> ids = candidates(c, Candidates.CLAIM, max - claimed.size(), -1);
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
     * Inserts each job with its key and its round ({@link #keyRound}); with a unique key, first looks for the live
     * job holding it, and inserts only if there is none, under a savepoint: a producer that loses the race (a
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
            if (uniqueKey != null) {
                OptionalLong holder = liveUnique(c, uniqueKey);
                if (holder.isPresent()) {
                    return new long[] {holder.getAsLong()};
                }
            }
            long round = key == null ? 0 : keyRound(c, key);
            long[] ids = new long[payloads.size()];
            if (uniqueKey == null) {
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = insertKeyed(c, payloads.get(i), priority, delayMs, key, null, round + i);
                }
                return ids;
            }
            for (int attempt = 0; attempt < UNIQUE_ATTEMPTS; attempt++) {
                long[] inserted = new long[1];
                if (Jdbc.insertUnlessExists(c, dialect, () -> inserted[0] = insertKeyed(c, payloads.get(0), priority,
                        delayMs, key, uniqueKey, round))) {
                    return inserted;
                }
                OptionalLong holder = liveUnique(c, uniqueKey);
                if (holder.isPresent()) {
                    return new long[] {holder.getAsLong()};
                }
            }
            throw new SQLException("the live job holding unique key '" + uniqueKey + "' of " + t.jobs()
                    + " ended " + UNIQUE_ATTEMPTS + " times between an insert that found it and the read of its id");
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
     * @param c         a connection in a transaction
     * @param uniqueKey a unique key
     * @return the id of the live job holding it, if any
     * @throws SQLException from the driver
     */
    protected OptionalLong liveUnique(Connection c, String uniqueKey) throws SQLException {
        try (PreparedStatement ps = liveUnique.prepare(c)) {
            dialect.bind(liveUnique, ps).set("ukey", uniqueKey).done();
            return Jdbc.firstLong(ps);
        }
    }

    /**
     * The round of a new job of a key ({@code key_seq}): one more than the newest live job of the key, and at least
     * the lowest round of the queue's due keyed jobs, so a key that was idle joins the round the queue is in. Both
     * are index lookups ({@link WorkTables#keyIndex()}, {@link WorkTables#fairIndex()}). Concurrent producers of one
     * key may get the same round; fair claims then take the lower id first.
     *
     * @param c   a connection
     * @param key the job key
     * @return the round, at least 1
     * @throws SQLException from the driver
     */
    protected long keyRound(Connection c, String key) throws SQLException {
        long newest = 0;
        long current = 1;
        try (PreparedStatement ps = keyRound.prepare(c)) {
            dialect.bind(keyRound, ps).set("key", key).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long v = rs.getLong(2);
                    if (rs.wasNull()) {
                        continue;
                    }
                    if (rs.getInt(1) == 1) {
                        newest = v;
                    } else {
                        current = Math.max(1, v);
                    }
                }
            }
        }
        return Math.max(newest + 1, current);
    }

    /**
     * Inserts one job with its key columns.
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
        try (PreparedStatement ps = insertKeyed.prepare(c, dialect.generatedKeyColumn())) {
            dialect.bind(insertKeyed, ps).set("payload", payload).setInt("prio", priority).set("delay", delayMs)
                    .set("key", key).set("ukey", uniqueKey).set("seq", round).done();
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("the driver returned no generated id for " + t.jobs());
                }
                return keys.getLong(1);
            }
        }
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
        lockCursorRow(c, gateBump, name, "the gate " + name);
    }

    /**
     * Locks a row of the cursors table with an {@code UPDATE} of it, inserting the row (at position 0) when the update
     * finds none; a racer's insert of the same row counts as found, and the update runs again.
     *
     * @param c      a connection in a transaction
     * @param lock   the {@code UPDATE}, naming {@code :cursor}
     * @param cursor the row's cursor name
     * @param what   the row, for the error
     * @throws SQLException from the driver
     */
    private void lockCursorRow(Connection c, Sql lock, String cursor, String what) throws SQLException {
        for (int attempt = 0; attempt < 3; attempt++) {
            int locked;
            try (PreparedStatement ps = lock.prepare(c)) {
                dialect.bind(lock, ps).set("cursor", cursor).done();
                locked = ps.executeUpdate();
            }
            if (locked == 1) {
                return;
            }
            Jdbc.insertUnlessExists(c, dialect, () -> {
                try (PreparedStatement ps = cursorInsert.prepare(c)) {
                    dialect.bind(cursorInsert, ps).set("cursor", cursor).done();
                    ps.executeUpdate();
                }
            });
        }
        throw new IllegalStateException(what + " of " + t.cursors() + " cannot be created");
    }

    /**
     * Claims in rounds: each round leases the {@link #keyedCandidates} it finds, at most one job per key under a
     * per-key limit. With a limit of 1 one round is enough (every key it took is full), unless it lost candidates to
     * other consumers; with a higher limit the next round takes each key's next job, until a round finds nothing.
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
        List<Job> claimed = new ArrayList<>();
        int lost = 0;
        while (claimed.size() < max) {
            List<Long> ids = keyedCandidates(c, rule, max - claimed.size());
            if (ids.isEmpty()) {
                break;
            }
            List<Job> leased = leaseAndRead(c, ids, leaseMs, token);
            claimed.addAll(leased);
            if (leased.size() < ids.size()) {
                if (!anotherRound(++lost, claimed.size())) {
                    break;
                }
            } else if (rule.maxLeasedPerKey() <= 1) {
                break; // got every candidate, and no key may have a second job: nothing more to find
            }
        }
        return claimed;
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
        if (windows != null) {
            Sql window = keyedCandidates.computeIfAbsent(rule, r -> Sql.of(keyedCandidatesSql(r,
                    statements.window().keyedLimit())));
            return windows.claim(c, window, b -> perKey(window, b, rule), n);
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
        return "SELECT j.id FROM " + t.jobs() + " j WHERE j.state = " + WorkTables.LIVE + " AND j.due_ms <= " + now
                + keyedCondition(rule, alias -> "") + keyedOrder(rule) + locking;
    }

    /**
     * The per-key part of {@link #keyedCandidatesSql}'s condition, on a candidate aliased {@code j}: empty without a
     * per-key limit.
     *
     * @param rule  the rule
     * @param extra a further condition on the rows the subqueries look at, by their alias ({@code o}: the key's due
     *              jobs, {@code l}: its leased jobs), e.g. to leave out jobs the same statement acks; "" for none
     * @return {@code " AND (j.job_key IS NULL OR (...))"}, or ""
     */
    protected String keyedCondition(ClaimRule rule, java.util.function.UnaryOperator<String> extra) {
        if (!rule.limited()) {
            return "";
        }
        String jobs = t.jobs();
        String live = " = " + WorkTables.LIVE;
        return " AND (j.job_key IS NULL OR ((SELECT COUNT(*) FROM " + jobs + " l WHERE l.job_key = j.job_key AND"
                + " l.lease_token IS NOT NULL AND l.state" + live + " AND l.due_ms > " + now + extra.apply("l")
                + ") < :per_key AND NOT EXISTS (SELECT 1 FROM " + jobs + " o WHERE o.job_key = j.job_key AND o.state"
                + live + " AND o.due_ms <= " + now + " AND " + before("o", "j") + extra.apply("o") + ")))";
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
    public SqlOp<Map<String, QueueStats>> statsByKey(int limit) {
        return SqlOp.read(c -> {
            Map<String, QueueStats> byKey = new LinkedHashMap<>();
            try (PreparedStatement ps = statsByKey.prepare(c)) {
                dialect.bind(statsByKey, ps).limit("n", limit).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        byKey.put(dialect.readKey(rs, 1), new QueueStats(rs.getLong(2), rs.getLong(3), rs.getLong(4),
                                rs.getLong(5)));
                    }
                }
            }
            return byKey;
        });
    }

    @Override
    public SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token) {
        return SqlOp.transaction(c -> {
            long last = lockCursor(c, cursor);
            List<Long> ids = candidates(c, Candidates.AFTER, max, last);
            if (ids.size() < max) {
                ids = new ArrayList<>(ids);
                ids.addAll(candidates(c, Candidates.UP_TO, max - ids.size(), last));
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            List<Job> leased = leaseAndRead(c, ids, leaseMs, token);
            if (!leased.isEmpty()) {
                try (PreparedStatement ps = cursorMove.prepare(c)) {
                    dialect.bind(cursorMove, ps).set("last", leased.get(leased.size() - 1).id()).set("cursor", cursor)
                            .done();
                    ps.executeUpdate();
                }
            }
            return leased;
        });
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
        lockCursorRow(c, cursorLock, cursor, "rotation cursor '" + cursor + "'");
        try (PreparedStatement ps = cursorSelect.prepare(c)) {
            dialect.bind(cursorSelect, ps).set("cursor", cursor).done();
            return Jdbc.firstLong(ps).orElseThrow();
        }
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
    protected List<Long> candidates(Connection c, Candidates kind, int n, long last) throws SQLException {
        if (windows != null) {
            return switch (kind) {
                case CLAIM -> windows.claim(c, n);
                case AFTER -> windows.range(c, last, Long.MAX_VALUE, n);
                case UP_TO -> windows.range(c, Long.MIN_VALUE, last, n);
            };
        }
        Sql sql = switch (kind) {
            case CLAIM -> candidates;
            case AFTER -> candidatesAfter;
            case UP_TO -> candidatesUpTo;
        };
        return select(c, sql, n, last);
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
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).limit("n", n);
            if (sql.has("last")) {
                b.set("last", last);
            }
            b.done();
            return Jdbc.longs(ps);
        }
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
        if (statements.leaseReturning() != null) {
            Sql lease = statements.leaseReturning(ids.size());
            try (PreparedStatement ps = lease.prepare(c)) {
                Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
                return inOrder(Jdbc.jobs(ps, dialect), ids);
            }
        }
        String in = Jdbc.parameterList(ids.size(), "id");
        Sql lease = Sql.of("UPDATE " + t.jobs() + " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END,"
                + " lease_token = :token, due_ms = " + now + " + :lease WHERE id IN (" + in + ") AND state = "
                + WorkTables.LIVE + " AND due_ms <= " + now);
        int leased;
        try (PreparedStatement ps = lease.prepare(c)) {
            Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
            leased = ps.executeUpdate();
        }
        if (leased == 0) {
            return List.of();
        }
        Sql read = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM " + t.jobs() + " WHERE id IN (" + in
                + ") AND lease_token = :token");
        try (PreparedStatement ps = read.prepare(c)) {
            Jdbc.bindList(dialect.bind(read, ps).set("token", token), "id", ids).done();
            return inOrder(Jdbc.jobs(ps, dialect), ids);
        }
    }

    /**
     * @param jobs jobs in any order
     * @param ids  the wanted order
     * @return the jobs sorted by their position in {@code ids}
     */
    protected static List<Job> inOrder(List<Job> jobs, List<Long> ids) {
        Map<Long, Integer> position = new HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            position.put(ids.get(i), i);
        }
        List<Job> sorted = new ArrayList<>(jobs);
        sorted.sort(Comparator.comparingInt(j -> position.getOrDefault(j.id(), Integer.MAX_VALUE)));
        return sorted;
    }

    /**
     * A job as a one-statement claim returned it, with the due time it had before the lease: {@code RETURNING} gives
     * the rows in no particular order, and the new due time (the lease's end) no longer tells the claim order.
     *
     * @param job       the leased job
     * @param dueBefore its due time before the lease
     */
    protected record Claimed(Job job, long dueBefore) {
        /**
         * @param rs      a row with the columns {@link Jdbc#job} reads and {@code claimed_due}
         * @param dialect reads the key column
         * @return the job and its due time before the lease
         * @throws SQLException from the driver
         */
        public static Claimed of(ResultSet rs, Dialect dialect) throws SQLException {
            return new Claimed(Jdbc.job(rs, dialect), rs.getLong("claimed_due"));
        }
    }

    /**
     * Runs a one-statement claim that binds {@code :n}, {@code :token} and {@code :lease} and returns the leased jobs
     * with their due times before the lease ({@link Claimed#of}), in any order.
     *
     * @param c       a connection
     * @param claim   the statement
     * @param max     the most jobs to claim
     * @param leaseMs the lease length
     * @param token   the lease token
     * @return the jobs in claim order
     * @throws SQLException from the driver
     */
    protected List<Job> claimReturning(Connection c, Sql claim, int max, long leaseMs, long token)
            throws SQLException {
        List<Claimed> claimed = new ArrayList<>();
        try (PreparedStatement ps = claim.prepare(c)) {
            dialect.bind(claim, ps).setInt("n", max).set("token", token).set("lease", leaseMs).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed.add(Claimed.of(rs, dialect));
                }
            }
        }
        return inClaimOrder(claimed);
    }

    /** Priority descending, due time before the lease, id: the order a claim chooses jobs in. */
    private static final Comparator<Claimed> CLAIM_ORDER = Comparator.<Claimed>comparingInt(c -> c.job().priority())
            .reversed().thenComparingLong(Claimed::dueBefore).thenComparingLong(c -> c.job().id());

    /**
     * @param claimed jobs a claim returned, in any order (sorted in place)
     * @return the jobs in claim order
     */
    protected static List<Job> inClaimOrder(List<Claimed> claimed) {
        claimed.sort(CLAIM_ORDER);
        List<Job> jobs = new ArrayList<>(claimed.size());
        for (Claimed c : claimed) {
            jobs.add(c.job());
        }
        return jobs;
    }

    private SqlOp<Boolean> byToken(Sql sql, long id, long token, Binding extra) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).set("id", id).set("token", token);
                extra.bind(b);
                b.done();
                return ps.executeUpdate() == 1;
            }
        });
    }

    private interface Binding {
        void bind(Sql.Binder b) throws SQLException;
    }

    @Override
    public SqlOp<Boolean> ack(long id, long token) {
        return byToken(ack, id, token, b -> { });
    }

    @Override
    public SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        return byToken(nack, id, token, b -> b.setInt("max", maxAttempts).set("delay", delayMs).set("error", error));
    }

    @Override
    public SqlOp<Boolean> release(long id, long token) {
        return byToken(release, id, token, b -> { });
    }

    @Override
    public SqlOp<Boolean> extend(long id, long token, long leaseMs) {
        return byToken(extend, id, token, b -> b.set("lease", leaseMs));
    }

    /**
     * One {@code UPDATE} of every job whose id and token match; where fewer rows changed than jobs were given, a
     * {@code SELECT} of the same transaction tells which still carry their token (those were extended).
     */
    @Override
    public SqlOp<Set<Long>> extendAll(long[] ids, long[] tokens, long leaseMs) {
        StringBuilder pairs = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            pairs.append(i == 0 ? "" : " OR ").append("(id = :i").append(i).append(" AND lease_token = :t").append(i)
                    .append(')');
        }
        Sql update = Sql.of(byId.update() + " SET due_ms = " + now + " + :lease WHERE " + byId.live() + " AND ("
                + pairs + ")");
        Sql mine = Sql.of("SELECT id FROM " + t.jobs() + " WHERE " + byId.live() + " AND (" + pairs + ")");
        return SqlOp.transaction(c -> {
            int changed;
            try (PreparedStatement ps = update.prepare(c)) {
                bindPairs(dialect.bind(update, ps).set("lease", leaseMs), ids, tokens).done();
                changed = ps.executeUpdate();
            }
            Set<Long> extended = new HashSet<>();
            if (changed == ids.length) {
                for (long id : ids) {
                    extended.add(id);
                }
                return extended;
            }
            try (PreparedStatement ps = mine.prepare(c)) {
                bindPairs(dialect.bind(mine, ps), ids, tokens).done();
                extended.addAll(Jdbc.longs(ps));
            }
            return extended;
        });
    }

    private static Sql.Binder bindPairs(Sql.Binder b, long[] ids, long[] tokens) throws SQLException {
        for (int i = 0; i < ids.length; i++) {
            b.set("i" + i, ids[i]).set("t" + i, tokens[i]);
        }
        return b;
    }

    @Override
    public SqlOp<Integer> bury(long[] ids, long token, String error) {
        return SqlOp.transaction(c -> {
            int buried = 0;
            try (PreparedStatement ps = bury.prepare(c)) {
                for (long id : ids) {
                    dialect.bind(bury, ps).set("id", id).set("token", token).set("error", error).done();
                    buried += ps.executeUpdate();
                }
            }
            return buried;
        });
    }

    @Override
    public SqlOp<List<Job>> dead(int limit) {
        return SqlOp.read(c -> {
            try (PreparedStatement ps = dead.prepare(c)) {
                dialect.bind(dead, ps).limit("n", limit).done();
                return Jdbc.jobs(ps, dialect);
            }
        });
    }

    @Override
    public SqlOp<Integer> revive(OptionalLong id) {
        Sql sql = id.isPresent() ? reviveOne : reviveAll;
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps);
                if (id.isPresent()) {
                    b.set("id", id.getAsLong());
                }
                b.done();
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public SqlOp<Integer> purgeDead() {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = purge.prepare(c)) {
                dialect.bind(purge, ps).done();
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public SqlOp<QueueStats> stats() {
        return SqlOp.read(c -> {
            try (PreparedStatement ps = stats.prepare(c)) {
                dialect.bind(stats, ps).done();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new QueueStats(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
                }
            }
        });
    }

    @Override
    public SqlOp<Optional<JobInfo>> job(long id) {
        return SqlOp.read(c -> readJob(c, id));
    }

    private Optional<JobInfo> readJob(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = jobById.prepare(c)) {
            dialect.bind(jobById, ps).set("id", id).done();
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(jobInfo(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Maps a row of {@link #INFO_COLUMNS} and {@code job_state}.
     *
     * @param rs a result set on a row
     * @return the job
     * @throws SQLException from the driver
     */
    protected JobInfo jobInfo(ResultSet rs) throws SQLException {
        JobState state = JobState.values()[rs.getInt("job_state")];
        long due = rs.getLong("due_ms");
        long token = rs.getLong("lease_token");
        boolean leased = state == JobState.LEASED && !rs.wasNull();
        Instant dueAt = Instant.ofEpochMilli(due);
        return new JobInfo(rs.getLong("id"), state, Jdbc.text(rs.getString("payload")), rs.getInt("prio"),
                rs.getInt("attempts"), Instant.ofEpochMilli(rs.getLong("enqueued_ms")), leased ? null : dueAt,
                leased ? token : 0L, leased ? dueAt : null, rs.getString("last_error"),
                dialect.readKey(rs, "job_key"), dialect.readKey(rs, "unique_key"));
    }

    @Override
    public SqlOp<List<JobInfo>> jobs(JobState state, String key, boolean newestFirst, long after, int limit) {
        String shape = (state == null ? "ALL" : state.name()) + (key == null ? "" : "/key") + (newestFirst ? "/desc"
                : "/asc") + (after > 0 ? "/after" : "");
        Sql sql = jobPages.computeIfAbsent(shape, s -> jobPage(state, key != null, newestFirst, after > 0));
        return SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).limit("n", limit);
                if (key != null) {
                    b.set("key", key);
                }
                if (after > 0) {
                    b.set("after", after);
                }
                b.done();
                List<JobInfo> jobs = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && jobs.size() < limit) {
                        jobs.add(jobInfo(rs));
                    }
                }
                return jobs;
            }
        });
    }

    /**
     * @param state       a state or {@code null}
     * @param keyed       whether the query names a key ({@code :key})
     * @param newestFirst the order
     * @param after       whether it continues after a cursor ({@code :after})
     * @return the query of one page, limited by {@code :n}
     */
    protected Sql jobPage(JobState state, boolean keyed, boolean newestFirst, boolean after) {
        List<String> where = new ArrayList<>();
        String live = "state = " + WorkTables.LIVE;
        if (state != null) {
            where.add(switch (state) {
                case READY -> live + " AND due_ms <= " + now;
                case SCHEDULED -> live + " AND due_ms > " + now + " AND lease_token IS NULL";
                case LEASED -> live + " AND due_ms > " + now + " AND lease_token IS NOT NULL";
                case DEAD -> "state = " + WorkTables.DEAD;
            });
        }
        if (keyed) {
            where.add("job_key = :key");
        }
        if (after) {
            where.add(newestFirst ? "id < :after" : "id > :after");
        }
        return Sql.of("SELECT " + INFO_COLUMNS + ", " + jobState + " AS job_state FROM " + t.jobs()
                + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)) + " ORDER BY id"
                + (newestFirst ? " DESC" : "") + dialect.limit("n"));
    }

    /**
     * One conditional {@code DELETE} of the job if it is live and not under a lease that has not ended: a claim that
     * leased it first makes the delete match nothing (the database re-checks the condition on the latest row after a
     * row lock), and a claim after the delete finds no job. Where the delete matched nothing, a read of the job tells
     * why; if that read finds the job ready or scheduled (its lease ended in between), the delete runs again.
     */
    @Override
    public SqlOp<CancelOutcome> cancel(long id) {
        return SqlOp.transaction(c -> {
            for (int attempt = 0; attempt < CANCEL_ATTEMPTS; attempt++) {
                try (PreparedStatement ps = cancel.prepare(c)) {
                    dialect.bind(cancel, ps).set("id", id).done();
                    if (ps.executeUpdate() > 0) {
                        return CancelOutcome.CANCELLED;
                    }
                }
                Optional<JobInfo> job = readJob(c, id);
                if (job.isEmpty()) {
                    return CancelOutcome.NOT_FOUND;
                }
                if (job.get().state() == JobState.DEAD) {
                    return CancelOutcome.DEAD;
                }
                if (job.get().state() == JobState.LEASED) {
                    return CancelOutcome.LEASED;
                }
            }
            return CancelOutcome.LEASED; // leased again each time between the delete and the read
        });
    }
}
