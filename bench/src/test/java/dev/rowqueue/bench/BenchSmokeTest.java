package dev.rowqueue.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The harness runs end to end and writes its table: on H2 a row per workload and thread count, the exact statement
 * counts, and the JSON; on H2 the rate-limit accuracy cell, whose starts never exceed the limit in a window; on
 * embedded PostgreSQL the side-by-side cells of rowqueue and its peers (db-scheduler, JobRunr,
 * graphile-worker), and "not run" with the reason when there is no Node.js. It asserts that cells are produced,
 * never how fast anything was.
 */
class BenchSmokeTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void the_smoke_profile_writes_a_row_per_workload_and_thread_count(@TempDir Path out) throws Exception {
        Path md = Bench.run(new String[] {"--profile", "smoke", "--targets", "h2", "--threads", "1,2", "--out",
                out.toString(), "--only", "round trips|bare INSERT|rowqueue \\(safe\\), 1000 groups, capacity 10$"
                + "|^enqueue, rowqueue$|claim\\+ack, rowqueue, batch 1|enqueue-to-claim|1 hot key|^workers: "});
        String table = Files.readString(md, StandardCharsets.UTF_8);
        List<String> rows = table.lines().filter(l -> l.startsWith("| H2 ")).toList();
        for (String workload : List.of("baseline: bare INSERT of one row, own transaction",
                "ring push, rowqueue (safe), 1000 groups, capacity 10 ", "enqueue, rowqueue ",
                "claim+ack, rowqueue, batch 1 ", "enqueue-to-claim latency", "counter increment, rowqueue, 1 hot key",
                "claim+ack, rowqueue, batch 1, backlog 5,000 live + 500 dead",
                "workers: rowqueue Worker, no-op handler ", "workers: rowqueue Worker, no-op handler, prefetch = threads",
                "workers: rowqueue Worker, 1 ms handler (Thread.sleep(1)) ",
                "workers: enqueue-to-start latency, rowqueue Worker", "workers: heartbeat statements per second")) {
            for (int threads : new int[] {1, 2}) {
                assertEquals(1, rows.stream().filter(r -> r.contains("| " + workload.trim() + (workload.endsWith(" ")
                        ? " |" : "")) && r.contains(" | " + threads + " | ")).count(), workload + " at " + threads
                        + " threads:\n" + table);
            }
        }
        assertTrue(table.contains("| H2 2.5.252 | ring push (safe), existing group | 1.00 | 0.00 |"), table);
        assertTrue(table.contains("| H2 2.5.252 | counter increment, existing key | 1.00 | 0.00 |"), table);
        assertTrue(table.contains("| H2 2.5.252 | worker, no-op handler, 16 threads, per job |"), table);
        assertTrue(table.contains("## Workers against db-scheduler"), table);
        String json = Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"workload\": \"claim+ack, rowqueue, batch 1\", \"threads\": 2"), json);
        assertFalse(table.contains("side by side"), "no peer cell was selected:\n" + table);
    }

    /**
     * The rate-limit cell runs three nodes' workers on H2 and reports its starts: never more than the limit in any
     * window, no job claimed twice. Its rate is reported, not asserted.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void the_rate_limit_cell_never_starts_more_than_the_limit_in_a_window(@TempDir Path out) throws Exception {
        Path md = Bench.run(new String[] {"--profile", "smoke", "--targets", "h2", "--out", out.toString(), "--only",
                "^" + RateLimitCell.NAME + "$"});
        String json = Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\\{\"database\": \"H2 [^\"]*\", \"nodes\": 3, \"threads\": 2, \"limit\": 100,"
                + " \"windowMs\": 1000, \"runMs\": 2000, \"starts\": (\\d+), \"maxInWindow\": (\\d+), .*"
                + " \"duplicates\": (\\d+), \"left\": (\\d+)}").matcher(json);
        assertTrue(m.find(), json);
        assertTrue(Long.parseLong(m.group(1)) > 0, "the workers started jobs:\n" + json);
        assertTrue(Integer.parseInt(m.group(2)) <= RateLimitCell.LIMIT, "never more than the limit in a window:\n"
                + json);
        assertEquals("0", m.group(3), "no job claimed twice:\n" + json);
        assertTrue(Long.parseLong(m.group(4)) > 0, "the backlog did not run dry:\n" + json);
        String table = Files.readString(md, StandardCharsets.UTF_8);
        assertTrue(table.contains("## Rate limit accuracy"), table);
        assertTrue(table.contains("| H2 2.5.252 | rate limit: at most 100 starts in any 1000 ms window, 3 nodes |"),
                table);
        assertFalse(table.contains("| H2 2.5.252 | baseline:"), "--only selects the cell:\n" + table);
    }

    /** Without a node executable, graphile-worker's cells say why they did not run; the Java peers run. */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void peers_run_side_by_side_and_graphile_worker_is_not_run_without_node(@TempDir Path out) throws Exception {
        Path md = Bench.run(new String[] {"--profile", "smoke", "--targets", "postgres", "--threads", "1", "--out",
                out.toString(), "--node", out.resolve("no-such-node").toString(), "--only",
                "^peers: (workers, no-op handler|enqueue, one job|enqueue, batches|enqueue-to-start)"});
        String json = Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8);
        for (String cell : List.of("workers, no-op handler", "enqueue, one job per call", "enqueue, batches of 100",
                "enqueue-to-start latency, idle worker, 20 jobs/s")) {
            for (String system : List.of("rowqueue", "db-scheduler", "JobRunr")) {
                assertTrue(json.contains("\"cell\": \"" + cell + "\", \"threads\": 1, \"system\": \"" + system
                        + "\", \"ran\": true"), cell + ", " + system + ":\n" + json);
            }
            assertTrue(json.contains("\"cell\": \"" + cell + "\", \"threads\": 1, \"system\": \"graphile-worker\","
                    + " \"ran\": false"), cell + ":\n" + json);
        }
        assertFalse(json.contains("workers, 1 ms handler"), "--only selects the cells:\n" + json);
        String table = Files.readString(md, StandardCharsets.UTF_8);
        assertTrue(table.contains("## rowqueue and its peers, side by side"), table);
        assertTrue(table.contains("| graphile-worker | not run |  | not run: no node executable ("), table);
        assertTrue(table.contains("JobRunr " + JobRunrPeer.version()), table);
    }

    /** With Node.js, graphile-worker is installed (once, into the cache) and run as a child process. */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void graphile_worker_runs_as_a_child_process_where_node_is_installed(@TempDir Path out) throws Exception {
        assumeTrue(GraphileWorkerPeer.executable("node").isPresent(), "no node on PATH");
        Bench.run(new String[] {"--profile", "smoke", "--targets", "postgres", "--threads", "1", "--out",
                out.toString(), "--only", "^peers: (workers, no-op handler|enqueue, one job per call), (rowqueue|graphile)"});
        String json = Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8);
        for (String cell : List.of("workers, no-op handler", "enqueue, one job per call")) {
            assertTrue(json.contains("\"cell\": \"" + cell + "\", \"threads\": 1, \"system\": \"graphile-worker\","
                    + " \"ran\": true"), cell + ":\n" + json);
        }
        assertFalse(json.contains("\"system\": \"JobRunr\""), "--only selects the systems:\n" + json);
    }
}
