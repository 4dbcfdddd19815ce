package dev.rowqueue.db2;

import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.SequenceExhaustedException;
import dev.rowqueue.spi.CounterStore;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingStore;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.testkit.ScriptedConnection;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static dev.rowqueue.testkit.ScriptedConnection.row;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins every statement the Db2 stores send, operation by operation, on a scripted connection (no database runs
 * here), and tests the stores' logic around the answers. The SQL was checked against the Db2 11.5/12.1 SQL
 * Reference (data-change-table-reference: FINAL TABLE, OLD TABLE, INCLUDE columns, ORDER BY INPUT SEQUENCE; MERGE;
 * fetch-clause with an expression, 11.1+; concurrent-access-resolution-clause SKIP LOCKED DATA); see
 * docs/oracle-db2.md.
 */
class Db2StatementsTest {

    static final String UTC = "CURRENT TIMESTAMP - CURRENT TIMEZONE";
    static final String NOW = "(CAST(DAYS(" + UTC + ") - 719163 AS BIGINT) * 86400000 + MIDNIGHT_SECONDS(" + UTC
            + ") * 1000 + MICROSECOND(CURRENT TIMESTAMP) / 1000)";
    static final String KEY = "VARCHAR(601) FOR BIT DATA";

    private final Db2Dialect dialect = Db2DialectTest.dialect(11, 5);
    private final RingStore ring = dialect.ringStore(RingTables.of("views"), RingOptions.ofCapacity(3));
    private final WorkStore work = dialect.workStore(WorkTables.of("mail"));
    private final CounterStore counters = dialect.counterStore(CounterTable.of("sales"));

    private static <R> R run(SqlOp<R> op, ScriptedConnection c) throws SQLException {
        return op.run(c.connection());
    }

    static final String BUMP = "SELECT last_seq FROM FINAL TABLE (UPDATE views_head SET last_seq = last_seq + ? WHERE"
            + " grp = ? AND last_seq <= ?)";
    static final String SLOT_MERGE = "MERGE INTO views e USING (VALUES (CAST(? AS " + KEY + "), CAST(? AS INTEGER),"
            + " CAST(? AS BIGINT), CAST(? AS VARCHAR(30000 OCTETS)))) AS s (grp, slot, seq, payload) ON e.grp = s.grp"
            + " AND e.slot = s.slot WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = s.payload, pushed_ms = " + NOW
            + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (s.grp, s.slot, s.seq,"
            + " s.payload, " + NOW + ")";

    @Test
    void a_push_bumps_the_head_through_final_table_then_merges_the_slot_keys_bound_as_bytes() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("last_seq", 4L)).updated(1);
        SqlOp<long[]> op = ring.push("a ", List.of("hello"));
        assertFalse(op.singleStatement(), "one transaction of two statements");
        assertArrayEquals(new long[] {4}, run(op, c));
        assertEquals(List.of(BUMP, SLOT_MERGE), c.sql());
        assertEquals("setBytes", c.executions().get(0).setters().get(2), "keys are bound as their stored bytes");
        assertArrayEquals(new byte[] {'a', ' ', (byte) 0xFF}, (byte[]) c.executions().get(0).value(2));
        assertEquals(1, c.executions().get(1).value(2), "slot 4 mod 3");
        assertEquals("hello", c.executions().get(1).value(4));
    }

    @Test
    void a_new_group_gets_its_head_row_under_a_savepoint_and_a_lost_race_updates_the_winners_row()
            throws SQLException {
        ScriptedConnection c = new ScriptedConnection()
                .rows()                                    // FINAL TABLE (UPDATE): no head row yet
                .updated(0).rows()                         // portable path: UPDATE, SELECT: still none
                .fails(new SQLException("SQLCODE=-803", "23505", -803)) // INSERT: another producer won
                .updated(1).rows(row("last_seq", 1L))      // UPDATE the winner's row, read it
                .updated(1);                               // MERGE the slot
        assertArrayEquals(new long[] {1}, run(ring.push("g", List.of("x")), c));
        assertEquals(List.of(BUMP, "UPDATE views_head SET last_seq = last_seq + ? WHERE grp = ? AND last_seq <= ?",
                "SELECT last_seq FROM views_head WHERE grp = ?", "INSERT INTO views_head (grp, last_seq) VALUES (?, ?)",
                "UPDATE views_head SET last_seq = last_seq + ? WHERE grp = ? AND last_seq <= ?",
                "SELECT last_seq FROM views_head WHERE grp = ?", SLOT_MERGE), c.sql());
        assertEquals(List.of("setSavepoint", "rollback(savepoint)"), c.calls());
    }

    @Test
    void an_exhausted_group_writes_nothing() {
        ScriptedConnection c = new ScriptedConnection().rows().updated(0).rows(row("last_seq", Long.MAX_VALUE));
        assertThrows(SequenceExhaustedException.class, () -> run(ring.push("g", List.of("x")), c));
        assertFalse(c.sql().contains(SLOT_MERGE));
    }

    @Test
    void a_batch_push_merges_the_surviving_slots_in_one_batch() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("last_seq", 5L)).updated(1);
        assertArrayEquals(new long[] {1, 2, 3, 4, 5}, run(ring.push("g", List.of("a", "b", "c", "d", "e")), c));
        assertEquals(List.of(BUMP, SLOT_MERGE, SLOT_MERGE, SLOT_MERGE), c.sql());
        assertEquals(5L, c.executions().get(0).value(1));
    }

    @Test
    void reads_clears_and_groups_bind_and_decode_keys_as_bytes() throws SQLException {
        ScriptedConnection c = new ScriptedConnection();
        run(ring.read("g", true, 0), c);
        run(ring.read("g", false, 2), c);
        run(ring.size("g"), c);
        run(ring.clear("g"), c);
        c.rows(row("grp", new byte[] {'b'}), row("grp", new byte[] {'a', ' ', (byte) 0xFF}));
        assertEquals(List.of("b", "a "), run(ring.groups(), c));
        assertEquals(List.of("SELECT seq, payload, pushed_ms FROM views WHERE grp = ? ORDER BY seq DESC",
                "SELECT seq, payload, pushed_ms FROM views WHERE grp = ? ORDER BY seq ASC FETCH FIRST ? ROWS ONLY",
                "SELECT COUNT(*) FROM views WHERE grp = ?",
                "UPDATE views_head SET last_seq = last_seq WHERE grp = ?",
                "DELETE FROM views WHERE grp = ?",
                "SELECT DISTINCT grp FROM views"), c.sql());
        for (ScriptedConnection.Execution e : c.executions().subList(0, 5)) {
            assertEquals("setBytes", e.setters().get(1), e.sql());
        }
    }

    @Test
    void the_single_writer_strategy_is_the_articles_merge_then_a_read_of_the_last_number() throws SQLException {
        RingStore sw = dialect.ringStore(RingTables.of("views"), RingOptions.ofCapacity(3)
                .withStrategy(RingStrategy.SINGLE_WRITER));
        ScriptedConnection c = new ScriptedConnection().updated(1).rows(row("max", 9L));
        assertArrayEquals(new long[] {9}, run(sw.push("g", List.of("a")), c));
        assertEquals(List.of("MERGE INTO views e USING (SELECT CAST(? AS " + KEY + ") AS grp, COALESCE(MAX(seq), 0) + 1"
                        + " AS seq FROM views WHERE grp = ?) s ON e.grp = s.grp AND e.slot = MOD(s.seq, CAST(? AS"
                        + " INTEGER)) WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = ?, pushed_ms = " + NOW
                        + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (s.grp,"
                        + " MOD(s.seq, CAST(? AS INTEGER)), s.seq, ?, " + NOW + ")",
                "SELECT MAX(seq) FROM views WHERE grp = ?"), c.sql());
        ScriptedConnection full = new ScriptedConnection().fails(new SQLException("SQLCODE=-802", "22003", -802));
        assertThrows(SequenceExhaustedException.class, () -> run(sw.push("g", List.of("x")), full));
    }

    static final String JOBS = "id, payload, prio, attempts, enqueued_ms, due_ms, last_error, lease_token, job_key";
    static final String SET_LEASE = " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END,"
            + " lease_token = ?, due_ms = " + NOW + " + ?";
    static final String CLAIM = "SELECT " + JOBS + " FROM FINAL TABLE (UPDATE (SELECT " + JOBS + " FROM mail WHERE"
            + " state = 0 AND due_ms <= " + NOW + " ORDER BY prio DESC, due_ms, id FETCH FIRST ? ROWS ONLY) INCLUDE"
            + " (claim_due BIGINT)" + SET_LEASE + ", claim_due = due_ms) ORDER BY prio DESC, claim_due, id SKIP LOCKED"
            + " DATA";

    private static Map<String, Object> job(long id) {
        return row("id", id, "payload", "p" + id, "prio", 0, "attempts", 0, "enqueued_ms", 1L, "due_ms", 2L,
                "last_error", null, "lease_token", 9L);
    }

    @Test
    void a_claim_is_one_statement_that_skips_locked_rows_and_leases_in_claim_order() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(job(4), job(3));
        SqlOp<List<Job>> op = work.claim(2, 1000, 9);
        assertFalse(op.singleStatement(), "a transaction of its own, at READ COMMITTED = cursor stability");
        assertEquals(List.of(4L, 3L), run(op, c).stream().map(Job::id).toList());
        assertEquals(List.of(CLAIM), c.sql());
        assertEquals(List.of(2, 9L, 1000L), new ArrayList<>(c.executions().get(0).values().values()));
    }

    @Test
    void a_rotation_locks_the_cursor_then_leases_after_it_and_wraps_around() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().updated(1).rows(row("last_id", 10L))
                .rows(job(11)).rows(job(2)).updated(1);
        assertEquals(List.of(11L, 2L), run(work.rotate("cur", 2, 1000, 9), c).stream().map(Job::id).toList());
        String rotate = "SELECT " + JOBS + " FROM FINAL TABLE (UPDATE (SELECT " + JOBS + " FROM mail WHERE state = 0"
                + " AND due_ms <= " + NOW + " AND id %s ? ORDER BY id FETCH FIRST ? ROWS ONLY)" + SET_LEASE + ")"
                + " ORDER BY id SKIP LOCKED DATA";
        assertEquals(List.of("UPDATE mail_rot SET last_id = last_id WHERE cursor_name = ?",
                "SELECT last_id FROM mail_rot WHERE cursor_name = ?", String.format(rotate, ">"),
                String.format(rotate, "<="), "UPDATE mail_rot SET last_id = ? WHERE cursor_name = ?"), c.sql());
        assertEquals(1, c.executions().get(3).value(2), "the wrap-around takes only what is missing");
        assertEquals(2L, c.executions().get(4).value(1), "the cursor moves to the last job leased");
        assertEquals("setBytes", c.executions().get(4).setters().get(2));
    }

    @Test
    void enqueue_inserts_every_row_in_one_statement_and_reads_the_ids_in_input_order() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("id", 7L), row("id", 8L));
        SqlOp<long[]> op = work.enqueue(List.of("a", ""), 3, 50);
        assertTrue(op.singleStatement());
        assertArrayEquals(new long[] {7, 8}, run(op, c));
        String row = "(CAST(? AS VARCHAR(30000 OCTETS)), CAST(? AS INTEGER), 0, " + NOW + " + CAST(? AS BIGINT), 0, "
                + NOW + ")";
        assertEquals(List.of("SELECT id FROM FINAL TABLE (INSERT INTO mail (payload, prio, state, due_ms, attempts,"
                + " enqueued_ms) VALUES " + row + ", " + row + ") ORDER BY INPUT SEQUENCE"), c.sql());
        List<String> big = new ArrayList<>();
        for (int i = 0; i < Db2WorkForms.ENQUEUE_CHUNK + 1; i++) {
            big.add("p" + i);
        }
        assertFalse(work.enqueue(big, 0, 0).singleStatement(), "chunks of 100 rows commit together");
        ScriptedConnection wrong = new ScriptedConnection().rows(row("id", 7L));
        assertThrows(SQLException.class, () -> run(work.enqueue(List.of("a", "b"), 0, 0), wrong));
    }

    @Test
    void ack_is_a_destructive_pop_through_old_table_and_the_rest_are_the_portable_statements() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("id", 1L));
        assertTrue(run(work.ack(1, 9), c));
        assertFalse(run(work.ack(1, 9), c), "a second ack deletes nothing");
        run(work.nack(1, 9, 10, 3, "boom"), c);
        run(work.release(1, 9), c);
        run(work.extend(1, 9, 10), c);
        run(work.bury(new long[] {1}, 9, "gone"), c);
        run(work.dead(5), c);
        run(work.revive(OptionalLong.of(1)), c);
        run(work.revive(OptionalLong.empty()), c);
        run(work.purgeDead(), c);
        c.rows(row("a", 1L, "b", 2L, "c", 3L, "d", 4L));
        run(work.stats(), c);
        String mine = " WHERE id = ? AND lease_token = ? AND state = 0";
        String ack = "SELECT id FROM OLD TABLE (DELETE FROM mail" + mine + ")";
        String revive = "UPDATE mail SET state = 0, attempts = 0, due_ms = " + NOW + ", lease_token = NULL WHERE state = 1";
        assertEquals(List.of(ack, ack,
                "UPDATE mail SET state = CASE WHEN attempts + 1 >= ? THEN 1 ELSE 0 END, unique_key = CASE WHEN"
                        + " attempts + 1 >= ? THEN NULL ELSE unique_key END, attempts = attempts + 1,"
                        + " due_ms = " + NOW + " + ?, last_error = ?, lease_token = NULL" + mine,
                "UPDATE mail SET due_ms = " + NOW + ", lease_token = NULL" + mine,
                "UPDATE mail SET due_ms = " + NOW + " + ?" + mine,
                "UPDATE mail SET state = 1, unique_key = NULL, last_error = ?, lease_token = NULL" + mine,
                "SELECT " + JOBS + " FROM mail WHERE state = 1 ORDER BY id FETCH FIRST ? ROWS ONLY",
                revive + " AND id = ?", revive, "DELETE FROM mail WHERE state = 1",
                "SELECT SUM(CASE WHEN state = 0 AND due_ms <= " + NOW + " THEN 1 ELSE 0 END), SUM(CASE WHEN state = 0"
                        + " AND due_ms > " + NOW + " AND lease_token IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN state = 0"
                        + " AND due_ms > " + NOW + " AND lease_token IS NOT NULL THEN 1 ELSE 0 END), SUM(CASE WHEN"
                        + " state = 1 THEN 1 ELSE 0 END) FROM mail"), c.sql());
    }

    // ---------------------------------------------------------------- keyed jobs (not yet run on a Db2 engine)

    static final String INSERT_KEYED = "SELECT id FROM FINAL TABLE (INSERT INTO mail (payload, prio, state, due_ms,"
            + " attempts, enqueued_ms, job_key, unique_key, key_seq) VALUES (CAST(? AS VARCHAR(30000 OCTETS)), CAST(?"
            + " AS INTEGER), 0, " + NOW + " + CAST(? AS BIGINT), 0, " + NOW + ", CAST(? AS " + KEY + "), CAST(? AS "
            + KEY + "), CAST(? AS BIGINT)))";
    static final String KEY_ROUND = "SELECT 1 AS part, MAX(key_seq) AS key_seq FROM mail WHERE job_key = ? AND"
            + " state = 0 UNION ALL SELECT 2, MIN(key_seq) FROM mail WHERE state = 0 AND key_seq > 0 AND due_ms <= "
            + NOW;
    static final String LIVE_UNIQUE = "SELECT id FROM mail WHERE unique_key = ? AND state = 0";

    @Test
    void a_keyed_enqueue_reads_the_round_and_inserts_through_final_table_keys_bound_as_bytes() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("part", 2, "key_seq", 4L)).rows(row("id", 21L));
        assertArrayEquals(new long[] {21}, run(work.enqueue(List.of("a"), 1, 0, "t ", null), c));
        assertEquals(List.of(KEY_ROUND, INSERT_KEYED), c.sql());
        assertArrayEquals(new byte[] {'t', ' ', (byte) 0xFF}, (byte[]) c.executions().get(0).value(1));
        assertEquals("setBytes", c.executions().get(1).setters().get(4));
        assertEquals(4L, c.executions().get(1).value(6), "a key without live jobs joins the current round");

        ScriptedConnection race = new ScriptedConnection().rows()
                .fails(new SQLException("SQLCODE=-803", "23505", -803)).rows(row("id", 22L));
        assertArrayEquals(new long[] {22}, run(work.enqueue(List.of("a"), 1, 0, null, "u"), race));
        assertEquals(List.of(LIVE_UNIQUE, INSERT_KEYED, LIVE_UNIQUE), race.sql());
        assertEquals(List.of("setSavepoint", "rollback(savepoint)"), race.calls());
    }

    @Test
    void a_claim_under_a_per_key_limit_takes_the_gate_then_the_keys_next_jobs_and_leases_them_conditionally()
            throws SQLException {
        ScriptedConnection c = new ScriptedConnection().updated(1).rows(row("id", 4L)).updated(1).rows(job(4));
        List<Job> jobs = run(work.claim(2, 1000, 9, new dev.rowqueue.spi.ClaimRule(1, true)), c);
        assertEquals(List.of(4L), jobs.stream().map(Job::id).toList());
        assertEquals(List.of("UPDATE mail_rot SET last_id = last_id + 1 WHERE cursor_name = ?",
                "SELECT j.id FROM mail j WHERE j.state = 0 AND j.due_ms <= " + NOW + " AND (j.job_key IS NULL OR"
                        + " ((SELECT COUNT(*) FROM mail l WHERE l.job_key = j.job_key AND l.lease_token IS NOT NULL AND"
                        + " l.state = 0 AND l.due_ms > " + NOW + ") < ? AND NOT EXISTS (SELECT 1 FROM mail o WHERE"
                        + " o.job_key = j.job_key AND o.state = 0 AND o.due_ms <= " + NOW + " AND (o.key_seq < j.key_seq"
                        + " OR (o.key_seq = j.key_seq AND o.id < j.id))))) ORDER BY j.key_seq, j.prio DESC, j.id FETCH"
                        + " FIRST ? ROWS ONLY",
                "UPDATE mail SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END, lease_token ="
                        + " ?, due_ms = " + NOW + " + ? WHERE id IN (?) AND state = 0 AND due_ms <= " + NOW,
                "SELECT " + JOBS + " FROM mail WHERE id IN (?) AND lease_token = ?"), c.sql());
        assertEquals("setBytes", c.executions().get(0).setters().get(1), "the gate's name is a key: bytes");
        assertEquals(1, c.executions().get(1).value(1), ":per_key");
        assertEquals(2, c.executions().get(1).value(2), ":n");
    }

    static final String ADD = "SELECT counter_value FROM FINAL TABLE (UPDATE sales SET counter_value = counter_value"
            + " + ? WHERE counter_key = ? AND counter_value BETWEEN ? AND ?)";
    static final String CREATE = "SELECT counter_value FROM FINAL TABLE (INSERT INTO sales (counter_key,"
            + " counter_value) VALUES (?, ?))";

    @Test
    void an_increment_of_an_existing_counter_is_one_final_table_update() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("counter_value", 13L));
        SqlOp<OptionalLong> op = counters.add("Bulldozer", 12);
        assertTrue(op.singleStatement());
        assertEquals(OptionalLong.of(13), run(op, c));
        assertEquals(List.of(ADD), c.sql());
    }

    @Test
    void a_new_counter_is_created_and_a_lost_race_or_an_overflow_is_told_apart_by_the_guarded_update()
            throws SQLException {
        ScriptedConnection created = new ScriptedConnection().rows().rows(row("counter_value", 5L));
        assertEquals(OptionalLong.of(5), run(counters.add("k", 5), created));
        assertEquals(List.of(ADD, CREATE), created.sql());
        SQLException duplicate = new SQLException("SQLCODE=-803", "23505", -803);
        ScriptedConnection raced = new ScriptedConnection().rows().fails(duplicate).rows(row("counter_value", 6L));
        assertEquals(OptionalLong.of(6), run(counters.add("k", 5), raced));
        assertEquals(List.of(ADD, CREATE, ADD), raced.sql());
        ScriptedConnection overflow = new ScriptedConnection().rows().fails(duplicate).rows();
        assertEquals(OptionalLong.empty(), run(counters.add("k", 5), overflow));
        ScriptedConnection broken = new ScriptedConnection().rows().fails(new SQLException("x", "42601", -104));
        assertThrows(SQLException.class, () -> run(counters.add("k", 5), broken));
    }

    @Test
    void set_is_one_merge_and_all_decodes_the_stored_keys() throws SQLException {
        ScriptedConnection c = new ScriptedConnection();
        SqlOp<Void> set = counters.set("k ", 7);
        assertTrue(set.singleStatement() && set.retriesDuplicateKey());
        run(set, c);
        run(counters.get("k"), c);
        run(counters.remove("k"), c);
        c.rows(row("counter_key", new byte[] {'k', ' ', (byte) 0xFF}, "counter_value", 7L),
                row("counter_key", new byte[] {'K'}, "counter_value", 1L));
        assertEquals(Map.of("k ", 7L, "K", 1L), run(counters.all(), c));
        assertEquals(List.of("MERGE INTO sales c USING (VALUES (CAST(? AS " + KEY + "), CAST(? AS BIGINT))) AS s (k, v)"
                        + " ON c.counter_key = s.k WHEN MATCHED THEN UPDATE SET counter_value = s.v WHEN NOT MATCHED"
                        + " THEN INSERT (counter_key, counter_value) VALUES (s.k, s.v)",
                "SELECT counter_value FROM sales WHERE counter_key = ?",
                "DELETE FROM sales WHERE counter_key = ?",
                "SELECT counter_key, counter_value FROM sales"), c.sql());
        assertArrayEquals(new byte[] {'k', ' ', (byte) 0xFF}, (byte[]) c.executions().get(0).value(1));
    }
}
