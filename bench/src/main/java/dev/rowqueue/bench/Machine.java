package dev.rowqueue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** What the numbers were measured on. */
final class Machine {
    private Machine() {
    }

    /** @return CPU model, cores, memory, Java and OS */
    static String describe() {
        return cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores, " + memory() + " RAM, Java "
                + System.getProperty("java.version") + ", " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + " " + System.getProperty("os.arch");
    }

    /** @return the 1, 5 and 15 minute load averages, or "unknown" */
    static String loadAverage() {
        List<String> lines = read("/proc/loadavg");
        if (lines.isEmpty()) {
            return "unknown";
        }
        String[] f = lines.get(0).split("\\s+");
        return f.length >= 3 ? f[0] + ", " + f[1] + ", " + f[2] : "unknown";
    }

    private static String cpuModel() {
        for (String line : read("/proc/cpuinfo")) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown CPU";
    }

    private static String memory() {
        for (String line : read("/proc/meminfo")) {
            if (line.startsWith("MemTotal:")) {
                long kb = Long.parseLong(line.replaceAll("\\D", ""));
                return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
            }
        }
        return "unknown";
    }

    private static List<String> read(String file) {
        try {
            return Files.readAllLines(Path.of(file));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
