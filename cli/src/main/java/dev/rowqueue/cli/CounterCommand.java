package dev.rowqueue.cli;

import dev.rowqueue.Counters;
import dev.rowqueue.QueueKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Counters: {@code counter get|incr}. */
@Command(name = "counter", mixinStandardHelpOptions = true, description = "Read and increment counters.",
        subcommands = {CounterCommand.Get.class, CounterCommand.Incr.class})
final class CounterCommand extends GroupCommand {

    /** {@code counter get}. */
    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Prints counters: the given keys (0 for a key never used), or all of them.")
    static final class Get extends BaseCommand {
        @Mixin
        ConnectionOptions connection;

        @Parameters(index = "0", paramLabel = "TABLE", description = "the counters table")
        String name;

        @Parameters(index = "1..*", arity = "0..*", paramLabel = "KEY", description = "counter keys (default: all)")
        List<String> keys = new ArrayList<>();

        @Override
        int run() {
            try (Endpoint.Opened db = connection.endpoint(this).open(false)) {
                Catalog.require(db.rq(), name, QueueKind.COUNTERS);
                Counters counters = db.rq().counters(name);
                Table table = new Table("key", "value");
                if (keys.isEmpty()) {
                    for (Map.Entry<String, Long> e : new java.util.TreeMap<>(counters.all()).entrySet()) {
                        table.row(e.getKey(), e.getValue());
                    }
                } else {
                    keys.forEach(k -> table.row(k, counters.get(k)));
                }
                terminal().print(table);
                return ExitCode.OK;
            }
        }
    }

    /** {@code counter incr}. */
    @Command(name = "incr", mixinStandardHelpOptions = true,
            description = "Adds to a counter atomically and prints its new value. The table must exist unless"
                    + " --create is given.")
    static final class Incr extends BaseCommand {
        @Mixin
        ConnectionOptions connection;

        @Parameters(index = "0", paramLabel = "TABLE", description = "the counters table")
        String name;

        @Parameters(index = "1", paramLabel = "KEY", description = "the counter")
        String key;

        @Option(names = "--by", paramLabel = "N", defaultValue = "1",
                description = "the amount, negative to count down (default: ${DEFAULT-VALUE})")
        long by;

        @Option(names = "--create", description = "create the counters table if it does not exist")
        boolean create;

        @Override
        int run() {
            try (Endpoint.Opened db = connection.endpoint(this).open(create)) {
                if (!create || Catalog.find(db.rq(), name).isPresent()) {
                    Catalog.require(db.rq(), name, QueueKind.COUNTERS);
                }
                long value = db.rq().counters(name).increment(key, by);
                terminal().println(String.valueOf(value));
                return ExitCode.OK;
            }
        }
    }
}
