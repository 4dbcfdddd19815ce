package dev.rowqueue.cli;

import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SchemaException;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Looks queues up in a database's catalog before opening them, so inspection never creates a queue by accident. */
final class Catalog {
    private Catalog() {
    }

    /**
     * @param rq a RowQueues on the database
     * @return the catalog, or an empty list if the database has no rowqueue catalog table
     */
    static List<QueueInfo> queues(RowQueues rq) {
        try {
            return rq.queues();
        } catch (SchemaException e) {
            return List.of();
        }
    }

    /**
     * @param rq   a RowQueues on the database
     * @param name a queue name
     * @return the queue's catalog entry, if any
     */
    static Optional<QueueInfo> find(RowQueues rq, String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return queues(rq).stream().filter(q -> q.name().equals(n)).findFirst();
    }

    /**
     * @param rq   a RowQueues on the database
     * @param name a queue name
     * @param kind the kind it must be
     * @return its catalog entry
     * @throws CliException with {@link ExitCode#NOT_FOUND} if it is missing or of another kind
     */
    static QueueInfo require(RowQueues rq, String name, QueueKind kind) {
        Optional<QueueInfo> q = find(rq, name);
        if (q.isEmpty()) {
            List<QueueInfo> all = queues(rq);
            String known = all.stream().filter(i -> i.kind() == kind).map(QueueInfo::name)
                    .collect(Collectors.joining(", "));
            throw new CliException(ExitCode.NOT_FOUND, "no " + kindName(kind) + " named '" + name + "' in this"
                    + " database" + (known.isEmpty() ? "" : "; there is " + known));
        }
        if (q.get().kind() != kind) {
            throw new CliException(ExitCode.NOT_FOUND, "'" + name + "' is a " + kindName(q.get().kind()) + ", not a "
                    + kindName(kind));
        }
        return q.get();
    }

    /**
     * @param rq   a RowQueues on the database
     * @param info a ring's catalog entry
     * @return the ring, opened with its recorded capacity and strategy
     */
    static RingQueue ring(RowQueues rq, QueueInfo info) {
        return rq.ring(info.name(), new RingOptions(info.capacity(), info.strategy()));
    }

    /**
     * @param kind a kind
     * @return how the user calls it
     */
    static String kindName(QueueKind kind) {
        return switch (kind) {
            case RING -> "ring";
            case WORK -> "work queue";
            case COUNTERS -> "counters table";
        };
    }
}
