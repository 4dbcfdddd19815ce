package dev.rowqueue.spi;

import java.util.List;

/**
 * The tables of a ring queue. Column names are the same on every database, so data can move between them:
 * <ul>
 *   <li>{@code entries}: {@code grp, slot, seq, payload, pushed_ms}, primary key {@code (grp, slot)}, unique
 *       {@code (grp, seq)};</li>
 *   <li>{@code heads}: {@code grp, last_seq}, primary key {@code grp} (the last sequence number given in the
 *       group; the lock that serializes a group's pushes).</li>
 * </ul>
 *
 * @param queue    the queue name
 * @param entries  the entries table (named like the queue)
 * @param heads    the head table
 * @param seqIndex the unique index on {@code (grp, seq)}
 */
public record RingTables(String queue, String entries, String heads, String seqIndex) {
    /**
     * @param queue a validated queue name
     * @return its table names
     */
    public static RingTables of(String queue) {
        return new RingTables(queue, queue, queue + "_head", queue + "_seq");
    }

    /** @return the tables, in creation order */
    public List<String> tables() {
        return List.of(entries, heads);
    }

    /** @return every name the queue may take in the database's namespace: tables and indexes */
    public List<String> objects() {
        return List.of(entries, heads, seqIndex);
    }
}
