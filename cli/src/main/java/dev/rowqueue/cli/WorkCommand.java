package dev.rowqueue.cli;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.WorkQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Work queue inspection: {@code work stats|dead|revive|enqueue}. */
@Command(name = "work", mixinStandardHelpOptions = true,
        description = "Look into work queues, revive dead letters, enqueue jobs.",
        subcommands = {WorkCommand.Stats.class, WorkCommand.Dead.class, WorkCommand.Revive.class,
                WorkCommand.EnqueueJobs.class})
final class WorkCommand extends GroupCommand {

    /** A command on one existing work queue. */
    abstract static class OnQueue extends BaseCommand {
        @Mixin
        ConnectionOptions connection;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "the work queue")
        String name;

        /** @return whether a missing queue may be created */
        boolean create() {
            return false;
        }

        /** The open database, while {@link #run(WorkQueue)} runs. */
        Endpoint.Opened db;

        /** Checks the options before anything connects; throws {@link IllegalArgumentException} for bad usage. */
        void checkOptions() {
        }

        @Override
        final int run() {
            checkOptions();
            try (Endpoint.Opened opened = connection.endpoint(this).open(create())) {
                db = opened;
                if (!create() || Catalog.find(opened.rq(), name).isPresent()) {
                    Catalog.require(opened.rq(), name, QueueKind.WORK);
                }
                return run(opened.rq().workQueue(name));
            }
        }

        /**
         * @param queue the open queue
         * @return the exit code
         */
        abstract int run(WorkQueue queue);
    }

    /** {@code work stats}. */
    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Counts a work queue's jobs by state; with --by-key, for each job key too.")
    static final class Stats extends OnQueue {
        @Option(names = "--by-key", description = "also count the jobs of each key (the keys with the most jobs"
                + " first; one statement grouping the whole table)")
        boolean byKey;

        @Option(names = "--limit", paramLabel = "N",
                description = "with --by-key, at most this many keys (default: 20, at most 1000)")
        Integer limitOption;

        @Override
        void checkOptions() {
            if (limitOption != null && !byKey) {
                throw new IllegalArgumentException("--limit counts keys: give it with --by-key");
            }
        }

        @Override
        int run(WorkQueue queue) {
            int limit = limitOption == null ? 20 : limitOption;
            QueueStats s = queue.stats();
            terminal().println("work queue " + queue.name());
            terminal().print(new Table("ready", "scheduled", "leased", "dead", "total")
                    .row(s.ready(), s.scheduled(), s.leased(), s.dead(), s.total()));
            queue.rateWindow().ifPresent(w -> terminal().println("rate limit: " + w.started() + " of " + w.limit()
                    + " started in the last " + w.window().toMillis() + " ms (" + w.remaining() + " more may start"
                    + " now); " + w.total() + " started under the limit in all, the latest at " + w.lastStart()));
            if (byKey) {
                Map<String, QueueStats> keys = queue.statsByKey(limit);
                terminal().println("by key: " + keys.size() + (keys.size() == 1 ? " key" : " keys")
                        + (keys.size() == limit ? " (limit reached; see --limit)" : "")
                        + "; jobs without a key are not listed");
                if (!keys.isEmpty()) {
                    Table table = new Table("key", "ready", "scheduled", "leased", "dead", "total");
                    keys.forEach((k, v) -> table.row(k, v.ready(), v.scheduled(), v.leased(), v.dead(), v.total()));
                    terminal().print(table);
                }
            }
            return ExitCode.OK;
        }
    }

    /** {@code work dead}. */
    @Command(name = "dead", mixinStandardHelpOptions = true,
            description = "Lists dead letters: jobs that exhausted their attempts, oldest first.")
    static final class Dead extends OnQueue {
        @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
                description = "at most this many (default: ${DEFAULT-VALUE}, at most 1000)")
        int limit;

        @Override
        int run(WorkQueue queue) {
            List<Job> dead = queue.deadLetters(limit);
            Table table = new Table("id", "attempts", "priority", "enqueued at", "last error", "payload");
            dead.forEach(j -> table.row(j.id(), j.failures(), j.priority(), j.enqueuedAt(), j.lastError(),
                    j.payload()));
            terminal().println("work queue " + queue.name() + ": " + dead.size() + " dead"
                    + (dead.size() == limit ? " (limit reached; see --limit)" : ""));
            if (table.size() > 0) {
                terminal().print(table);
            }
            return ExitCode.OK;
        }
    }

    /** {@code work revive}. */
    @Command(name = "revive", mixinStandardHelpOptions = true,
            description = "Makes dead jobs ready again, with their attempts reset.")
    static final class Revive extends OnQueue {
        // text, not List<Long>: picocli reports a word that is not a number as an "unmatched argument"
        @Parameters(index = "1..*", arity = "0..*", paramLabel = "ID", description = "dead job ids")
        List<String> ids = new ArrayList<>();

        @Option(names = "--all", description = "every dead job")
        boolean all;

        private static long jobId(String text) {
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a job id must be a number (as 'work dead' lists them), got '"
                        + text + "'");
            }
        }

        @Override
        int run(WorkQueue queue) {
            if (all == !ids.isEmpty()) {
                throw new IllegalArgumentException("give either dead job ids or --all");
            }
            if (all) {
                int n = queue.reviveAll();
                terminal().println("revived " + n + (n == 1 ? " job" : " jobs") + " of " + queue.name());
                return ExitCode.OK;
            }
            List<Long> missing = new ArrayList<>();
            int revived = 0;
            for (long id : ids.stream().map(Revive::jobId).toList()) {
                if (queue.revive(id)) {
                    revived++;
                } else {
                    missing.add(id);
                }
            }
            terminal().println("revived " + revived + (revived == 1 ? " job" : " jobs") + " of " + queue.name());
            if (!missing.isEmpty()) {
                throw new CliException(ExitCode.NOT_FOUND, "no dead job with id " + missing + " in " + queue.name());
            }
            return ExitCode.OK;
        }
    }

    /** {@code work enqueue}. */
    @Command(name = "enqueue", mixinStandardHelpOptions = true,
            description = "Enqueues jobs, atomically. The queue must exist unless --create is given.")
    static final class EnqueueJobs extends OnQueue {
        @Parameters(index = "1..*", arity = "0..*", paramLabel = "PAYLOAD",
                description = "one or more payloads; '-' alone reads one payload from standard input")
        List<String> payloads = new ArrayList<>();

        @Option(names = "--file", paramLabel = "PATH",
                description = "read one payload from this file (UTF-8, as it is) instead of the command line")
        java.nio.file.Path file;

        @Option(names = "--priority", paramLabel = "P", defaultValue = "0",
                description = "higher is claimed first (default: ${DEFAULT-VALUE})")
        int priority;

        @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "claimable only after this delay: 500ms, 30s, 5m, 2h, 1d or PT30S")
        Duration delay = Duration.ZERO;

        @Option(names = "--key", paramLabel = "KEY",
                description = "the jobs' key (per-key limits and fair claims go by it)")
        String key;

        @Option(names = "--unique-key", paramLabel = "KEY",
                description = "the job's unique key: if a live job holds it, nothing is enqueued and that job's id"
                        + " is printed (one payload only)")
        String uniqueKey;

        @Option(names = "--unique", description = "use --key as the unique key")
        boolean unique;

        @Option(names = "--create", description = "create the work queue if it does not exist")
        boolean createQueue;

        @Override
        boolean create() {
            return createQueue;
        }

        @Override
        void checkOptions() {
            payloads = Payloads.read(payloads, file, env());
        }

        @Override
        int run(WorkQueue queue) {
            if (unique && key == null) {
                throw new IllegalArgumentException("--unique makes --key the unique key; give --key too");
            }
            if (unique && uniqueKey != null) {
                throw new IllegalArgumentException("give either --unique (with --key) or --unique-key, not both");
            }
            Enqueue how = new Enqueue(priority, delay, key, unique ? key : uniqueKey);
            if (how.uniqueKey() != null) {
                if (payloads.size() != 1) {
                    throw new IllegalArgumentException("a unique key names one job: give one payload");
                }
                UniqueEnqueue.Outcome outcome = UniqueEnqueue.enqueue(db, queue, payloads.get(0), how);
                if (outcome.enqueued()) {
                    terminal().println("enqueued job " + outcome.id() + " to " + queue.name() + " (unique key '"
                            + how.uniqueKey() + "')");
                } else {
                    terminal().println("held: job " + outcome.id() + " of " + queue.name() + " already holds unique"
                            + " key '" + how.uniqueKey() + "'; nothing enqueued");
                }
                return ExitCode.OK;
            }
            List<Long> ids = queue.enqueueAll(payloads, how);
            terminal().println("enqueued " + ids.size() + (ids.size() == 1 ? " job" : " jobs") + " to "
                    + queue.name() + ": id " + ids.get(0) + (ids.size() > 1 ? " to " + ids.get(ids.size() - 1) : ""));
            return ExitCode.OK;
        }
    }
}
