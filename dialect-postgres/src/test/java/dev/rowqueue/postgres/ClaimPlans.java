package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plans PostgreSQL runs a queue's one-job claims with once they are prepared on the server: rowqueue on a pool of
 * one connection claims one job at a time (alone, after one ack, after two acks) often enough for pgjdbc to prepare
 * each statement on the server (its fifth execution) and for the server's plan cache to choose between custom and
 * generic plans (after five custom plans); the plans are then read on the same session with {@code EXPLAIN EXECUTE} of
 * pgjdbc's prepared statements, which takes the plan cache's choice as an {@code EXECUTE} does.
 */
final class ClaimPlans {

    /** Executions of each claim statement: pgjdbc prepares it on the fifth, the plan cache chooses after five more. */
    static final int EXECUTIONS = 15;

    private ClaimPlans() {
    }

    /** The one-job claim statements prepared on one session, with their plan cache counts and plans. */
    record Prepared(String name, String statement, long genericPlans, long customPlans, String plan) {
    }

    /**
     * Claims one job at a time through the three one-job claim statements, {@link #EXECUTIONS} times each, calling
     * {@code between} before each claim.
     *
     * @param db      the queue's database (a pool of one connection is opened on it, and closed)
     * @param queue   the queue's name
     * @param between run before each claim (for example an enqueue that keeps the number of ready jobs)
     * @return the one-job claim statements of the session, with their plans as {@code EXPLAIN EXECUTE} shows them
     * @throws SQLException from the driver
     */
    static List<Prepared> claimAndExplain(PgFixture db, String queue, Runnable between) throws SQLException {
        try (HikariDataSource one = db.server.pool(db.database, 1)) { // one session: its prepared statements are read
            return claimAndExplain(one, queue, between);
        }
    }

    private static List<Prepared> claimAndExplain(HikariDataSource one, String queue, Runnable between)
            throws SQLException {
        try (RowQueues rq = RowQueues.builder(one).build()) {
            WorkQueue q = rq.workQueue(queue);
            for (int i = 0; i < EXECUTIONS; i++) {
                between.run();
                List<Job> a = q.claim(1);
                assertEquals(1, a.size(), "a claim of one job found it");
                between.run();
                List<Job> b = q.ackAndClaim(a, 1).claimed(); // one ack
                assertEquals(1, b.size());
                between.run();
                List<Job> both = new ArrayList<>(b);
                both.addAll(q.claim(1));
                between.run();
                List<Job> c = q.ackAndClaim(both, 1).claimed(); // two acks
                assertEquals(1, c.size());
                q.ack(c.get(0));
            }
        }
        return prepared(one);
    }

    /**
     * The claim statements a pool of one connection has prepared on its session (those with
     * {@code FOR UPDATE SKIP LOCKED}), with their plan cache counts and plans as {@code EXPLAIN EXECUTE} shows them.
     *
     * @param one a pool of one connection
     * @return the statements
     * @throws SQLException from the driver
     */
    static List<Prepared> prepared(HikariDataSource one) throws SQLException {
        Map<String, Prepared> prepared = new LinkedHashMap<>();
        try (Connection c = one.getConnection(); Statement s = c.createStatement()) {
            List<String[]> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT name, statement, generic_plans, custom_plans,"
                    + " CAST(parameter_types AS TEXT) FROM pg_prepared_statements"
                    + " WHERE statement LIKE '%FOR UPDATE SKIP LOCKED%' ORDER BY name")) {
                while (rs.next()) {
                    rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5)});
                }
            }
            for (String[] row : rows) {
                prepared.put(row[0], new Prepared(row[0], row[1], Long.parseLong(row[2]), Long.parseLong(row[3]),
                        explain(s, row[0], row[4])));
            }
        }
        return List.copyOf(prepared.values());
    }

    /** {@code EXPLAIN EXECUTE} of a prepared statement, with a value of each parameter's type. */
    private static String explain(Statement s, String name, String types) throws SQLException {
        StringBuilder args = new StringBuilder();
        String list = types.substring(1, types.length() - 1); // {bigint,"bigint[]"}
        for (String type : list.isEmpty() ? new String[0] : list.split(",")) {
            args.append(args.length() == 0 ? "" : ", ").append(type.replace("\"", "").endsWith("[]") ? "'{1}'" : "'1'");
        }
        StringBuilder plan = new StringBuilder();
        // pgjdbc names its statements S_1, S_2, ...: quoted, as SQL would fold them to lower case
        String execute = "EXECUTE \"" + name + "\"" + (args.length() == 0 ? "" : "(" + args + ")");
        try (ResultSet rs = s.executeQuery("EXPLAIN " + execute)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /**
     * Asserts that the three one-job claim statements were prepared, that the plan cache chose the generic plan of the
     * claim and of the claim after one ack (the claim after several acks binds arrays of ids, whose length the generic
     * plan does not know, and stays with custom plans), and that the plan walks the partial claim index {@code <queue>_due} and reaches the jobs through the primary key,
     * with no sequential scan of the queue.
     *
     * @param queue    the queue's name
     * @param prepared what {@link #claimAndExplain} returned
     */
    static void assertGenericIndexWalks(String queue, List<Prepared> prepared) {
        assertEquals(3, prepared.size(), "claim, claim after one ack, claim after several: " + prepared);
        for (Prepared p : prepared) {
            System.out.printf("%s: generic %d, custom %d plans: %s%n", p.name(), p.genericPlans(), p.customPlans(),
                    p.statement().substring(0, 70));
        }
        for (Prepared p : prepared) {
            String about = p.statement() + "\n" + p.plan();
            if (!p.statement().contains("id = ANY(CAST(")) { // not the claim after several acks
                assertTrue(p.genericPlans() > 0, "the plan cache chose the generic plan (generic " + p.genericPlans()
                        + ", custom " + p.customPlans() + "): " + about);
            }
            assertFalse(p.plan().contains("Seq Scan"), about);
            assertTrue(p.plan().contains("Index Scan using " + queue + "_due on " + queue), about);
            assertTrue(p.plan().contains(queue + "_pkey"), about);
            assertTrue(p.plan().contains("Limit"), about);
        }
    }
}
