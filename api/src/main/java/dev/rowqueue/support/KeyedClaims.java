package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * Keyed jobs: enqueues with a job key (its round, {@code key_seq}) or a unique key (at most one live job holds it),
 * and claims under a {@link ClaimRule} (at most so many leased jobs per key, fair rounds across keys).
 */
public final class KeyedClaims {

    /** How many times an enqueue with a unique key inserts after the live job that held the key ended meanwhile. */
    public static final int UNIQUE_ATTEMPTS = 16;

    /** The steps keyed operations take from their store, which dialects may change. */
    public interface Steps {
        /**
         * @param c         a connection
         * @param uniqueKey a unique key
         * @return the id of the live job holding it, if any
         * @throws SQLException from the driver
         */
        OptionalLong liveUnique(Connection c, String uniqueKey) throws SQLException;

        /**
         * @param c   a connection
         * @param key a job key
         * @return the round of a new job of the key
         * @throws SQLException from the driver
         */
        long keyRound(Connection c, String key) throws SQLException;

        /**
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
        long insertKeyed(Connection c, String payload, int priority, long delayMs, String key, String uniqueKey,
                         long round) throws SQLException;

        /**
         * @param c    a connection in a transaction
         * @param rule the rule
         * @param n    the most ids
         * @return candidate ids under the rule, in claim order
         * @throws SQLException from the driver
         */
        List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException;

        /**
         * @param c       a connection in a transaction
         * @param ids     candidates
         * @param leaseMs the lease
         * @param token   the lease token
         * @return the jobs leased, in the order of {@code ids}
         * @throws SQLException from the driver
         */
        List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException;

        /**
         * @param round   the rounds that lost candidates so far
         * @param claimed the jobs the claim has
         * @return whether the claim may run another round
         */
        boolean anotherRound(int round, int claimed);
    }

    /**
     * Binds the per-key limit of a statement built with {@link KeyedClaims#condition}, if it names one.
     *
     * @param sql  the statement
     * @param b    its binder
     * @param rule the claim rule
     * @return the binder
     * @throws SQLException from the driver
     */
    public static Sql.Binder perKey(Sql sql, Sql.Binder b, ClaimRule rule) throws SQLException {
        return sql.has("per_key") ? b.setInt("per_key", rule.maxLeasedPerKey()) : b;
    }

    private final Dialect dialect;
    private final WorkTables t;
    private final String now;
    private final Sql insertKeyed;
    private final Sql keyRound;
    private final Sql liveUnique;

    /**
     * @param dialect the dialect
     * @param t       the queue's tables
     */
    public KeyedClaims(Dialect dialect, WorkTables t) {
        this.dialect = dialect;
        this.t = t;
        this.now = dialect.nowMillis();
        String live = "state = " + WorkTables.LIVE;
        insertKeyed = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms,"
                + " job_key, unique_key, key_seq) VALUES (:payload, :prio, " + WorkTables.LIVE + ", " + now
                + " + :delay, 0, " + now + ", :key, :ukey, :seq)");
        keyRound = Sql.of("SELECT 1 AS part, MAX(key_seq) AS key_seq FROM " + t.jobs() + " WHERE job_key = :key AND "
                + live + " UNION ALL SELECT 2, MIN(key_seq) FROM " + t.jobs() + " WHERE " + live
                + " AND key_seq > 0 AND due_ms <= " + now);
        liveUnique = Sql.of("SELECT id FROM " + t.jobs() + " WHERE unique_key = :ukey AND " + live);
    }

    /**
     * Inserts each job with its key and its round; with a unique key, first looks for the live job holding it, and
     * inserts only if there is none, under a savepoint: a producer that loses the race rolls back to the savepoint
     * and reads the winner's id, or, if that job already ended, inserts again.
     *
     * @param c         a connection in a transaction
     * @param steps     the store's steps
     * @param payloads  the payloads (one with a unique key)
     * @param priority  the priority
     * @param delayMs   the delay
     * @param key       the job key, or {@code null}
     * @param uniqueKey the unique key, or {@code null}
     * @return the ids: the new jobs', or the live holder's of the unique key
     * @throws SQLException from the driver
     */
    public long[] enqueue(Connection c, Steps steps, List<String> payloads, int priority, long delayMs, String key,
                          String uniqueKey) throws SQLException {
        if (uniqueKey != null) {
            OptionalLong holder = steps.liveUnique(c, uniqueKey);
            if (holder.isPresent()) {
                return new long[] {holder.getAsLong()};
            }
        }
        long round = key == null ? 0 : steps.keyRound(c, key);
        long[] ids = new long[payloads.size()];
        if (uniqueKey == null) {
            for (int i = 0; i < ids.length; i++) {
                ids[i] = steps.insertKeyed(c, payloads.get(i), priority, delayMs, key, null, round + i);
            }
            return ids;
        }
        for (int attempt = 0; attempt < UNIQUE_ATTEMPTS; attempt++) {
            long[] inserted = new long[1];
            if (Jdbc.insertUnlessExists(c, dialect, () -> inserted[0] = steps.insertKeyed(c, payloads.get(0), priority,
                    delayMs, key, uniqueKey, round))) {
                return inserted;
            }
            OptionalLong holder = steps.liveUnique(c, uniqueKey);
            if (holder.isPresent()) {
                return new long[] {holder.getAsLong()};
            }
        }
        throw new SQLException("the live job holding unique key '" + uniqueKey + "' of " + t.jobs()
                + " ended " + UNIQUE_ATTEMPTS + " times between an insert that found it and the read of its id");
    }

    /**
     * @param c         a connection
     * @param uniqueKey a unique key
     * @return the id of the live job holding it, if any
     * @throws SQLException from the driver
     */
    public OptionalLong liveUnique(Connection c, String uniqueKey) throws SQLException {
        try (PreparedStatement ps = liveUnique.prepare(c)) {
            dialect.bind(liveUnique, ps).set("ukey", uniqueKey).done();
            return Jdbc.firstLong(ps);
        }
    }

    /**
     * The round of a new job of a key ({@code key_seq}): one more than the newest live job of the key, and at least
     * the lowest round of the queue's due keyed jobs, so a key that was idle joins the round the queue is in.
     *
     * @param c   a connection
     * @param key the job key
     * @return the round, at least 1
     * @throws SQLException from the driver
     */
    public long keyRound(Connection c, String key) throws SQLException {
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
     * Inserts one job with its key columns, reading its id as a generated key.
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
    public long insertKeyed(Connection c, String payload, int priority, long delayMs, String key, String uniqueKey,
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
     * Claims in rounds: each round leases the candidates it finds, at most one job per key under a per-key limit.
     * With a limit of 1 one round is enough (every key it took is full), unless it lost candidates to other
     * consumers; with a higher limit the next round takes each key's next job, until a round finds nothing.
     *
     * @param c       a connection in a transaction (holding the gate under a per-key limit)
     * @param steps   the store's steps
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @param rule    the rule
     * @return the jobs, round by round, each round in its claim order
     * @throws SQLException from the driver
     */
    public List<Job> rounds(Connection c, Steps steps, int max, long leaseMs, long token, ClaimRule rule)
            throws SQLException {
        List<Job> claimed = new ArrayList<>();
        int lost = 0;
        while (claimed.size() < max) {
            List<Long> ids = steps.keyedCandidates(c, rule, max - claimed.size());
            if (ids.isEmpty()) {
                break;
            }
            List<Job> leased = steps.leaseAndRead(c, ids, leaseMs, token);
            claimed.addAll(leased);
            if (leased.size() < ids.size()) {
                if (!steps.anotherRound(++lost, claimed.size())) {
                    break;
                }
            } else if (rule.maxLeasedPerKey() <= 1) {
                break; // got every candidate, and no key may have a second job: nothing more to find
            }
        }
        return claimed;
    }

    /**
     * The per-key part of a claim's candidate condition, on a candidate aliased {@code j}: under a per-key limit,
     * only a key's next job (none of the key's due jobs comes before it) and only while the key has fewer than the
     * limit leased. Jobs without a key are not limited. The leased jobs are counted with a scalar subquery, not
     * {@code NOT EXISTS}: a planner may run an {@code EXISTS} once for all rows, where a count per candidate is an
     * index range on {@code (job_key, lease_token)} of a few rows.
     *
     * @param rule   the rule
     * @param extra  a further condition on the rows the subqueries look at, by their alias ({@code o}: the key's due
     *               jobs, {@code l}: its leased jobs); "" for none
     * @param before the condition that the job of the first alias comes before the second's in the key's order
     * @return {@code " AND (j.job_key IS NULL OR (...))"}, or "" without a per-key limit
     */
    public String condition(ClaimRule rule, UnaryOperator<String> extra, BinaryOperator<String> before) {
        if (!rule.limited()) {
            return "";
        }
        return " AND (j.job_key IS NULL OR ((SELECT COUNT(*) FROM " + t.jobs() + " l WHERE l.job_key = j.job_key AND "
                + leased("l") + extra.apply("l") + ") < :per_key AND " + nextOfKey(extra, before) + "))";
    }

    /**
     * That the candidate {@code j} is its key's next job: none of the key's due jobs comes before it.
     *
     * @param extra  a further condition on the key's due jobs, by their alias {@code o}; "" for none
     * @param before the condition that the job of the first alias comes before the second's in the key's order
     * @return the condition
     */
    public String nextOfKey(UnaryOperator<String> extra, BinaryOperator<String> before) {
        return "NOT EXISTS (SELECT 1 FROM " + t.jobs() + " o WHERE o.job_key = j.job_key AND "
                + JobRules.claimable("o", now) + " AND " + before.apply("o", "j") + extra.apply("o") + ")";
    }

    /**
     * The keys at their limit, {@code :per_key} or more unexpired leases, as a query of one column {@code job_key}:
     * for a claim that reads them once, into a set its candidates are checked against, instead of counting each
     * candidate key's leases. It reads the leased keyed jobs alone where an index holds just those
     * ({@link dev.rowqueue.spi.WorkTables#leasedIndex()}).
     *
     * @param extra a further condition on the leased jobs, by their alias {@code l}; "" for none
     * @return the query
     */
    public String keysAtLimit(UnaryOperator<String> extra) {
        return "SELECT l.job_key FROM " + t.jobs() + " l WHERE l.job_key IS NOT NULL AND " + leased("l")
                + extra.apply("l") + " GROUP BY l.job_key HAVING COUNT(*) >= :per_key";
    }

    /** That a job holds an unexpired lease. */
    private String leased(String alias) {
        return alias + ".lease_token IS NOT NULL AND " + alias + ".state = " + WorkTables.LIVE + " AND " + alias
                + ".due_ms > " + now;
    }
}
