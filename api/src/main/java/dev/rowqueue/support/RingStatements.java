package dev.rowqueue.support;

import dev.rowqueue.SequenceExhaustedException;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlOp;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The statements a database runs for a ring instead of the portable ones; a {@code null} slot keeps the portable
 * step. The portable push is one transaction: bump the group's head row (which locks it until the transaction ends,
 * so the group's producers take turns), then write each slot {@code seq mod capacity}.
 *
 * <p>Built by name from {@link #PORTABLE} ({@code PORTABLE.withBump(...).withUpsert(...)}), so a slot left out keeps
 * the portable step. Most slots are SQL with named parameters, whose binding and result the parameters below
 * describe. Where a database needs code (a PL/SQL call, a generated key, an array, a statement text that depends on
 * the number of rows) a slot is one of the hooks {@link Bump}, {@link Slots} and {@link Push}, which the store calls
 * with the ring's {@link Ring context}; a hook replaces the statement of the same step.
 *
 * @param bump              the head row's bump in one statement that returns the new last sequence number: binds
 *                          {@code :n}, {@code :grp} and {@code :max} ({@code Long.MAX_VALUE - n}); no row means the
 *                          group is new or its numbers are exhausted, and the portable steps then create the head row
 *                          or tell which
 * @param upsert            a slot's write in one statement: binds {@code :grp}, {@code :slot}, {@code :seq} and
 *                          {@code :payload}; run once for one slot, as one batch for several
 * @param pushOne           a push of one payload in one statement, in auto-commit mode, that bumps the head row and
 *                          writes the slot: binds {@code :grp}, {@code :cap} and {@code :payload} and returns the new
 *                          sequence number, or no row when the group's numbers are exhausted; a unique-key violation
 *                          (two producers creating one head row) is retried
 * @param newestByHead      for rings without an index on {@code (grp, seq)}: the newest {@code :limit} entries of
 *                          group {@code :grp} (columns {@code Jdbc.ENTRY_COLUMNS}, newest first), {@code :limit} being
 *                          below the capacity {@code :cap}, found through the head row's last sequence number (the
 *                          slots of the last {@code :limit} numbers), leaving out slots that hold older numbers (the
 *                          group was cleared since)
 * @param singleWriter      the {@link dev.rowqueue.RingStrategy#SINGLE_WRITER} push of one payload: binds
 *                          {@code :grp}, {@code :cap} and {@code :payload}, numbers the entry {@code MAX(seq) + 1} of
 *                          its group and returns that number; a number past {@link Long#MAX_VALUE} must fail with an
 *                          error the dialect classifies as numeric overflow. When set, every push runs it once per
 *                          payload (one statement for one payload, one transaction for several) and the other
 *                          statements are not used for pushes
 * @param singleWriterMerge the single-writer push of one payload for databases whose {@code MERGE} cannot return the
 *                          row it wrote ("method three" of Baron Schwartz's "How to implement a queue in SQL"): binds
 *                          {@code :grp}, {@code :cap} and {@code :payload}, reads the group's {@code MAX(seq) + 1} in
 *                          its source and writes slot {@code MOD(seq, capacity)}; a number past
 *                          {@link Long#MAX_VALUE} must fail with an error the dialect classifies as numeric overflow.
 *                          When set, a push runs it once per payload, then reads the group's {@code MAX(seq)}, all in
 *                          one transaction, and the other statements are not used for pushes. There is no head row:
 *                          correct only with one writer per group at a time, and a cleared group starts again at 1
 * @param bumpHook          the head row's bump in code, replacing {@code bump} and the portable bump
 * @param slotsHook         the slots' write in code, replacing {@code upsert} and the portable write
 * @param pushHook          the push in code, replacing the other ways to push
 */
public record RingStatements(Sql bump, Sql upsert, Sql pushOne, Sql newestByHead, Sql singleWriter,
                             Sql singleWriterMerge, Bump bumpHook, Slots slotsHook, Push pushHook) {

    /** The portable ring: no statement of the database's own. */
    public static final RingStatements PORTABLE = new RingStatements(null, null, null, null, null, null, null, null,
            null);

    /**
     * What the store tells a hook about its ring, with the arithmetic every push shares.
     *
     * @param dialect  the dialect, to bind parameters and classify errors
     * @param tables   the ring's tables
     * @param capacity its capacity
     */
    public record Ring(Dialect dialect, RingTables tables, int capacity) {

        /**
         * The slot of a sequence number.
         *
         * @param seq a sequence number
         * @return {@code seq mod capacity}
         */
        public int slot(long seq) {
            return (int) Math.floorMod(seq, (long) capacity);
        }

        /**
         * Which payloads of a push survive it: a push of more than {@code capacity} payloads only writes its last
         * {@code capacity}.
         *
         * @param n the push size
         * @return the index of the first payload to write
         */
        public int firstWritten(int n) {
            return Math.max(0, n - capacity);
        }

        /**
         * @param group the group
         * @param last  its last sequence number
         * @param n     the numbers asked for
         * @return the exception to throw when the group's numbers would pass {@link Long#MAX_VALUE}
         */
        public SequenceExhaustedException exhausted(String group, long last, int n) {
            return new SequenceExhaustedException("ring " + tables.queue() + ", group '" + group + "': sequence number "
                    + last + " + " + n + " would pass " + Long.MAX_VALUE + "; nothing was written");
        }

        /**
         * @param first the first number
         * @param n     how many
         * @return {@code first, first+1, ...}
         */
        public static long[] sequence(long first, int n) {
            long[] seqs = new long[n];
            for (int i = 0; i < n; i++) {
                seqs[i] = first + i;
            }
            return seqs;
        }
    }

    /** The head row's bump, for a database that needs code for it (a PL/SQL call, a generated key). */
    @FunctionalInterface
    public interface Bump {
        /**
         * Adds {@code n} to the group's last sequence number, creating the head row if missing, and locks it until
         * the transaction ends.
         *
         * @param c     a connection in a transaction
         * @param ring  the ring
         * @param group the group
         * @param n     how many numbers to take
         * @return the new last sequence number
         * @throws SQLException from the driver
         * @throws SequenceExhaustedException if the numbers would pass {@link Long#MAX_VALUE}
         *                                    ({@link Ring#exhausted})
         */
        long bump(Connection c, Ring ring, String group, int n) throws SQLException;
    }

    /** The slots' write, for a database that needs code for it (one statement whose text depends on the rows). */
    @FunctionalInterface
    public interface Slots {
        /**
         * Writes payloads into their slots ({@link Ring#slot}); only the last {@code capacity} of them
         * ({@link Ring#firstWritten}). Called with the group's head row locked, so no other producer writes the
         * group's slots concurrently.
         *
         * @param c        a connection in a transaction
         * @param ring     the ring
         * @param group    the group
         * @param firstSeq the sequence number of {@code payloads.get(0)}
         * @param payloads the payloads in order
         * @throws SQLException from the driver
         */
        void write(Connection c, Ring ring, String group, long firstSeq, List<String> payloads) throws SQLException;
    }

    /** A push the database does its own way: one statement, a PL/SQL call, a compound statement. */
    @FunctionalInterface
    public interface Push {
        /**
         * @param ring     the ring
         * @param group    the group
         * @param payloads the payloads in order
         * @param steps    the push by this set's other slots (bump the head row, write the slots, in one
         *                 transaction), for the pushes the database does not do its own way
         * @return the push: returns the sequence numbers it took, ascending, one per payload (a push of more than
         *         {@code capacity} payloads takes a number for each and writes only the last {@code capacity}), and
         *         reports numbers that would pass {@link Long#MAX_VALUE} as {@link Ring#exhausted}, with nothing
         *         written
         */
        SqlOp<long[]> push(Ring ring, String group, List<String> payloads, SqlOp<long[]> steps);
    }

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
        return with(c -> c.bump = bump);
    }

    /**
     * @param upsert the slot's write ({@link #upsert()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withUpsert(Sql upsert) {
        return with(c -> c.upsert = upsert);
    }

    /**
     * @param pushOne the push of one payload ({@link #pushOne()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withPushOne(Sql pushOne) {
        return with(c -> c.pushOne = pushOne);
    }

    /**
     * @param newestByHead the newest entries through the head row ({@link #newestByHead()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withNewestByHead(Sql newestByHead) {
        return with(c -> c.newestByHead = newestByHead);
    }

    /**
     * @param singleWriter the single-writer push ({@link #singleWriter()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withSingleWriter(Sql singleWriter) {
        return with(c -> c.singleWriter = singleWriter);
    }

    /**
     * @param singleWriterMerge the single-writer {@code MERGE} ({@link #singleWriterMerge()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withSingleWriterMerge(Sql singleWriterMerge) {
        return with(c -> c.singleWriterMerge = singleWriterMerge);
    }

    /**
     * @param bumpHook the head row's bump in code ({@link #bumpHook()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withBump(Bump bumpHook) {
        return with(c -> c.bumpHook = bumpHook);
    }

    /**
     * @param slotsHook the slots' write in code ({@link #slotsHook()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withSlots(Slots slotsHook) {
        return with(c -> c.slotsHook = slotsHook);
    }

    /**
     * @param pushHook the push in code ({@link #pushHook()})
     * @return these statements with it; the others unchanged
     */
    public RingStatements withPush(Push pushHook) {
        return with(c -> c.pushHook = pushHook);
    }

    /** These statements with one component changed by {@code change}. */
    private RingStatements with(java.util.function.Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** A copy of the components while one changes: the one place that names them all. */
    private final class Copy {
        private Sql bump = RingStatements.this.bump;
        private Sql upsert = RingStatements.this.upsert;
        private Sql pushOne = RingStatements.this.pushOne;
        private Sql newestByHead = RingStatements.this.newestByHead;
        private Sql singleWriter = RingStatements.this.singleWriter;
        private Sql singleWriterMerge = RingStatements.this.singleWriterMerge;
        private Bump bumpHook = RingStatements.this.bumpHook;
        private Slots slotsHook = RingStatements.this.slotsHook;
        private Push pushHook = RingStatements.this.pushHook;

        private RingStatements build() {
            return new RingStatements(bump, upsert, pushOne, newestByHead, singleWriter, singleWriterMerge, bumpHook,
                    slotsHook, pushHook);
        }
    }
}
