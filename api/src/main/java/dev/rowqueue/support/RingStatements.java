package dev.rowqueue.support;

import dev.rowqueue.support.Sql;

/**
 * The statements a database runs for a ring instead of the portable ones; a {@code null} statement keeps the
 * portable step. The portable push is one transaction: bump the group's head row (which locks it until the
 * transaction ends, so the group's producers take turns), then write each slot {@code seq mod capacity}.
 *
 * Built by name from {@link #PORTABLE} ({@code PORTABLE.withBump(...).withUpsert(...)}), so a slot left out keeps
 * the portable step.
 *
 * @param bump         the head row's bump in one statement that returns the new last sequence number: binds
 *                     {@code :n}, {@code :grp} and {@code :max} ({@code Long.MAX_VALUE - n}); no row means the group
 *                     is new or its numbers are exhausted, and the portable steps then create the head row or tell
 *                     which
 * @param upsert       a slot's write in one statement: binds {@code :grp}, {@code :slot}, {@code :seq} and
 *                     {@code :payload}; run once for one slot, as one batch for several
 * @param pushOne      a push of one payload in one statement, in auto-commit mode, that bumps the head row and writes
 *                     the slot: binds {@code :grp}, {@code :cap} and {@code :payload} and returns the new sequence
 *                     number, or no row when the group's numbers are exhausted; a unique-key violation (two producers
 *                     creating one head row) is retried
 * @param newestByHead for rings without an index on {@code (grp, seq)}: the newest {@code :limit} entries of group
 *                     {@code :grp} (columns {@code Jdbc.ENTRY_COLUMNS}, newest first), {@code :limit} being below the
 *                     capacity {@code :cap}, found through the head row's last sequence number (the slots of the last
 *                     {@code :limit} numbers), leaving out slots that hold older numbers (the group was cleared since)
 * @param singleWriter the {@link dev.rowqueue.RingStrategy#SINGLE_WRITER} push of one payload: binds {@code :grp},
 *                     {@code :cap} and {@code :payload}, numbers the entry {@code MAX(seq) + 1} of its group and
 *                     returns that number; a number past {@link Long#MAX_VALUE} must fail with an error the dialect
 *                     classifies as numeric overflow. When set, every push runs it once per payload (one statement
 *                     for one payload, one transaction for several) and the other statements are not used for pushes
 */
public record RingStatements(Sql bump, Sql upsert, Sql pushOne, Sql newestByHead, Sql singleWriter) {

    /** The portable ring: no statement of the database's own. */
    public static final RingStatements PORTABLE = new RingStatements(null, null, null, null, null);

    /**
     * @param singleWriter the single-writer push ({@link #singleWriter()})
     * @return statements of a single-writer ring
     */
    public static RingStatements singleWriter(Sql singleWriter) {
        return PORTABLE.withSingleWriter(singleWriter);
    }

    /**
     * @param bump the head row's bump ({@link #bump()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withBump(Sql bump) {
        return new RingStatements(bump, upsert, pushOne, newestByHead, singleWriter);
    }

    /**
     * @param upsert the slot's write ({@link #upsert()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withUpsert(Sql upsert) {
        return new RingStatements(bump, upsert, pushOne, newestByHead, singleWriter);
    }

    /**
     * @param pushOne the push of one payload ({@link #pushOne()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withPushOne(Sql pushOne) {
        return new RingStatements(bump, upsert, pushOne, newestByHead, singleWriter);
    }

    /**
     * @param newestByHead the newest entries through the head row ({@link #newestByHead()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withNewestByHead(Sql newestByHead) {
        return new RingStatements(bump, upsert, pushOne, newestByHead, singleWriter);
    }

    /**
     * @param singleWriter the single-writer push ({@link #singleWriter()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withSingleWriter(Sql singleWriter) {
        return new RingStatements(bump, upsert, pushOne, newestByHead, singleWriter);
    }
}
