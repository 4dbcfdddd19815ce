package dev.rowqueue.postgres;

import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;

import java.sql.SQLException;
import java.util.List;

/**
 * The {@link dev.rowqueue.RingStrategy#TRIGGER trigger-enforced} ring: a {@code BEFORE INSERT} row trigger keeps
 * every group at its capacity, for rowqueue's pushes and for a plain {@code INSERT INTO <ring> (grp, payload) VALUES
 * (...)} (or {@code COPY}) from any other program alike. For each inserted row it bumps the group's head row
 * ({@code INSERT ... ON CONFLICT (grp) DO UPDATE}, whose row lock serializes the group's writers until they commit),
 * sets {@code seq}, {@code slot = seq mod capacity} and, if missing, {@code pushed_ms}, and deletes the row the new one
 * replaces. Values a plain {@code INSERT} gives for {@code seq} and {@code slot} are overwritten.
 *
 * <p>The trigger function {@value #FUNCTION} is shared by every trigger ring of the schema (it finds the head table
 * and the capacity in the trigger's arguments); the trigger {@code <ring>_cap} carries the capacity, so the ring's
 * DDL depends on it. A push is one {@code INSERT ... SELECT ... RETURNING seq} statement.
 */
final class PostgresTriggerRing implements RingStatements.Push {

    /** The trigger function's name. */
    static final String FUNCTION = "rowqueue_ring_cap";
    /** Serializes the creation of trigger functions and triggers (an arbitrary, fixed advisory lock key). */
    static final long DDL_LOCK = 0x726f777175657565L;

    private final RingTables t;
    private final Sql push;

    PostgresTriggerRing(RingTables t) {
        this.t = t;
        push = Sql.of("INSERT INTO " + t.entries() + " (grp, payload) SELECT :grp, p.payload FROM "
                + PgArrays.payloadRows("payloads") + " ORDER BY p.ord RETURNING seq");
    }

    /**
     * The trigger's DDL, one statement: a {@code DO} block that, under a transaction-scoped advisory lock (so that
     * nodes creating rings at the same moment do not race), replaces the shared trigger function and creates the
     * ring's trigger unless it exists.
     *
     * @param dialect  the dialect, for its clock expression and version gates
     * @param t        the ring's tables
     * @param capacity the ring's capacity
     * @return the statements
     */
    static List<String> ddl(PostgresDialect dialect, RingTables t, int capacity) {
        String trigger = t.entries() + "_cap";
        String function = "CREATE OR REPLACE FUNCTION " + FUNCTION + "() RETURNS trigger LANGUAGE plpgsql AS $f$\n"
                + "DECLARE\n"
                + "  last_seq BIGINT;\n"
                + "BEGIN\n"
                + "  -- TG_ARGV[0]: the head table; TG_ARGV[1]: the capacity\n"
                + "  EXECUTE format('INSERT INTO %I.%I AS h (grp, last_seq) VALUES ($1, 1) ON CONFLICT (grp) DO UPDATE'\n"
                + "      ' SET last_seq = h.last_seq + 1 WHERE h.last_seq < " + Long.MAX_VALUE + " RETURNING last_seq',\n"
                + "      TG_TABLE_SCHEMA, TG_ARGV[0]) INTO last_seq USING NEW.grp;\n"
                + "  IF last_seq IS NULL THEN\n"
                + "    RAISE EXCEPTION 'ring %, group %: the next sequence number would pass " + Long.MAX_VALUE
                + "', TG_TABLE_NAME, NEW.grp\n"
                + "      USING ERRCODE = 'numeric_value_out_of_range';\n"
                + "  END IF;\n"
                + "  NEW.seq := last_seq;\n"
                + "  NEW.slot := CAST(MOD(last_seq, CAST(TG_ARGV[1] AS BIGINT)) AS INTEGER);\n"
                + "  NEW.pushed_ms := COALESCE(NEW.pushed_ms, " + dialect.nowMillis() + ");\n"
                + "  EXECUTE format('DELETE FROM %I.%I WHERE grp = $1 AND slot = $2', TG_TABLE_SCHEMA, TG_TABLE_NAME)\n"
                + "      USING NEW.grp, NEW.slot;\n"
                + "  RETURN NEW;\n"
                + "END\n"
                + "$f$";
        return List.of("DO $rowqueue$\n"
                + "BEGIN\n"
                + "  PERFORM pg_advisory_xact_lock(" + DDL_LOCK + ");\n"
                + "  " + function + ";\n"
                + "  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = CAST('" + t.entries()
                + "' AS regclass) AND tgname = '" + trigger + "') THEN\n"
                + "    CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + t.entries() + " FOR EACH ROW "
                + dialect.triggerExecute() + " " + FUNCTION + "('" + t.heads() + "', '" + capacity + "');\n"
                + "  END IF;\n"
                + "END\n"
                + "$rowqueue$");
    }

    /**
     * Every payload is inserted (the trigger evicts within the statement), so every number comes back. The trigger
     * finds the capacity and the head table in its arguments.
     */
    @Override
    public SqlOp<long[]> push(RingStatements.Ring ring, String group, List<String> payloads, SqlOp<long[]> steps) {
        int n = payloads.size();
        return SqlOp.statement(c -> {
            List<Long> returned = SeqReturning.run(c, ring, push, group, payloads, b -> { });
            if (returned.size() != n) {
                throw new SQLException("the trigger ring " + t.entries() + " returned " + returned.size()
                        + " sequence numbers for " + n + " payloads; is its trigger " + t.entries() + "_cap missing?");
            }
            return returned.stream().mapToLong(Long::longValue).sorted().toArray();
        });
    }
}
