package dev.rowqueue.postgres;

import dev.rowqueue.support.Claims.Claimed;
import dev.rowqueue.Job;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.JobRules;
import dev.rowqueue.support.Sql;
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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.rowqueue.support.Claims.inClaimOrder;

/**
 * The work queue's hooks on PostgreSQL ({@link #statements}). A claim is one statement:
 *
 * <pre>{@code
 * WITH c AS MATERIALIZED (SELECT id, due_ms FROM <queue> WHERE state = 0 AND due_ms <= <now>
 *                         ORDER BY prio DESC, due_ms, id LIMIT :n FOR UPDATE SKIP LOCKED)
 * UPDATE <queue> q SET attempts = ..., lease_token = :token, due_ms = <now> + :lease
 * WHERE q.id = ANY(ARRAY(SELECT id FROM c)) RETURNING q.*, (SELECT c.due_ms FROM c WHERE c.id = q.id)
 * }</pre>
 *
 * The candidates are locked as they are found and other consumers skip them, so no claim waits for another and none
 * leases a job twice. The CTE is materialized (explicitly from PostgreSQL 12 on, always before) so its locking query
 * runs exactly once. The update finds the locked jobs through the primary key with {@code = ANY(ARRAY(...))}, not by
 * joining the CTE: a join is planned without knowing {@code :n}, and once pgjdbc's statement is prepared on the server
 * PostgreSQL may switch to a generic plan that hashes the whole queue table for the join, so that a claim's cost grows
 * with the queue (docs/postgresql.md, "Claim"; {@code PostgresGenericPlanTest}). {@code RETURNING} has no order: the
 * jobs are sorted back into claim order with the due time each had before the lease. The claim walks the partial index
 * {@code (prio DESC, due_ms, id) WHERE state = 0}, so dead jobs cost it nothing.
 *
 * <p>Enqueue is one statement: {@code INSERT ... VALUES (...) RETURNING id} for one job, {@code INSERT ... SELECT
 * FROM unnest(:payloads) ... RETURNING id} for a batch; enqueue, nack, release and revive send {@code
 * pg_notify('rowqueue_<queue>', <delay ms>)} in the same statement when the dialect notifies (option {@code notify},
 * on by default), so the notification is delivered exactly when the work commits; enqueues due now that run at once in
 * auto-commit mode share their notifications ({@link Notices}). Rotation cursors are created and locked with one
 * upsert, and the claim gate of claims under a per-key limit is a transaction-level advisory lock ({@link
 * #advisoryLock}).
 */
final class PostgresWorkForms implements WorkForms {

    private final PostgresDialect dialect;
    private final WorkTables t;
    private final String now;
    private final WorkStatements.ById byId;
    private final Portable portable;
    private final Sql gate;
    private final String channel;
    private final Sql enqueue;
    private final Sql enqueueOne;
    /** The enqueues without {@code pg_notify}, for enqueues whose notification is coalesced; null if none notifies. */
    private final Sql enqueueQuiet;
    private final Sql enqueueOneQuiet;
    private final Sql notifyNow;
    private final Notices notices;
    private final Sql claim;
    private final Sql ackOneAndClaim;
    private final Sql ackManyAndClaim;
    /** The claim statements of one job, with {@code LIMIT 1} written in ({@link #claimOne}). */
    private final Sql claimOne;
    private final Sql ackOneAndClaimOne;
    private final Sql ackManyAndClaimOne;
    private final Sql nack;
    private final Sql release;
    private final Sql reviveOne;
    private final Sql reviveAll;
    private final Sql enqueueKeyed;
    private final Sql enqueueUnique;
    private final Sql enqueueUniqueKeyed;
    /** Statement parts the claims under a rule reuse. */
    private final String materialized;
    private final String lease;
    private final String handoff;
    private final String ackOne;
    private final String ackMany;
    private final Map<String, Sql> keyed = new ConcurrentHashMap<>();
    /** Whether the index of leased keyed jobs exists ({@link #leasedIndexed}); {@code null} until asked. */
    private volatile Boolean leasedIndexed;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PostgresWorkForms.class);

    /**
     * The statements and hooks of a work queue on PostgreSQL: statements on one job by primary key test liveness with
     * {@link JobRules#LIVE_BY_ID}, which the planner cannot match with the partial claim index's {@code WHERE state =
     * 0}: with {@code state = 0}, a new queue's generic plan (no statistics yet; pgjdbc prepares a statement on the
     * server from its fifth execution) looked for acked jobs by scanning the whole claim index instead of reading the
     * primary key, at a cost that grows with the queue (docs/postgresql.md, "Ack and claim";
     * {@code PostgresGenericPlanTest}); the rotation cursor's upsert; the advisory lock as the claim gate; key order as row values
     * ({@link #before}); and these hooks.
     *
     * @param dialect the dialect
     * @param tables  the queue's tables
     * @param notify  whether writes that make work claimable send {@code pg_notify}
     * @return the statements
     */
    static WorkStatements statements(PostgresDialect dialect, WorkTables tables, boolean notify) {
        WorkStatements.ById byId = WorkStatements.ById.standard(tables).withLive(JobRules.LIVE_BY_ID);
        return WorkStatements.PORTABLE.withById(byId)
                .withCursor(Sql.of("INSERT INTO " + tables.cursors() + " AS r (cursor_name, last_id) VALUES (:cursor,"
                        + " 0) ON CONFLICT (cursor_name) DO UPDATE SET last_id = r.last_id RETURNING last_id"))
                .withGate(gate(tables))
                .withBefore(PostgresWorkForms::before)
                .withForms(portable -> new PostgresWorkForms(dialect, tables, byId, notify, portable));
    }

    private PostgresWorkForms(PostgresDialect dialect, WorkTables tables, WorkStatements.ById byId, boolean notify,
                              Portable portable) {
        this.dialect = dialect;
        this.t = tables;
        this.now = dialect.nowMillis();
        this.byId = byId;
        this.portable = portable;
        this.gate = gate(tables);
        this.channel = PostgresDialect.channel(tables);
        String live = "state = " + WorkTables.LIVE;
        String jobs = t.jobs();
        String insert = "INSERT INTO " + jobs + " (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " SELECT p.payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + " FROM "
                + PgArrays.payloadRows("payloads") + " ORDER BY p.ord RETURNING id";
        String quiet = "WITH ins AS (" + insert + ") SELECT id FROM ins ORDER BY id";
        enqueue = Sql.of(notify
                ? "WITH ins AS (" + insert + "), note AS (SELECT pg_notify(:channel, CAST(:delay AS TEXT)) AS sent)"
                        + " SELECT ins.id FROM ins CROSS JOIN note ORDER BY ins.id"
                : quiet);
        String insertOne = "INSERT INTO " + jobs + " (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES"
                + " (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ") RETURNING id";
        enqueueOne = Sql.of(notify
                ? "WITH ins AS (" + insertOne + "), note AS (SELECT pg_notify(:channel, CAST(:delay AS TEXT)) AS sent)"
                        + " SELECT ins.id FROM ins CROSS JOIN note"
                : insertOne);
        enqueueQuiet = notify ? Sql.of(quiet) : null;
        enqueueOneQuiet = notify ? Sql.of(insertOne) : null;
        notifyNow = Sql.of("SELECT pg_notify(:channel, '0')");
        notices = dialect.notices(channel);
        materialized = dialect.hasMaterializedCte() ? "MATERIALIZED " : "";
        String lock = "SELECT id, due_ms FROM " + jobs + " WHERE " + JobRules.claimable(now) + "%s"
                + " ORDER BY prio DESC, due_ms, id LIMIT :n FOR UPDATE SKIP LOCKED";
        lease = "UPDATE " + jobs + " q SET " + JobRules.lease("q", now) + " WHERE q.id = ANY(ARRAY(SELECT id FROM c))"
                + " RETURNING " + qualified("q") + ", (SELECT c.due_ms FROM c WHERE c.id = q.id) AS claimed_due";
        claim = Sql.of("WITH c AS " + materialized + "(" + lock.formatted("") + ") " + lease);
        // ack and claim: the acked rows are excluded from the claim, since all parts of one statement see the same
        // snapshot (an acked job whose lease had ended would otherwise look claimable); the acked ids come back as
        // rows with claimed = FALSE
        StringBuilder nulls = new StringBuilder(); // the job columns but id, and claimed_due, named as u's
        for (String column : Jdbc.JOB_COLUMNS.split(",\\s*")) {
            nulls.append(column.equals("id") ? "" : ", NULL AS " + column);
        }
        nulls.append(", NULL AS claimed_due");
        // the acks' branch comes first: the DELETE runs to its end before the claim locks anything, so a statement
        // waits for a row lock only while it holds none of its claim's (no lock-order cycle between consumers)
        handoff = " SELECT FALSE AS claimed, a.id" + nulls + " FROM a UNION ALL SELECT TRUE, u.* FROM u";
        ackOne = "WITH a AS (DELETE FROM " + jobs + " WHERE id = :id AND lease_token = :tok AND " + byId.live()
                + " RETURNING id)";
        ackMany = "WITH a AS (DELETE FROM " + jobs + " WHERE id = ANY(CAST(:ids AS BIGINT[]))"
                + " AND lease_token = (CAST(:toks AS BIGINT[]))[array_position(CAST(:ids AS BIGINT[]), id)] AND "
                + byId.live() + " RETURNING id)";
        ackOneAndClaim = Sql.of(ackOne + ", c AS " + materialized + "(" + lock.formatted(" AND id <> :id") + "), u AS ("
                + lease + ")" + handoff);
        ackManyAndClaim = Sql.of(ackMany + ", c AS " + materialized + "(" + lock.formatted(" AND id <> ALL(CAST(:ids AS"
                + " BIGINT[]))") + "), u AS (" + lease + ")" + handoff);
        claimOne = claimOne(claim);
        ackOneAndClaimOne = claimOne(ackOneAndClaim);
        ackManyAndClaimOne = claimOne(ackManyAndClaim);
        String mine = " WHERE id = :id AND lease_token = :token AND " + byId.live();
        String nackUpdate = "UPDATE " + jobs + " SET " + JobRules.nack(now) + mine + " RETURNING state";
        nack = Sql.of(notify
                ? "WITH u AS (" + nackUpdate + ") SELECT u.state, CASE WHEN u.state = " + WorkTables.LIVE
                        + " THEN pg_notify(:channel, CAST(:delay AS TEXT)) END FROM u"
                : nackUpdate);
        String releaseUpdate = "UPDATE " + jobs + " SET " + JobRules.release(now) + mine + " RETURNING id";
        release = Sql.of(notify ? "WITH u AS (" + releaseUpdate + ") SELECT u.id, pg_notify(:channel, '0') FROM u"
                : releaseUpdate);
        String revive = "UPDATE " + jobs + " SET " + JobRules.revive(now) + " WHERE state = " + WorkTables.DEAD;
        reviveOne = Sql.of(counted(revive + " AND id = :id", notify));
        reviveAll = Sql.of(counted(revive, notify));
        // keyed enqueues, one statement: the round of the key's first new job comes from two index lookups in the
        // same statement; with a unique key, ON CONFLICT DO NOTHING, and the holder's id read in the same statement
        String round = "SELECT GREATEST(COALESCE((SELECT MAX(key_seq) FROM " + jobs + " WHERE job_key = :key AND "
                + live + "), 0) + 1, COALESCE((SELECT MIN(key_seq) FROM " + jobs + " WHERE " + live
                + " AND key_seq > 0 AND due_ms <= " + now + "), 1)) AS base";
        String columns = " (payload, prio, state, due_ms, attempts, enqueued_ms, job_key, unique_key, key_seq)";
        String values = "p.payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now;
        String note = notify ? ", note AS (SELECT pg_notify(:channel, CAST(:delay AS TEXT)) AS sent WHERE EXISTS"
                + " (SELECT 1 FROM ins))" : "";
        String noteJoin = notify ? " LEFT JOIN note ON TRUE" : "";
        enqueueKeyed = Sql.of("WITH r AS (" + round + "), ins AS (INSERT INTO " + jobs + columns + " SELECT " + values
                + ", :key, NULL, r.base + p.ord - 1 FROM " + PgArrays.payloadRows("payloads") + " CROSS JOIN r ORDER BY"
                + " p.ord RETURNING id)" + note + " SELECT ins.id FROM ins" + noteJoin + " ORDER BY ins.id");
        String conflict = " ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING RETURNING id)";
        String holder = " UNION ALL SELECT id, FALSE FROM " + jobs + " WHERE unique_key = :ukey AND " + live
                + " AND NOT EXISTS (SELECT 1 FROM ins)";
        enqueueUnique = Sql.of("WITH ins AS (INSERT INTO " + jobs + columns + " VALUES (:payload, :prio, "
                + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ", NULL, :ukey, 0)" + conflict + note
                + " SELECT ins.id, TRUE AS inserted FROM ins" + noteJoin + holder);
        enqueueUniqueKeyed = Sql.of("WITH r AS (" + round + "), ins AS (INSERT INTO " + jobs + columns + " SELECT"
                + " :payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ", :key, :ukey, r.base"
                + " FROM r" + conflict + note + " SELECT ins.id, TRUE AS inserted FROM ins" + noteJoin + holder);
    }

    /**
     * A keyed enqueue in one statement: without a unique key, {@code INSERT ... SELECT FROM unnest(:payloads)} with the
     * key's round computed in the statement; with one, {@code INSERT ... ON CONFLICT (unique_key) WHERE unique_key IS
     * NOT NULL DO NOTHING} and, when it inserted nothing, the holder's id read in the same statement. That read sees
     * the statement's snapshot, which misses a holder that committed while the insert waited for it: the statement
     * then returns no row and runs again (a new snapshot), as it does when the holder ended meanwhile. No unique-key
     * violation is raised, so the server logs no error for a duplicate.
     */
    @Override
    public SqlOp<long[]> enqueueKeyed(List<String> payloads, int priority, long delayMs, String key,
                                      String uniqueKey) {
        if (uniqueKey == null) {
            return SqlOp.statement(c -> {
                try (PreparedStatement ps = enqueueKeyed.prepare(c)) {
                    bind(enqueueKeyed, ps).setInt("prio", priority).set("delay", delayMs).set("key", key)
                            .setArray("payloads", PgArrays.texts(c, payloads)).done();
                    long[] ids = Jdbc.longs(ps).stream().mapToLong(Long::longValue).toArray();
                    if (ids.length != payloads.size()) {
                        throw new SQLException("enqueue into " + t.jobs() + " returned " + ids.length + " ids for "
                                + payloads.size() + " jobs");
                    }
                    return ids;
                }
            });
        }
        Sql sql = key == null ? enqueueUnique : enqueueUniqueKeyed;
        return SqlOp.statement(c -> {
            for (int attempt = 0; attempt < KeyedClaims.UNIQUE_ATTEMPTS; attempt++) {
                try (PreparedStatement ps = sql.prepare(c)) {
                    Sql.Binder b = bind(sql, ps).set("payload", payloads.get(0)).setInt("prio", priority)
                            .set("delay", delayMs).set("ukey", uniqueKey);
                    if (key != null) {
                        b.set("key", key);
                    }
                    b.done();
                    java.util.OptionalLong id = Jdbc.firstLong(ps);
                    if (id.isPresent()) {
                        return new long[] {id.getAsLong()};
                    }
                }
            }
            throw new SQLException("unique key '" + uniqueKey + "' of " + t.jobs() + " was held by a job that ended,"
                    + " or committed unseen, " + KeyedClaims.UNIQUE_ATTEMPTS + " times in a row");
        });
    }

    /**
     * The claim gate of this queue on PostgreSQL: a transaction-level advisory lock (no row written, nothing to
     * vacuum), its key derived from the jobs table's name and written into the gate's statement (a constant of the
     * queue, not a value of a caller's). Another table whose name hashes alike only shares the gate (its limited
     * claims then take turns with these), never its counts.
     *
     * @param t the queue's tables
     * @return the lock key
     */
    static long advisoryLock(WorkTables t) {
        long h = 0xcbf29ce484222325L; // 64-bit FNV-1a of "rowqueue.claims:<jobs>"
        for (char ch : ("rowqueue.claims:" + t.jobs()).toCharArray()) {
            h ^= ch;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /**
     * @param t the queue's tables
     * @return the statement that takes the queue's claim gate ({@link #advisoryLock}) until the transaction ends
     */
    static Sql gate(WorkTables t) {
        return Sql.of("SELECT pg_advisory_xact_lock(" + advisoryLock(t) + ")");
    }

    /** Takes the queue's claim gate ({@link #gate}). */
    private void lockGate(Connection c) throws SQLException {
        try (PreparedStatement ps = gate.prepare(c)) {
            dialect.bind(gate, ps).done();
            ps.executeQuery().close();
        }
    }

    /**
     * A claim under a rule, in one statement: fair claims without a limit are the plain claim's statement in fair
     * order, one round trip; with a limit of 1, the same statement with the per-key conditions runs in a transaction
     * after the gate's advisory lock ({@link #advisoryLock}), each sent on its own: the claim statement starts after the
     * gate is held, so its snapshot has every earlier limited claim's leases. (Both once went as one prepared statement
     * of two commands, which pgjdbc sends in one round trip and other drivers refuse: "cannot insert multiple commands
     * into a prepared statement", SQLState 42601.) A limit above 1 takes the portable rounds.
     *
     * <p>Under a per-key limit, the keys at their limit are read once, from the index of leased keyed jobs
     * ({@link WorkTables#leasedIndex()}), into a set each candidate's key is looked up in; where that index is
     * missing (a queue whose schema is managed by hand and was not given it), each candidate key's leases are counted.
     *
     * @param rule the rule, not plain
     * @param acks 0, 1 or 2 (several) acks
     * @param set  whether the keys at their limit are read into a set ({@link #leasedIndexed}: only under a limit)
     * @return the statement
     */
    private Sql keyed(ClaimRule rule, int acks, int max, boolean set) {
        String limit = max <= LITERAL_LIMITS ? String.valueOf(max) : ":n";
        return keyed.computeIfAbsent(rule + "/" + acks + "/" + limit + "/" + set, k -> {
            String exclude = acks == 0 ? "" : acks == 1 ? " AND j.id <> :id" : " AND j.id <> ALL(CAST(:ids AS BIGINT[]))";
            java.util.function.UnaryOperator<String> unacked = alias -> acks == 0 ? ""
                    : " AND " + alias + ".id NOT IN (SELECT id FROM a)";
            // under a per-key limit, the keys at their limit are read once (from the index of leased keyed jobs)
            // into a hashed set, and a candidate's key is looked up in it: counting each candidate key's leases
            // cost a subquery for every queued job of every busy key the claim walks past
            String atLimit = set ? "at_limit AS " + materialized + "(" + portable.keyed().keysAtLimit(unacked)
                    + "), " : "";
            String condition = set ? " AND (j.job_key IS NULL OR (j.job_key NOT IN (SELECT job_key FROM"
                    + " at_limit) AND " + portable.keyed().nextOfKey(unacked, PostgresWorkForms::before) + "))"
                    : portable.keyedCondition(rule, unacked);
            String lock = "SELECT j.id, j.due_ms FROM " + t.jobs() + " j WHERE " + JobRules.claimable("j", now)
                    + exclude + condition + portable.keyedOrder(rule) + " LIMIT " + limit
                    + " FOR UPDATE SKIP LOCKED";
            // the jobs come back with their round, to be sorted into fair order
            String leaseKeyed = lease + ", q.key_seq AS claimed_seq";
            String claim = acks == 0 ? "WITH " + atLimit + "c AS " + materialized + "(" + lock + ") " + leaseKeyed
                    : (acks == 1 ? ackOne : ackMany) + ", " + atLimit + "c AS " + materialized + "(" + lock + "), u AS ("
                            + leaseKeyed + ")" + handoff.replace(" FROM a UNION", ", NULL AS claimed_seq FROM a UNION");
            return Sql.of(claim);
        });
    }

    /**
     * Batch sizes up to which a claim under a rule writes its row limit into the statement ({@code LIMIT 10}) instead
     * of binding it. With a bound {@code LIMIT $1}, PostgreSQL's plan cache estimates the generic plan for an unknown
     * fraction of the rows, finds it costlier than a custom plan for the actual limit, and plans the statement anew on
     * every execution: for these statements, with their per-key subqueries, the planning takes longer than running
     * them (docs/postgresql.md). With the limit written, the cached generic plan is the custom plan and is reused.
     * Each size is its own statement text; larger batches bind it.
     */
    static final int LITERAL_LIMITS = 256;

    /**
     * A row value comparison, {@code (o.key_seq, o.id) < (j.key_seq, j.id)}: PostgreSQL reads it as one range of the
     * key index {@code (job_key, state, key_seq, id)}, so finding whether a job comes before the candidate stops at
     * the key's first due job.
     */
    static String before(String o, String j) {
        return "(" + o + ".key_seq, " + o + ".id) < (" + j + ".key_seq, " + j + ".id)";
    }

    /** Whether a rule's claim is one round trip ({@link #keyed}): fair without a limit, or a limit of 1. */
    private static boolean oneTrip(ClaimRule rule) {
        return rule.maxLeasedPerKey() <= 1;
    }

    /** Binds what every {@link #keyed} statement may name: token, lease, row limit and per-key limit. */
    private Sql.Binder bindKeyed(Sql sql, PreparedStatement ps, int max, long leaseMs, long token, ClaimRule rule)
            throws SQLException {
        Sql.Binder b = dialect.bind(sql, ps).set("token", token).set("lease", leaseMs);
        if (sql.has("n")) {
            b.setInt("n", max);
        }
        return KeyedClaims.perKey(sql, b, rule);
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule) {
        if (!oneTrip(rule)) {
            return null; // the portable rounds
        }
        return gated(rule, c -> {
            Sql sql = keyed(rule, 0, max, leasedIndexed(c, rule));
            List<Keyed> claimed = new ArrayList<>();
            try (PreparedStatement ps = sql.prepare(c)) {
                bindKeyed(sql, ps, max, leaseMs, token, rule).done();
                rows(ps, rs -> claimed.add(Keyed.of(rs, dialect)));
            }
            return Keyed.inOrder(claimed, rule);
        });
    }

    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                              ClaimRule rule) {
        if (!oneTrip(rule)) {
            return null; // the portable rounds
        }
        if (ids.length == 0) {
            SqlOp<List<Job>> claim = claim(max, leaseMs, token, rule);
            return SqlOp.statement(c -> new AckedAndClaimed(Set.of(), claim.run(c)));
        }
        return gated(rule, c -> {
            Sql sql = keyed(rule, ids.length == 1 ? 1 : 2, max, leasedIndexed(c, rule));
            List<Keyed> claimed = new ArrayList<>();
            Set<Long> acked = new HashSet<>();
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = bindKeyed(sql, ps, max, leaseMs, token, rule);
                if (ids.length == 1) {
                    b.set("id", ids[0]).set("tok", tokens[0]);
                } else {
                    b.setArray("ids", PgArrays.longs(c, ids)).setArray("toks", PgArrays.longs(c, tokens));
                }
                b.done();
                rows(ps, rs -> {
                    if (rs.getBoolean("claimed")) {
                        claimed.add(Keyed.of(rs, dialect));
                    } else {
                        acked.add(rs.getLong("id"));
                    }
                });
            }
            return new AckedAndClaimed(acked, Keyed.inOrder(claimed, rule));
        });
    }

    /**
     * Whether the index of leased keyed jobs exists, asked once per store under a per-key limit. rowqueue creates it
     * with the queue, and on an existing queue when the queue is first opened with schema creation on; a queue whose
     * schema is managed by hand may lack it, and is then claimed from with a count per candidate, with one WARN.
     */
    private boolean leasedIndexed(java.sql.Connection c, ClaimRule rule) throws SQLException {
        if (!rule.limited()) {
            return false;
        }
        Boolean known = leasedIndexed;
        if (known == null) {
            try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
                ps.setString(1, t.leasedIndex());
                try (ResultSet rs = ps.executeQuery()) {
                    known = rs.next() && rs.getBoolean(1);
                }
            }
            if (!known) {
                log.warn("rowqueue: work queue {} has no index {}: claims under a per-key limit count each candidate"
                        + " key's leases instead of reading the keys at their limit once; create it with the DDL of"
                        + " 'rowqueue schema --dialect postgresql --work {}'", t.jobs(), t.leasedIndex(), t.jobs());
            }
            leasedIndexed = known;
        }
        return known;
    }

    /** A job a claim under a rule returned, with its due time before the lease and its round. */
    private record Keyed(Claimed claimed, long round) {
        static Keyed of(ResultSet rs, dev.rowqueue.spi.Dialect dialect) throws SQLException {
            return new Keyed(Claimed.of(rs, dialect), rs.getLong("claimed_seq"));
        }

        /** @return the jobs in the claim's order: fair order (round, priority, id) or claim order */
        static List<Job> inOrder(List<Keyed> keyed, ClaimRule rule) {
            if (!rule.fair()) {
                List<Claimed> claimed = new ArrayList<>();
                keyed.forEach(k -> claimed.add(k.claimed()));
                return inClaimOrder(claimed);
            }
            keyed.sort(java.util.Comparator.comparingLong(Keyed::round)
                    .thenComparing(k -> -(long) k.claimed().job().priority())
                    .thenComparingLong(k -> k.claimed().job().id()));
            return keyed.stream().map(k -> k.claimed().job()).toList();
        }
    }

    /** Reads a row of a result set. */
    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    /**
     * A one-statement claim: under a per-key limit, in a transaction that takes the gate's advisory lock first
     * ({@link #advisoryLock}) and then runs the claim, statement by statement; otherwise the claim alone, in auto-commit.
     */
    private <R> SqlOp<R> gated(ClaimRule rule, SqlOp<R> claim) {
        return rule.limited() ? SqlOp.transaction(c -> {
            lockGate(c);
            return claim.run(c);
        }) : SqlOp.statement(claim);
    }

    /** Runs a query and reads its rows. */
    private static void rows(PreparedStatement ps, RowReader reader) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                reader.read(rs);
            }
        }
    }

    /** Job columns of a table alias, labelled as {@link Jdbc#job} reads them. */
    private static String qualified(String alias) {
        StringBuilder b = new StringBuilder();
        for (String column : Jdbc.JOB_COLUMNS.split(",\\s*")) {
            b.append(b.length() == 0 ? "" : ", ").append(alias).append('.').append(column);
        }
        return b.toString();
    }

    /** An update returning how many rows it changed, notifying listeners if any. */
    private static String counted(String update, boolean notify) {
        String count = "WITH u AS (" + update + " RETURNING id) SELECT n.changed";
        return notify
                ? count + ", CASE WHEN n.changed > 0 THEN pg_notify(:channel, '0') END FROM (SELECT COUNT(*) AS changed"
                        + " FROM u) n"
                : count + " FROM (SELECT COUNT(*) AS changed FROM u) n";
    }

    private Sql.Binder bind(Sql sql, PreparedStatement ps) throws SQLException {
        Sql.Binder b = dialect.bind(sql, ps);
        if (sql.has("channel")) {
            b.set("channel", channel);
        }
        return b;
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        boolean one = payloads.size() == 1;
        return SqlOp.statement(c -> {
            // an enqueue due now in auto-commit mode (committed when its statement returns) has its notification
            // coalesced with concurrent ones (Notices); in a transaction, it notifies in its statement, delivered at
            // the commit, whenever that is
            boolean coalesce = enqueueQuiet != null && delayMs == 0 && c.getAutoCommit();
            boolean lead = !coalesce || notices.lead();
            long[] ids;
            try {
                ids = insert(c, lead ? (one ? enqueueOne : enqueue) : (one ? enqueueOneQuiet : enqueueQuiet),
                        payloads, priority, delayMs);
            } finally {
                if (coalesce && lead) {
                    notices.led(() -> notifyNow(c));
                }
            }
            if (!lead) {
                notices.owe(() -> notifyNow(c));
            }
            return ids;
        });
    }

    /**
     * Sends a coalesced notification on the connection of an enqueue whose statement has committed; a failure is
     * logged, never thrown, since the enqueue is done (a listener sees its job at its bounded poll).
     */
    private void notifyNow(Connection c) {
        try (PreparedStatement ps = notifyNow.prepare(c)) {
            bind(notifyNow, ps).done();
            ps.execute();
        } catch (SQLException | RuntimeException e) {
            log.debug("rowqueue: a coalesced NOTIFY on {} failed; listeners see the jobs at their bounded poll",
                    channel, e);
        }
    }

    private long[] insert(Connection c, Sql sql, List<String> payloads, int priority, long delayMs)
            throws SQLException {
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = bind(sql, ps).setInt("prio", priority).set("delay", delayMs);
            if (payloads.size() == 1) {
                b.set("payload", payloads.get(0));
            } else {
                b.setArray("payloads", PgArrays.texts(c, payloads));
            }
            b.done();
            long[] ids = Jdbc.longs(ps).stream().mapToLong(Long::longValue).toArray();
            if (ids.length != payloads.size()) {
                throw new SQLException("enqueue into " + t.jobs() + " returned " + ids.length + " ids for "
                        + payloads.size() + " jobs");
            }
            return ids;
        }
    }

    /**
     * The claim statement of one job: {@code sql} with its row limit written in, {@code LIMIT 1} for {@code LIMIT :n}.
     * With a bound limit PostgreSQL's plan cache finds the generic plan (estimated for an unknown share of the rows)
     * costlier than a custom plan for the actual limit and plans the statement anew on every execution; with the limit
     * written in, the generic plan is the custom plan, and from pgjdbc's fifth execution (a statement prepared on the
     * server) it is planned once per session and reused (docs/postgresql.md, "Claim"). The plan is the partial claim
     * index's walk, stopped at the first unlocked due job, also on a queue never analyzed and on one of a million dead
     * rows and a few due jobs ({@code PostgresClaimPlanTest}, {@code PostgresClaimPlanSoakTest}). The claim after
     * several acks binds arrays of ids and keeps custom plans; a larger batch keeps its bound limit and custom plans.
     *
     * @param sql a claim statement with {@code LIMIT :n}
     * @return the statement with {@code LIMIT 1}
     */
    private static Sql claimOne(Sql sql) {
        String text = sql.text();
        if (text.indexOf("LIMIT :n") < 0 || text.indexOf("LIMIT :n") != text.lastIndexOf("LIMIT :n")) {
            throw new IllegalStateException("not one bound row limit: " + text);
        }
        return Sql.of(text.replace("LIMIT :n", "LIMIT 1"));
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        if (max != 1) {
            return SqlOp.statement(c -> portable.claims().returning(c, claim, max, leaseMs, token));
        }
        return SqlOp.statement(c -> {
            List<Claimed> claimed = new ArrayList<>();
            try (PreparedStatement ps = claimOne.prepare(c)) {
                dialect.bind(claimOne, ps).set("token", token).set("lease", leaseMs).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        claimed.add(Claimed.of(rs, dialect));
                    }
                }
            }
            return inClaimOrder(claimed);
        });
    }

    /** Acks and claims in one statement: a {@code DELETE} and the claim as data-modifying CTEs. */
    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
        if (ids.length == 0) {
            return null; // the claim alone
        }
        Sql sql = max == 1 ? (ids.length == 1 ? ackOneAndClaimOne : ackManyAndClaimOne)
                : ids.length == 1 ? ackOneAndClaim : ackManyAndClaim;
        return SqlOp.statement(c -> {
            List<Claimed> claimed = new ArrayList<>();
            Set<Long> acked = new HashSet<>();
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).set("token", token).set("lease", leaseMs);
                if (max != 1) {
                    b.setInt("n", max);
                }
                if (ids.length == 1) {
                    b.set("id", ids[0]).set("tok", tokens[0]);
                } else {
                    b.setArray("ids", PgArrays.longs(c, ids)).setArray("toks", PgArrays.longs(c, tokens));
                }
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getBoolean("claimed")) {
                            claimed.add(Claimed.of(rs, dialect));
                        } else {
                            acked.add(rs.getLong("id"));
                        }
                    }
                }
            }
            return new AckedAndClaimed(acked, inClaimOrder(claimed));
        });
    }

    /**
     * Leases rotation candidates and those of claims under a rule with a limit above 1 (locked by the caller's
     * {@code FOR UPDATE SKIP LOCKED}) in one statement.
     */
    @Override
    public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        Sql lease = Sql.of("UPDATE " + t.jobs() + " SET " + JobRules.lease(now) + " WHERE id = ANY(CAST(:ids AS"
                + " BIGINT[])) AND " + JobRules.claimable(now) + " RETURNING " + Jdbc.JOB_COLUMNS);
        try (PreparedStatement ps = lease.prepare(c)) {
            dialect.bind(lease, ps).set("token", token).set("lease", leaseMs).setArray("ids", PgArrays.longs(c, ids))
                    .done();
            return Claims.inOrder(Jdbc.jobs(ps, dialect), ids);
        }
    }

    private SqlOp<Boolean> changesOne(Sql sql, long id, long token, Binding extra) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = bind(sql, ps).set("id", id).set("token", token);
                extra.bind(b);
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    private interface Binding {
        void bind(Sql.Binder b) throws SQLException;
    }

    @Override
    public SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        return changesOne(nack, id, token, b -> b.setInt("max", maxAttempts).set("delay", delayMs).set("error", error));
    }

    @Override
    public SqlOp<Boolean> release(long id, long token) {
        return changesOne(release, id, token, b -> { });
    }

    @Override
    public SqlOp<Integer> revive(OptionalLong id) {
        Sql sql = id.isPresent() ? reviveOne : reviveAll;
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = bind(sql, ps);
                if (id.isPresent()) {
                    b.set("id", id.getAsLong());
                }
                b.done();
                return (int) Jdbc.firstLong(ps).orElse(0);
            }
        });
    }
}
