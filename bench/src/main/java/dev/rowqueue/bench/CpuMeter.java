package dev.rowqueue.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * CPU time of the processes in a cell, read from Linux's {@code /proc} over the timed rounds only
 * ({@link Harness.RoundListener}): this JVM (the harness, rowqueue and the Java peers), the peer's own process where it
 * has one (graphile-worker's Node.js), and the database server (every process whose command line names the server's
 * data directory, and their descendants: PostgreSQL's postmaster and backends, MariaDB's {@code mysqld}). Reported as
 * CPU microseconds per unit of work and as cores busy: with client and server on the same two cores, this is where
 * the time of a cell went. Without {@code /proc} (not Linux) it reports nothing.
 */
final class CpuMeter implements Harness.RoundListener {

    /** Clock ticks a second of {@code /proc/<pid>/stat}'s times ({@code USER_HZ}, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100;

    private final String serverMarker;
    private final Supplier<List<Long>> peerProcesses;
    private final long[] total = new long[3];
    private List<Map<Long, Long>> start;
    private long startNanos;
    private long units;
    private long nanos;

    /**
     * @param serverMarker  a string in the server's command line (its data directory), or {@code null}
     * @param peerProcesses the peer's processes outside this JVM (may be empty)
     */
    CpuMeter(String serverMarker, Supplier<List<Long>> peerProcesses) {
        this.serverMarker = serverMarker;
        this.peerProcesses = peerProcesses;
    }

    @Override
    public void started(boolean timed) {
        if (timed) {
            start = sample();
            startNanos = System.nanoTime();
        }
    }

    @Override
    public void ended(boolean timed, long done) {
        if (timed && start != null) {
            List<Map<Long, Long>> end = sample();
            for (int i = 0; i < total.length; i++) {
                // per process: one that started during the round counts from 0, one that ended is not counted
                for (Map.Entry<Long, Long> e : end.get(i).entrySet()) {
                    total[i] += Math.max(0, e.getValue() - start.get(i).getOrDefault(e.getKey(), 0L));
                }
            }
            nanos += System.nanoTime() - startNanos;
            units += done;
            start = null;
        }
    }

    /** @return "CPU per job: JVM a µs, node b µs, server c µs (x of n cores busy)", or empty without /proc */
    String describe(String unit) {
        if (units == 0 || nanos == 0 || !Files.isDirectory(Path.of("/proc/self"))) {
            return "";
        }
        double seconds = nanos / 1e9;
        double[] micros = new double[3];
        double busy = 0;
        for (int i = 0; i < 3; i++) {
            micros[i] = total[i] / TICKS_PER_SECOND * 1e6 / units;
            busy += total[i] / TICKS_PER_SECOND / seconds;
        }
        return String.format(Locale.ROOT, "CPU per %s: JVM %.0f µs, node %.0f µs, server %.0f µs (%.2f cores busy)",
                unit, micros[0], micros[1], micros[2], busy);
    }

    /** @return CPU ticks per process of the JVM, the peer's processes and the server, now */
    private List<Map<Long, Long>> sample() {
        List<Map<Long, Long>> t = List.of(new HashMap<>(), new HashMap<>(), new HashMap<>());
        long self = ProcessHandle.current().pid();
        t.get(0).put(self, ticks(self));
        for (long pid : peerProcesses.get()) {
            t.get(1).put(pid, ticks(pid));
        }
        if (serverMarker != null) {
            for (long pid : serverProcesses(serverMarker)) {
                t.get(2).put(pid, ticks(pid));
            }
        }
        return t;
    }

    /** @return the processes whose command line contains {@code marker}, and all their descendants */
    static Set<Long> serverProcesses(String marker) {
        Map<Long, Long> parents = new HashMap<>();
        Set<Long> roots = new HashSet<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString()
                .chars().allMatch(Character::isDigit))) {
            for (Path p : procs) {
                long pid = Long.parseLong(p.getFileName().toString());
                String[] stat = stat(pid);
                if (stat.length > 1) {
                    parents.put(pid, Long.parseLong(stat[1]));
                }
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (cmdline.contains(marker)) {
                        roots.add(pid);
                    }
                } catch (IOException | RuntimeException e) {
                    // the process ended
                }
            }
        } catch (IOException | RuntimeException e) {
            return Set.of();
        }
        Set<Long> all = new HashSet<>(roots);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Map.Entry<Long, Long> e : parents.entrySet()) {
                if (all.contains(e.getValue()) && all.add(e.getKey())) {
                    grew = true;
                }
            }
        }
        return all;
    }

    /** @return utime + stime of a process (all its threads), in clock ticks; 0 if it is gone */
    static long ticks(long pid) {
        String[] f = stat(pid);
        // after the command name: state(0) ppid(1) ... utime(11) stime(12)
        return f.length > 12 ? Long.parseLong(f[11]) + Long.parseLong(f[12]) : 0;
    }

    /** @return the fields of /proc/pid/stat after the command name, or none */
    private static String[] stat(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.UTF_8);
            int close = s.lastIndexOf(')');
            return close < 0 ? new String[0] : s.substring(close + 2).trim().split(" ");
        } catch (IOException | RuntimeException e) {
            return new String[0];
        }
    }

    /** @return no processes */
    static Supplier<List<Long>> none() {
        return ArrayList::new;
    }
}
