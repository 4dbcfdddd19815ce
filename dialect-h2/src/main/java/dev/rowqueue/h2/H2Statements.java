package dev.rowqueue.h2;

import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.JobRules;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.StatementSets;
import dev.rowqueue.support.WorkStatements;

/** H2's statements: {@code MERGE} and data change delta tables ({@code SELECT ... FROM FINAL TABLE (...)}). */
final class H2Statements implements StatementSets {

    /** The one instance. */
    static final H2Statements SETS = new H2Statements();

    private static final String KEY = "VARCHAR(" + H2Dialect.KEY_LENGTH + ")";

    private H2Statements() {
    }

    /**
     * Counters in one statement: {@code SELECT counter_value FROM FINAL TABLE (MERGE ...)} creates or increments and
     * returns the new value; the guard in {@code WHEN MATCHED AND ...} leaves an overflowing counter unchanged, and
     * then the statement returns no row.
     */
    @Override
    public CounterStatements counters(CounterTable t) {
        return new CounterStatements(Sql.of("SELECT counter_value FROM FINAL TABLE (MERGE INTO " + t.table()
                + " c USING (VALUES (CAST(:key AS " + KEY + "), CAST(:delta AS BIGINT))) s (k, d) ON (c.counter_key"
                + " = s.k) WHEN MATCHED AND c.counter_value BETWEEN :lo AND :hi THEN UPDATE SET counter_value ="
                + " c.counter_value + s.d WHEN NOT MATCHED THEN INSERT (counter_key, counter_value) VALUES (s.k, s.d))"),
                Sql.of("MERGE INTO " + t.table() + " (counter_key, counter_value) KEY (counter_key) VALUES (:key,"
                        + " :value)"));
    }

    /**
     * The safe ring. A push of one payload is one statement: a {@code MERGE} of the head row (bumping it, or creating
     * it with 1) whose new number feeds, through {@code FINAL TABLE}, a {@code MERGE} of the slot. The head row's lock
     * is held until the statement commits, so producers of one group take turns. A push of several payloads bumps
     * the head row and reads it in one statement ({@code FINAL TABLE (UPDATE ...)}), then writes the slots with one
     * batched {@code MERGE ... KEY (grp, slot)}. Newest-first reads take the slots of the last {@code :limit}
     * numbers from {@code SYSTEM_RANGE} over the head row's last number: a primary-key lookup per slot (these rings
     * have no {@code (grp, seq)} index).
     */
    @Override
    public RingStatements ring(RingTables t, RingStrategy strategy, String now) {
        return strategy == RingStrategy.SINGLE_WRITER ? singleWriterRing(t, now) : safeRing(t, now);
    }

    private static RingStatements safeRing(RingTables t, String now) {
        String head = "MERGE INTO " + t.heads() + " h USING (VALUES (CAST(:grp AS " + KEY + "))) AS v(grp) ON h.grp ="
                + " v.grp WHEN MATCHED AND h.last_seq < " + Long.MAX_VALUE + " THEN UPDATE SET last_seq = h.last_seq + 1"
                + " WHEN NOT MATCHED THEN INSERT (grp, last_seq) VALUES (v.grp, 1)";
        String slot = "CAST(MOD(u.last_seq, :cap) AS INTEGER)";
        String last = "(SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp)";
        return new RingStatements(
                Sql.of("SELECT last_seq FROM FINAL TABLE (UPDATE " + t.heads() + " SET last_seq = last_seq + :n"
                        + " WHERE grp = :grp AND last_seq <= :max)"),
                Sql.of("MERGE INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms) KEY (grp, slot)"
                        + " VALUES (:grp, :slot, :seq, :payload, " + now + ")"),
                Sql.of("SELECT seq FROM FINAL TABLE (MERGE INTO " + t.entries() + " e USING (SELECT grp, last_seq"
                        + " FROM FINAL TABLE (" + head + ")) AS u ON e.grp = u.grp AND e.slot = " + slot
                        + " WHEN MATCHED THEN UPDATE SET seq = u.last_seq, payload = :payload, pushed_ms = " + now
                        + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (u.grp, " + slot
                        + ", u.last_seq, :payload, " + now + "))"),
                Sql.of("SELECT " + Jdbc.ENTRY_COLUMNS + " FROM " + t.entries() + " WHERE grp = :grp AND slot IN"
                        + " (SELECT CAST(MOD(X, :cap) AS INTEGER) FROM SYSTEM_RANGE(GREATEST(" + last + " - :limit"
                        + " + 1, 1), " + last + ")) AND seq > " + last + " - :limit ORDER BY seq DESC"),
                null);
    }

    /**
     * The source articles' single statement ("method three" of "How to implement a queue in SQL", {@code MERGE}):
     * the next number is {@code MAX(seq) + 1} of the group, read inside the {@code MERGE} that writes its slot. No
     * head row: correct only with one writer per group at a time, and a cleared group starts again at 1.
     */
    private static RingStatements singleWriterRing(RingTables t, String now) {
        return RingStatements.singleWriter(Sql.of("SELECT seq FROM FINAL TABLE (MERGE INTO " + t.entries() + " e"
                + " USING (SELECT CAST(:grp AS " + KEY + ") AS grp, COALESCE(MAX(seq), 0) + 1 AS seq FROM "
                + t.entries() + " WHERE grp = :grp) s ON (e.grp = s.grp AND e.slot = MOD(s.seq, :cap))"
                + " WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = :payload, pushed_ms = " + now
                + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                + " VALUES (s.grp, MOD(s.seq, :cap), s.seq, :payload, " + now + "))"));
    }

    /**
     * The work queue. H2's planner walks an index in order only for a query without {@code FOR UPDATE}, and locks
     * the rows a {@code FOR UPDATE} query reads before it sorts and cuts them to {@code FETCH FIRST n}: one consumer's
     * claim of one job would hold a whole window. So candidates come from unlocked, index-ordered windows of ids
     * (claim order through the claim index, ordered by {@code state} first so that H2 walks it; id order through the
     * primary key for rotations), locked one at a time with {@code FOR UPDATE SKIP LOCKED}. The chosen jobs are
     * leased and read back in one statement, {@code SELECT ... FROM FINAL TABLE (UPDATE ...)}.
     */
    @Override
    public WorkStatements work(WorkTables t, String now) {
        String due = " AND " + JobRules.claimable(now);
        return WorkStatements.windowed(new WorkStatements.ClaimWindow(
                Sql.of("SELECT id FROM " + t.jobs() + " WHERE " + JobRules.claimable(now)
                        + " ORDER BY state, prio DESC, due_ms, id FETCH FIRST :k ROWS ONLY"),
                Sql.of("SELECT id FROM " + t.jobs() + " WHERE id > :from AND id <= :to ORDER BY id"
                        + " FETCH FIRST :k ROWS ONLY"),
                Sql.of("SELECT id FROM " + t.jobs() + " WHERE id = :id" + due + " FOR UPDATE SKIP LOCKED"),
                " FETCH FIRST :k ROWS ONLY", "j.state"))
                .withLeaseReturning("SELECT " + Jdbc.JOB_COLUMNS + " FROM FINAL TABLE (UPDATE " + t.jobs() + " SET "
                        + JobRules.lease(now) + " WHERE id IN (" + WorkStatements.IDS + ")" + due + ")");
    }
}
