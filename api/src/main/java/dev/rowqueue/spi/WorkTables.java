package dev.rowqueue.spi;

import java.util.List;

/**
 * The tables of a work queue. Column names are the same on every database:
 * <ul>
 *   <li>{@code jobs}: {@code id, payload, prio, state, due_ms, attempts, lease_token, enqueued_ms, last_error, job_key,
 *       unique_key, key_seq} (the last three since schema version 2, see {@link Schema#keyColumns()});
 *       {@code state} is {@link #LIVE} or {@link #DEAD}; a live job with {@code due_ms} in the past is claimable;
 *       a leased job has a {@code lease_token} and {@code due_ms} is when its lease ends;</li>
 *   <li>{@code cursors}: {@code cursor_name, last_id}, the positions of {@code rotate} cursors, and the row
 *       {@link #CLAIM_GATE} that claims with a per-key limit lock.</li>
 * </ul>
 *
 * @param queue      the queue name
 * @param jobs       the jobs table (named like the queue)
 * @param cursors    the rotation cursor table
 * @param claimIndex the index on {@code (state, prio DESC, due_ms, id)} claims walk
 * @param deadIndex  the name for a separate dead-letter index, where a dialect keeps one
 */
public record WorkTables(String queue, String jobs, String cursors, String claimIndex, String deadIndex) {

    /** {@code state} of a job that can be claimed, is leased or waits for its due time. */
    public static final int LIVE = 0;
    /** {@code state} of a job that exhausted its attempts. */
    public static final int DEAD = 1;
    /**
     * The cursor name of the row in the cursors table that claims with a per-key limit lock (and count up in
     * {@code last_id}, a write every database, Galera included, orders). Cursor names of this prefix are refused.
     */
    public static final String CLAIM_GATE = "rowqueue.claims";
    /**
     * The cursor name of the row in the cursors table that rate-limited claims lock ({@code last_id}: how many jobs the
     * queue's rate limit has let start, ever). Each start's time is kept in the row {@code rowqueue.rate.<n mod
     * limit>}, a ring of as many rows as the limit allows per window.
     */
    public static final String RATE_HEAD = "rowqueue.rate";
    /** The prefix of cursor names reserved for rowqueue. */
    public static final String RESERVED_CURSOR_PREFIX = "rowqueue.";

    /**
     * @param queue a validated queue name
     * @return its table names
     */
    public static WorkTables of(String queue) {
        return new WorkTables(queue, queue, queue + "_rot", queue + "_due", queue + "_dead");
    }

    /** @return the tables, in creation order */
    public List<String> tables() {
        return List.of(jobs, cursors);
    }

    /** @return the unique index on live jobs' unique keys */
    public String uniqueIndex() {
        return queue + "_uniq";
    }

    /** @return the index of each key's jobs in enqueue order */
    public String keyIndex() {
        return queue + "_key";
    }

    /** @return the index of each key's leased jobs */
    public String leaseIndex() {
        return queue + "_kls";
    }

    /**
     * @return the index of leased keyed jobs alone, where a dialect has partial indexes (PostgreSQL): claims under a
     *         per-key limit read the keys at their limit from it once, instead of counting each candidate's leases
     */
    public String leasedIndex() {
        return queue + "_lsd";
    }

    /** @return the index fair claims walk */
    public String fairIndex() {
        return queue + "_fair";
    }

    /** @return the sequence job ids are drawn from, where a dialect has no identity column (the portable one) */
    public String sequence() {
        return queue + "_seq";
    }

    /** @return every name the queue may take in the database's namespace: tables, indexes and its sequence */
    public List<String> objects() {
        return List.of(jobs, cursors, claimIndex, deadIndex, uniqueIndex(), keyIndex(), leaseIndex(), fairIndex(),
                leasedIndex(), sequence());
    }
}
