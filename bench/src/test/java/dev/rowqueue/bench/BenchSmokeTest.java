package dev.rowqueue.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness runs end to end on H2 and writes its table: a row per workload and thread count, the exact
 * statement counts, and the JSON. It asserts that rows are produced, never how fast anything was.
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
    }
}
