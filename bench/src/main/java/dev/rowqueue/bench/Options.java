package dev.rowqueue.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The command line of {@link Bench}.
 *
 * @param profile          how long and at which thread counts
 * @param targets          the databases, in order
 * @param only             which workloads run (a regular expression found in their names, case-insensitive)
 * @param out              where the table goes
 * @param durable          full durability on the servers
 * @param claimConcurrency rowqueue's {@code claimConcurrency}, {@code null} for its default
 * @param node             the {@code node} executable for graphile-worker (a path, or a name on {@code PATH})
 * @param holdHorizon      the side-by-side cells run a second time with a transaction held open for the whole cell
 */
record Options(Profile profile, List<String> targets, Predicate<String> only, Path out, boolean durable,
               Integer claimConcurrency, String node, boolean holdHorizon) {

    static final String USAGE = "usage: [--profile smoke|quick|full] [--targets " + Targets.KNOWN.replace(" ", "")
            + "|all] [--only REGEX] [--out DIR] [--durable true|false] [--threads 1,4,16]"
            + " [--claim-concurrency N|unlimited] [--node PATH] [--hold-horizon true|false]";

    /**
     * @param args the arguments, each option followed by its value
     * @return the options
     * @throws IllegalArgumentException on an unknown option or a missing value, with the usage
     */
    static Options parse(String... args) {
        String profileName = "quick";
        List<String> targets = List.of("h2");
        String only = ".*";
        Path out = Path.of(System.getProperty("bench.out", "target/bench"));
        boolean durable = false;
        List<Integer> threads = null;
        Integer claims = null;
        String node = "node";
        boolean hold = false;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value after " + args[i] + "; " + USAGE);
            }
            String value = args[++i];
            switch (args[i - 1]) {
                case "--profile" -> profileName = value;
                case "--targets" -> targets = Arrays.stream((value.equals("all") ? Targets.KNOWN : value).split(","))
                        .map(String::trim).toList();
                case "--only" -> only = value;
                case "--out" -> out = Path.of(value);
                case "--durable" -> durable = Boolean.parseBoolean(value);
                case "--claim-concurrency" -> claims = "unlimited".equals(value) ? Integer.MAX_VALUE
                        : Integer.valueOf(value);
                case "--threads" -> threads = Arrays.stream(value.split(",")).map(String::trim)
                        .map(Integer::valueOf).toList();
                case "--node" -> node = value;
                case "--hold-horizon" -> hold = Boolean.parseBoolean(value);
                default -> throw new IllegalArgumentException("unknown argument " + args[i - 1] + "; " + USAGE);
            }
        }
        Profile profile = Profile.named(profileName);
        if (threads != null) {
            profile = profile.withThreads(threads);
        }
        Pattern pattern = Pattern.compile(only, Pattern.CASE_INSENSITIVE);
        return new Options(profile, targets, s -> pattern.matcher(s).find(), out, durable, claims, node, hold);
    }
}
