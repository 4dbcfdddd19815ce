package dev.rowqueue.cli;

import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

/** Lists the queues of a database's catalog. */
@Command(name = "queues", mixinStandardHelpOptions = true,
        description = "Lists the queues in a database's catalog: kind, capacity, strategy, tables and contents.")
final class QueuesCommand extends BaseCommand {

    @Mixin
    ConnectionOptions connection;

    @Override
    int run() {
        try (Endpoint.Opened db = connection.endpoint(this).open(false)) {
            Terminal t = terminal();
            t.println(db.describe());
            List<QueueInfo> queues = Catalog.queues(db.rq());
            if (queues.isEmpty()) {
                t.println("No rowqueue queues in this database.");
                return ExitCode.OK;
            }
            Table table = new Table("queue", "kind", "capacity", "strategy", "created", "tables", "contents");
            for (QueueInfo q : queues) {
                table.row(q.name(), Catalog.kindName(q.kind()), q.capacity() == 0 ? "" : (Object) q.capacity(),
                        q.strategy() == null ? "" : q.strategy(), q.createdAt(), String.join(", ", q.tables()), contents(db.rq(), q));
            }
            t.print(table);
            return ExitCode.OK;
        }
    }

    private static String contents(RowQueues rq, QueueInfo q) {
        switch (q.kind()) {
            case RING -> {
                RingQueue ring = Catalog.ring(rq, q);
                List<String> groups = ring.groups();
                long entries = groups.stream().mapToLong(ring::size).sum();
                return groups.size() + (groups.size() == 1 ? " group, " : " groups, ") + entries
                        + (entries == 1 ? " entry" : " entries");
            }
            case WORK -> {
                QueueStats s = rq.workQueue(q.name()).stats();
                return s.ready() + " ready, " + s.scheduled() + " scheduled, " + s.leased() + " leased, " + s.dead()
                        + " dead";
            }
            default -> {
                int n = rq.counters(q.name()).all().size();
                return n + (n == 1 ? " counter" : " counters");
            }
        }
    }
}
