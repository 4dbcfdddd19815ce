package dev.rowqueue.cli;

import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Ring queue inspection: {@code ring list} and {@code ring push}. */
@Command(name = "ring", mixinStandardHelpOptions = true, description = "Look into and push to ring queues.",
        subcommands = {RingCommand.ListEntries.class, RingCommand.Push.class})
final class RingCommand extends GroupCommand {

    /** {@code ring list}: groups and their entries. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists a ring's groups and their entries, oldest first.")
    static final class ListEntries extends BaseCommand {
        @Mixin
        ConnectionOptions connection;

        @Parameters(index = "0", paramLabel = "RING", description = "the ring")
        String name;

        @Option(names = {"-g", "--group"}, paramLabel = "GROUP", description = "only these groups (default: all)")
        List<String> groups = new ArrayList<>();

        @Option(names = "--newest-first", description = "newest entries first")
        boolean newestFirst;

        @Override
        int run() {
            try (Endpoint.Opened db = connection.endpoint(this).open(false)) {
                QueueInfo info = Catalog.require(db.rq(), name, QueueKind.RING);
                RingQueue ring = Catalog.ring(db.rq(), info);
                Terminal t = terminal();
                List<String> shown = groups.isEmpty() ? ring.groups() : groups;
                t.println("ring " + info.name() + ": capacity " + info.capacity() + ", strategy " + info.strategy()
                        + ", " + shown.size() + (shown.size() == 1 ? " group" : " groups"));
                for (String group : shown) {
                    List<RingEntry> entries = newestFirst ? ring.newestFirst(group) : ring.oldestFirst(group);
                    t.println(t.bold("group " + Table.text(group)) + " (" + entries.size() + " of "
                            + info.capacity() + ")");
                    Table table = new Table("seq", "pushed at", "payload");
                    entries.forEach(e -> table.row(e.seq(), e.pushedAt(), e.payload()));
                    t.print(table);
                }
                return ExitCode.OK;
            }
        }
    }

    /** {@code ring push}: appends payloads to a group. */
    @Command(name = "push", mixinStandardHelpOptions = true,
            description = "Pushes payloads to a ring group, in order, atomically. The ring must exist unless"
                    + " --capacity is given.")
    static final class Push extends BaseCommand {
        @Mixin
        ConnectionOptions connection;

        @Parameters(index = "0", paramLabel = "RING", description = "the ring")
        String name;

        @Parameters(index = "1", paramLabel = "GROUP", description = "the group")
        String group;

        @Parameters(index = "2..*", arity = "0..*", paramLabel = "PAYLOAD",
                description = "one or more payloads; '-' alone reads one payload from standard input")
        List<String> payloads = new ArrayList<>();

        @Option(names = "--file", paramLabel = "PATH",
                description = "read one payload from this file (UTF-8, as it is) instead of the command line")
        java.nio.file.Path file;

        @Option(names = "--capacity", paramLabel = "N", description = "create the ring with this capacity if missing")
        Integer capacity;

        @Option(names = "--strategy", paramLabel = "S", defaultValue = "SAFE",
                description = "the strategy of a ring created here (default: ${DEFAULT-VALUE})")
        RingStrategy strategy;

        @Override
        int run() {
            payloads = Payloads.read(payloads, file, env());
            try (Endpoint.Opened db = connection.endpoint(this).open(capacity != null)) {
                Optional<QueueInfo> info = Catalog.find(db.rq(), name);
                RingQueue ring;
                if (info.isEmpty() && capacity != null) {
                    ring = db.rq().ring(name, new RingOptions(capacity, strategy));
                    terminal().println("created ring " + ring.name() + " (capacity " + capacity + ", strategy "
                            + strategy + ")");
                } else {
                    QueueInfo q = Catalog.require(db.rq(), name, QueueKind.RING);
                    if (capacity != null && capacity != q.capacity()) {
                        throw new IllegalArgumentException("ring " + q.name() + " has capacity " + q.capacity()
                                + ", not " + capacity);
                    }
                    ring = Catalog.ring(db.rq(), q);
                }
                List<Long> seqs = ring.pushAll(group, payloads);
                terminal().println("pushed " + seqs.size() + (seqs.size() == 1 ? " entry" : " entries") + " to "
                        + ring.name() + " group " + Table.text(group) + ": seq " + seqs.get(0)
                        + (seqs.size() > 1 ? " to " + seqs.get(seqs.size() - 1) : ""));
                return ExitCode.OK;
            }
        }
    }
}
