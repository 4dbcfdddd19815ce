package dev.rowqueue.oracle;

import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.SequenceExhaustedException;
import dev.rowqueue.spi.ClaimRule;
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
 * Pins every statement the Oracle stores send, operation by operation, on a scripted connection (no database runs
 * here), and tests the stores' logic around the answers. The SQL was checked against the Oracle Database SQL
 * Language Reference (MERGE, UPDATE ... RETURNING INTO, SELECT ... FOR UPDATE SKIP LOCKED, row limiting clause) and
 * the PL/SQL Language Reference (DUP_VAL_ON_INDEX, SQL%ROWCOUNT); see docs/oracle-db2.md.
 */
class OracleStatementsTest {

    static final String SINCE = "(SYS_EXTRACT_UTC(SYSTIMESTAMP) - TIMESTAMP '1970-01-01 00:00:00')";
    static final String NOW = "(EXTRACT(DAY FROM " + SINCE + ") * 86400000 + EXTRACT(HOUR FROM " + SINCE
            + ") * 3600000 + EXTRACT(MINUTE FROM " + SINCE + ") * 60000 + TRUNC(EXTRACT(SECOND FROM " + SINCE
            + ") * 1000))";

    private final OracleDialect dialect = OracleDialectTest.dialect(19, null);
    private final RingStore ring = dialect.ringStore(RingTables.of("views"), RingOptions.ofCapacity(3));
    private final WorkStore work = dialect.workStore(WorkTables.of("mail"));
    private final CounterStore counters = dialect.counterStore(CounterTable.of("sales"));

    private static <R> R run(SqlOp<R> op, ScriptedConnection c) throws SQLException {
        return op.run(c.connection());
    }

    static final String BUMP_HEAD = "UPDATE views_head SET last_seq = last_seq + ? WHERE grp = ? AND last_seq <= ?"
            + " RETURNING last_seq INTO v_last; IF SQL%ROWCOUNT = 0 THEN BEGIN INSERT INTO views_head (grp, last_seq)"
            + " VALUES (?, ?); v_last := ?; EXCEPTION WHEN DUP_VAL_ON_INDEX THEN UPDATE views_head SET last_seq ="
            + " last_seq + ? WHERE grp = ? AND last_seq <= ? RETURNING last_seq INTO v_last; END; END IF;";
    static final String PUSH_ONE = "DECLARE v_last NUMBER(19); BEGIN " + BUMP_HEAD + " IF v_last IS NOT NULL THEN"
            + " MERGE INTO views e USING (SELECT ? AS grp, MOD(v_last, ?) AS slot FROM dual) s ON (e.grp = s.grp AND"
            + " e.slot = s.slot) WHEN MATCHED THEN UPDATE SET e.seq = v_last, e.payload = ?, e.pushed_ms = " + NOW
            + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (s.grp, s.slot, v_last, ?, "
            + NOW + "); END IF; ? := v_last; END;";
    static final String BUMP = "DECLARE v_last NUMBER(19); BEGIN " + BUMP_HEAD + " ? := v_last; END;";
    static final String SLOT_MERGE = "MERGE INTO views e USING (SELECT ? AS grp, ? AS slot FROM dual) s ON (e.grp ="
            + " s.grp AND e.slot = s.slot) WHEN MATCHED THEN UPDATE SET e.seq = ?, e.payload = ?, e.pushed_ms = " + NOW
            + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (s.grp, s.slot, ?, ?, " + NOW
            + ")";

    @Test
    void a_single_push_is_one_plsql_block_that_bumps_the_head_and_merges_the_slot() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("last", 7L));
        SqlOp<long[]> op = ring.push("g", List.of("hello"));
        assertTrue(op.singleStatement(), "one round trip in auto-commit mode");
        assertArrayEquals(new long[] {7}, run(op, c));
        assertEquals(List.of(PUSH_ONE), c.sql());
        ScriptedConnection.Execution e = c.executions().get(0);
        assertEquals(1L, e.value(1), ":n");
        assertEquals("g", e.value(2));
        assertEquals(Long.MAX_VALUE - 1, e.value(3), ":max keeps last_seq + 1 in range");
        assertEquals(3, e.value(11), ":cap");
        assertEquals("hello", e.value(12));
        assertEquals("setLong", e.setters().get(14), "the result is an IN OUT bind");
    }

    @Test
    void a_push_into_an_exhausted_group_writes_nothing_and_says_so() {
        ScriptedConnection c = new ScriptedConnection().rows(row("last", null));
        assertThrows(SequenceExhaustedException.class, () -> run(ring.push("g", List.of("x")), c));
        assertEquals(List.of(PUSH_ONE), c.sql(), "the MERGE sits behind IF v_last IS NOT NULL in the block");
    }

    @Test
    void a_batch_push_bumps_the_head_by_n_then_merges_the_surviving_slots_in_one_batch() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("last", 14L)).updated(1);
        SqlOp<long[]> op = ring.push("g", List.of("a", "b", "c", "d", "e"));
        assertFalse(op.singleStatement(), "one transaction");
        assertArrayEquals(new long[] {10, 11, 12, 13, 14}, run(op, c));
        assertEquals(List.of(BUMP, SLOT_MERGE, SLOT_MERGE, SLOT_MERGE), c.sql(), "capacity 3: only the last 3 slots");
        assertEquals(5L, c.executions().get(0).value(1));
        assertEquals(List.of(0, 1, 2), c.executions().subList(1, 4).stream().map(x -> x.value(2)).toList());
        assertEquals(List.of(12L, 13L, 14L), c.executions().subList(1, 4).stream().map(x -> x.value(3)).toList());
    }

    @Test
    void with_clob_payloads_even_a_single_push_binds_the_payload_in_sql_not_plsql() throws SQLException {
        RingStore clob = OracleDialectTest.dialect(19, "clob").ringStore(RingTables.of("views"),
                RingOptions.ofCapacity(3));
        ScriptedConnection c = new ScriptedConnection().rows(row("last", 1L)).updated(1);
        assertArrayEquals(new long[] {1}, run(clob.push("g", List.of("x")), c));
        assertEquals(List.of(BUMP, SLOT_MERGE), c.sql());
    }

    @Test
    void reads_sizes_clears_and_groups_are_the_portable_statements() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("seq", 2L, "payload", null, "pushed_ms", 5L));
        assertEquals("", run(ring.read("g", true, 0), c).get(0).payload(), "Oracle's NULL for '' reads as ''");
        run(ring.read("g", false, 2), c);
        run(ring.size("g"), c);
        run(ring.clear("g"), c);
        run(ring.groups(), c);
        assertEquals(List.of("SELECT seq, payload, pushed_ms FROM views WHERE grp = ? ORDER BY seq DESC",
                "SELECT seq, payload, pushed_ms FROM views WHERE grp = ? ORDER BY seq ASC FETCH FIRST ? ROWS ONLY",
                "SELECT COUNT(*) FROM views WHERE grp = ?",
                "UPDATE views_head SET last_seq = last_seq WHERE grp = ?",
                "DELETE FROM views WHERE grp = ?",
                "SELECT DISTINCT grp FROM views"), c.sql());
    }

    static final String SINGLE_WRITER_MERGE = "MERGE INTO views e USING (SELECT ? AS grp, NVL(MAX(seq), 0) + 1 AS seq"
            + " FROM views WHERE grp = ?) s ON (e.grp = s.grp AND e.slot = MOD(s.seq, ?)) WHEN MATCHED THEN UPDATE SET"
            + " e.seq = s.seq, e.payload = ?, e.pushed_ms = " + NOW + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq,"
            + " payload, pushed_ms) VALUES (s.grp, MOD(s.seq, ?), s.seq, ?, " + NOW + ")";

    @Test
    void the_single_writer_strategy_is_the_articles_merge_then_a_read_of_the_last_number() throws SQLException {
        RingStore sw = dialect.ringStore(RingTables.of("views"), RingOptions.ofCapacity(3)
                .withStrategy(RingStrategy.SINGLE_WRITER));
        ScriptedConnection c = new ScriptedConnection().updated(1).updated(1).rows(row("max", 6L));
        assertArrayEquals(new long[] {5, 6}, run(sw.push("g", List.of("a", "b")), c));
        assertEquals(List.of(SINGLE_WRITER_MERGE, SINGLE_WRITER_MERGE, "SELECT MAX(seq) FROM views WHERE grp = ?"),
                c.sql());
        ScriptedConnection full = new ScriptedConnection()
                .fails(new SQLException("ORA-02290: check constraint violated", "23000", 2290));
        assertThrows(SequenceExhaustedException.class, () -> run(sw.push("g", List.of("x")), full));
    }

    static final String CANDIDATES = "SELECT id FROM mail WHERE state = 0 AND due_ms <= " + NOW;
    static final String LEASE = "UPDATE mail SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1"
            + " END, lease_token = ?, due_ms = " + NOW + " + ? WHERE id IN (?, ?) AND state = 0 AND due_ms <= " + NOW;
    static final String READ_LEASED = "SELECT id, payload, prio, attempts, enqueued_ms, due_ms, last_error,"
            + " lease_token, job_key FROM mail WHERE id IN (?, ?) AND lease_token = ?";

    private static Map<String, Object> job(long id) {
        return row("id", id, "payload", "p" + id, "prio", 0, "attempts", 0, "enqueued_ms", 1L, "due_ms", 2L,
                "last_error", null, "lease_token", 9L);
    }

    @Test
    void a_claim_locks_candidates_with_skip_locked_fetching_only_n_rows_then_leases_them_by_id() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("id", 4L), row("id", 3L)).updated(2)
                .rows(job(3), job(4));
        List<Job> jobs = run(work.claim(2, 1000, 9), c);
        assertEquals(List.of(4L, 3L), jobs.stream().map(Job::id).toList(), "in candidate order");
        assertEquals(List.of(CANDIDATES + " ORDER BY prio DESC, due_ms, id FOR UPDATE SKIP LOCKED", LEASE,
                READ_LEASED), c.sql());
        ScriptedConnection.Execution select = c.executions().get(0);
        assertEquals(2, select.fetchSize(), "one fetch of n rows: with SKIP LOCKED only fetched rows are locked");
        assertEquals(2, select.maxRows());
        assertTrue(select.values().isEmpty(), "no FETCH FIRST (ORA-02014), no ROWNUM");
    }

    @Test
    void a_rotation_locks_the_cursor_then_takes_jobs_after_it_and_wraps_around() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().updated(1).rows(row("last_id", 10L))
                .rows(row("id", 11L)).rows(row("id", 2L)).updated(2).rows(job(2), job(11)).updated(1);
        List<Job> jobs = run(work.rotate("cur", 2, 1000, 9), c);
        assertEquals(List.of(11L, 2L), jobs.stream().map(Job::id).toList(), "after the cursor, then wrapped");
        assertEquals(List.of("UPDATE mail_rot SET last_id = last_id WHERE cursor_name = ?",
                "SELECT last_id FROM mail_rot WHERE cursor_name = ?",
                CANDIDATES + " AND id > ? ORDER BY id FOR UPDATE SKIP LOCKED",
                CANDIDATES + " AND id <= ? ORDER BY id FOR UPDATE SKIP LOCKED", LEASE, READ_LEASED,
                "UPDATE mail_rot SET last_id = ? WHERE cursor_name = ?"), c.sql());
        assertEquals(2L, c.executions().get(6).value(1), "the cursor moves to the last job leased");
        assertEquals(2, c.executions().get(2).fetchSize());
        assertEquals(1, c.executions().get(3).fetchSize(), "the wrap-around fetches only what is missing");
    }

    @Test
    void enqueue_returns_the_identity_through_the_drivers_returning_clause() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("ID", 41L)).rows(row("ID", 42L));
        assertArrayEquals(new long[] {41, 42}, run(work.enqueue(List.of("a", ""), 5, 0), c));
        String insert = "INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES (?, ?, 0, "
                + NOW + " + ?, 0, " + NOW + ")";
        assertEquals(List.of(insert, insert), c.sql());
    }

    @Test
    void acks_nacks_releases_extensions_dead_letters_and_stats_are_the_portable_statements() throws SQLException {
        ScriptedConnection c = new ScriptedConnection();
        run(work.ack(1, 9), c);
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
        String revive = "UPDATE mail SET state = 0, attempts = 0, due_ms = " + NOW + ", lease_token = NULL WHERE state = 1";
        assertEquals(List.of("DELETE FROM mail" + mine,
                "UPDATE mail SET state = CASE WHEN attempts + 1 >= ? THEN 1 ELSE 0 END, unique_key = CASE WHEN"
                        + " attempts + 1 >= ? THEN NULL ELSE unique_key END, attempts = attempts + 1,"
                        + " due_ms = " + NOW + " + ?, last_error = ?, lease_token = NULL" + mine,
                "UPDATE mail SET due_ms = " + NOW + ", lease_token = NULL" + mine,
                "UPDATE mail SET due_ms = " + NOW + " + ?" + mine,
                "UPDATE mail SET state = 1, unique_key = NULL, last_error = ?, lease_token = NULL" + mine,
                "SELECT id, payload, prio, attempts, enqueued_ms, due_ms, last_error, lease_token, job_key FROM mail"
                        + " WHERE state = 1 ORDER BY id FETCH FIRST ? ROWS ONLY",
                revive + " AND id = ?", revive, "DELETE FROM mail WHERE state = 1",
                "SELECT SUM(CASE WHEN state = 0 AND due_ms <= " + NOW + " THEN 1 ELSE 0 END), SUM(CASE WHEN state = 0"
                        + " AND due_ms > " + NOW + " AND lease_token IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN state = 0"
                        + " AND due_ms > " + NOW + " AND lease_token IS NOT NULL THEN 1 ELSE 0 END), SUM(CASE WHEN"
                        + " state = 1 THEN 1 ELSE 0 END) FROM mail"), c.sql());
    }

    // ---------------------------------------------------------------- keyed jobs (not yet run on an Oracle engine)

    static final String LIVE_UNIQUE = "SELECT id FROM mail WHERE unique_key = ? AND state = 0";
    static final String KEY_ROUND = "SELECT 1 AS part, MAX(key_seq) AS key_seq FROM mail WHERE job_key = ? AND"
            + " state = 0 UNION ALL SELECT 2, MIN(key_seq) FROM mail WHERE state = 0 AND key_seq > 0 AND due_ms <= "
            + NOW;
    static final String INSERT_KEYED = "INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms, job_key,"
            + " unique_key, key_seq) VALUES (?, ?, 0, " + NOW + " + ?, 0, " + NOW + ", ?, ?, ?)";
    static final String GATE = "UPDATE mail_rot SET last_id = last_id + 1 WHERE cursor_name = ?";
    static final String KEYED = "SELECT j.id FROM mail j WHERE j.state = 0 AND j.due_ms <= " + NOW
            + " AND (j.job_key IS NULL OR (%s AND NOT EXISTS (SELECT 1 FROM mail o WHERE o.job_key = j.job_key AND"
            + " o.state = 0 AND o.due_ms <= " + NOW + " AND (o.key_seq < j.key_seq OR (o.key_seq = j.key_seq AND"
            + " o.id < j.id)))))";
    static final String LEASED = " FROM mail l WHERE l.job_key = j.job_key AND l.lease_token IS NOT NULL AND"
            + " l.state = 0 AND l.due_ms > " + NOW;

    @Test
    void a_keyed_enqueue_reads_the_keys_round_and_inserts_each_job_with_the_next_one() throws SQLException {
        ScriptedConnection c = new ScriptedConnection()
                .rows(row("part", 1, "key_seq", 7L), row("part", 2, "key_seq", 3L))
                .rows(row("ID", 41L)).rows(row("ID", 42L));
        SqlOp<long[]> op = work.enqueue(List.of("a", "b"), 5, 0, "tenant", null);
        assertFalse(op.singleStatement(), "one transaction");
        assertArrayEquals(new long[] {41, 42}, run(op, c));
        assertEquals(List.of(KEY_ROUND, INSERT_KEYED, INSERT_KEYED), c.sql());
        assertEquals("tenant", c.executions().get(0).value(1));
        assertEquals("tenant", c.executions().get(1).value(4));
        assertEquals(ScriptedConnection.NULL, c.executions().get(1).value(5), "no unique key");
        assertEquals(8L, c.executions().get(1).value(6), "one more than the key's newest round");
        assertEquals(9L, c.executions().get(2).value(6));
    }

    @Test
    void a_unique_enqueue_returns_the_live_holder_and_a_lost_race_reads_the_winner_under_a_savepoint()
            throws SQLException {
        ScriptedConnection held = new ScriptedConnection().rows(row("id", 17L));
        assertArrayEquals(new long[] {17}, run(work.enqueue(List.of("x"), 0, 0, null, "inv-7"), held));
        assertEquals(List.of(LIVE_UNIQUE), held.sql(), "a live holder: nothing written");

        ScriptedConnection race = new ScriptedConnection()
                .rows()                                                              // no holder yet
                .fails(new SQLException("ORA-00001: unique constraint violated", "23000", 1)) // a racer won
                .rows(row("id", 18L));                                               // the winner's job
        assertArrayEquals(new long[] {18}, run(work.enqueue(List.of("x"), 0, 0, null, "inv-7"), race));
        assertEquals(List.of(LIVE_UNIQUE, INSERT_KEYED, LIVE_UNIQUE), race.sql());
        assertEquals(List.of("setSavepoint", "rollback(savepoint)"), race.calls());
        assertEquals("inv-7", race.executions().get(1).value(5));
        assertEquals(0L, race.executions().get(1).value(6), "a job without a key is in round 0");
    }

    @Test
    void a_claim_under_a_per_key_limit_takes_the_gate_then_the_keys_next_jobs_with_skip_locked() throws SQLException {
        WorkStore store = dialect.workStore(WorkTables.of("mail"));
        ScriptedConnection c = new ScriptedConnection().updated(1).rows(row("id", 4L), row("id", 3L)).updated(2)
                .rows(job(3), job(4));
        List<Job> jobs = run(store.claim(2, 1000, 9, new ClaimRule(1, false)), c);
        assertEquals(List.of(4L, 3L), jobs.stream().map(Job::id).toList());
        assertEquals(List.of(GATE, KEYED.formatted("(SELECT COUNT(*)" + LEASED + ") < ?")
                + " ORDER BY j.prio DESC, j.due_ms, j.id FOR UPDATE SKIP LOCKED", LEASE, READ_LEASED), c.sql());
        assertEquals(1, c.executions().get(1).value(1), ":per_key");
        assertEquals(WorkTables.CLAIM_GATE, c.executions().get(0).value(1));
        assertEquals(2, c.executions().get(1).fetchSize(), "n rows fetched, so only n locked");
        assertEquals(2, c.executions().get(1).maxRows());
    }

    @Test
    void a_fair_claim_with_a_limit_above_1_counts_leased_jobs_and_orders_by_round() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().updated(1).rows(row("id", 4L)).updated(1).rows(job(4))
                .rows();
        List<Job> jobs = run(work.claim(3, 1000, 9, new ClaimRule(2, true)), c);
        assertTrue(c.scriptUsed());
        assertEquals(List.of(4L), jobs.stream().map(Job::id).toList());
        String keyed = KEYED.formatted("(SELECT COUNT(*)" + LEASED + ") < ?")
                + " ORDER BY j.key_seq, j.prio DESC, j.id FOR UPDATE SKIP LOCKED";
        assertEquals(List.of(GATE, keyed, LEASE.replace("(?, ?)", "(?)"), READ_LEASED.replace("(?, ?)", "(?)"),
                keyed), c.sql(), "a limit above 1 looks again for each key's next job");
        assertEquals(2, c.executions().get(1).value(1), ":per_key");
    }

    @Test
    void a_fair_claim_without_a_limit_takes_no_gate_and_stats_by_key_group_the_keyed_jobs() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("id", 4L)).updated(1).rows(job(4));
        run(work.claim(1, 1000, 9, new ClaimRule(0, true)), c);
        assertEquals(List.of("SELECT j.id FROM mail j WHERE j.state = 0 AND j.due_ms <= " + NOW
                + " ORDER BY j.key_seq, j.prio DESC, j.id FOR UPDATE SKIP LOCKED", LEASE.replace("(?, ?)", "(?)"),
                READ_LEASED.replace("(?, ?)", "(?)")), c.sql());
        ScriptedConnection s = new ScriptedConnection().rows(row("job_key", "k", "r", 1L, "s", 2L, "l", 3L, "d", 4L));
        assertEquals(java.util.Map.of("k", new dev.rowqueue.QueueStats(1, 2, 3, 4)), run(work.statsByKey(10), s));
        assertEquals(List.of("SELECT job_key, SUM(CASE WHEN state = 0 AND due_ms <= " + NOW + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN state = 0 AND due_ms > " + NOW + " AND lease_token IS NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN state = 0 AND due_ms > " + NOW + " AND lease_token IS NOT NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN state = 1 THEN 1 ELSE 0 END) FROM mail WHERE job_key IS NOT NULL GROUP BY job_key"
                + " ORDER BY COUNT(*) DESC, job_key FETCH FIRST ? ROWS ONLY"), s.sql());
    }

    static final String ADD_UPDATE = "UPDATE sales SET counter_value = counter_value + ? WHERE counter_key = ? AND"
            + " counter_value BETWEEN ? AND ? RETURNING counter_value INTO v_value;";
    static final String ADD = "DECLARE v_value NUMBER(19); BEGIN " + ADD_UPDATE + " IF SQL%ROWCOUNT = 0 THEN BEGIN"
            + " INSERT INTO sales (counter_key, counter_value) VALUES (?, ?); v_value := ?; EXCEPTION WHEN"
            + " DUP_VAL_ON_INDEX THEN " + ADD_UPDATE + " END; END IF; ? := v_value; END;";

    @Test
    void an_increment_is_one_plsql_block_and_a_null_result_means_overflow() throws SQLException {
        ScriptedConnection c = new ScriptedConnection().rows(row("result", 12L)).rows(row("result", null));
        SqlOp<OptionalLong> op = counters.add("Bulldozer", 12);
        assertTrue(op.singleStatement());
        assertEquals(OptionalLong.of(12), run(op, c));
        assertEquals(OptionalLong.empty(), run(counters.add("Bulldozer", Long.MAX_VALUE), c));
        assertEquals(List.of(ADD, ADD), c.sql());
        ScriptedConnection.Execution e = c.executions().get(1);
        assertEquals(Long.MIN_VALUE, e.value(3), ":lo");
        assertEquals(0L, e.value(4), ":hi = Long.MAX_VALUE - delta");
    }

    @Test
    void set_is_one_merge_retried_after_a_lost_creation_race_and_reads_are_portable() throws SQLException {
        ScriptedConnection c = new ScriptedConnection();
        SqlOp<Void> set = counters.set("k", 7);
        assertTrue(set.singleStatement() && set.retriesDuplicateKey());
        run(set, c);
        run(counters.get("k"), c);
        run(counters.remove("k"), c);
        run(counters.all(), c);
        assertEquals(List.of("MERGE INTO sales c USING (SELECT ? AS k, ? AS v FROM dual) s ON (c.counter_key = s.k)"
                        + " WHEN MATCHED THEN UPDATE SET c.counter_value = s.v WHEN NOT MATCHED THEN INSERT"
                        + " (counter_key, counter_value) VALUES (s.k, s.v)",
                "SELECT counter_value FROM sales WHERE counter_key = ?",
                "DELETE FROM sales WHERE counter_key = ?",
                "SELECT counter_key, counter_value FROM sales"), c.sql());
    }
}
