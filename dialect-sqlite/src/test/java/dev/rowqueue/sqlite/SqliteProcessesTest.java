package dev.rowqueue.sqlite;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writers in separate processes, which share nothing but the database file and SQLite's file locks: two JVMs push
 * into one group, increment one counter and claim from one queue at once. Nothing is lost, no number or job is given
 * twice.
 */
class SqliteProcessesTest {

    private static final int PUSHES = 500;
    private static final int JOBS = 400;

    @TempDir
    Path dir;

    private static SQLiteDataSource dataSource(String file) {
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + file);
        ds.setJournalMode("WAL");
        return ds;
    }

    @Test
    void two_processes_lose_no_push_increment_or_job_and_share_none() throws Exception {
        String file = dir.resolve("shared.db").toString();
        List<Long> ids = new ArrayList<>();
        try (RowQueues rq = RowQueues.builder(dataSource(file)).build()) {
            rq.ring("events", PUSHES * 2);
            rq.counters("hits");
            WorkQueue q = rq.workQueue("tasks");
            for (long id : q.enqueueAll(Collections.nCopies(JOBS, "job"), Enqueue.defaults())) {
                ids.add(id);
            }
        }
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                    Child.class.getName(), file, name).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            children.add(child);
            outputs.add(new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
        }
        for (BufferedReader out : outputs) { // both started and connected: let them write at the same time
            assertEquals("ready", out.readLine());
        }
        for (Process child : children) {
            child.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            child.getOutputStream().flush();
        }
        List<Long> acked = new ArrayList<>();
        for (int i = 0; i < children.size(); i++) {
            try (BufferedReader out = outputs.get(i)) {
                out.lines().filter(l -> l.startsWith("acked ")).forEach(l -> acked.add(Long.parseLong(l.substring(6))));
            }
            assertTrue(children.get(i).waitFor(5, TimeUnit.MINUTES), "child still running");
            assertEquals(0, children.get(i).exitValue(), "child failed (its stderr is in the test output)");
        }
        try (RowQueues rq = RowQueues.builder(dataSource(file)).build()) {
            List<RingEntry> entries = rq.ring("events", PUSHES * 2).oldestFirst("g");
            assertEquals(LongStream.rangeClosed(1, PUSHES * 2).boxed().toList(),
                    entries.stream().map(RingEntry::seq).toList(), "every push kept, numbers consecutive");
            Set<String> expected = new HashSet<>();
            for (String name : List.of("a", "b")) {
                for (int i = 0; i < PUSHES; i++) {
                    expected.add(name + i);
                }
            }
            assertEquals(expected, entries.stream().map(RingEntry::payload).collect(Collectors.toSet()));
            assertEquals(PUSHES * 2L, rq.counters("hits").get("k"));
            assertEquals(JOBS, acked.size(), "every job acked once: " + acked.size());
            assertEquals(new HashSet<>(ids), new HashSet<>(acked), "no job twice, none lost");
            assertEquals(0, rq.workQueue("tasks").stats().total());
        }
    }

    /** One process: pushes, increments and claims until the queue is empty, printing the ids it acked. */
    public static final class Child {
        private Child() {
        }

        /**
         * @param args the database file and this child's name
         * @throws Exception on failure (a non-zero exit)
         */
        public static void main(String[] args) throws Exception {
            String name = args[1];
            try (RowQueues rq = RowQueues.builder(dataSource(args[0])).build()) {
                var ring = rq.ring("events", PUSHES * 2);
                var counters = rq.counters("hits");
                WorkQueue q = rq.workQueue("tasks");
                System.out.println("ready");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                if (!"go".equals(in.readLine())) {
                    throw new IllegalStateException("no go");
                }
                for (int i = 0; i < PUSHES; i++) {
                    ring.push("g", name + i);
                    counters.increment("k");
                    for (Job job : q.claim(1)) {
                        if (q.ack(job)) {
                            System.out.println("acked " + job.id());
                        }
                    }
                }
                for (List<Job> jobs = q.claim(5); !jobs.isEmpty(); jobs = q.claim(5)) {
                    for (Job job : jobs) {
                        if (q.ack(job)) {
                            System.out.println("acked " + job.id());
                        }
                    }
                }
            }
        }
    }
}
