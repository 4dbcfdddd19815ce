package dev.rowqueue.cli;

import dev.rowqueue.QueueKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/** What a migration copied and whether every table verified: the same row count and checksum on both sides. */
final class MigrationReport {

    private final String source;
    private final String target;
    private final List<QueueResult> queues = new ArrayList<>();

    MigrationReport(String source, String target) {
        this.source = source;
        this.target = target;
    }

    void add(QueueResult result) {
        queues.add(result);
    }

    /** @return each queue's result, in migration order */
    List<QueueResult> queues() {
        return List.copyOf(queues);
    }

    /** @return whether every queue was copied and every table verified */
    boolean verified() {
        return !queues.isEmpty() && queues.stream().allMatch(QueueResult::verified);
    }

    /**
     * One table's verification.
     *
     * @param label          the part
     * @param table          the table
     * @param copied         rows copied by this run
     * @param sourceRows     rows on the source
     * @param targetRows     rows on the target
     * @param sourceChecksum checksum of the source rows
     * @param targetChecksum checksum of the target rows
     * @param dead           of the source rows, how many are dead jobs
     */
    record PartResult(String label, String table, long copied, long sourceRows, long targetRows,
                      String sourceChecksum, String targetChecksum, long dead) {
        boolean verified() {
            return sourceRows == targetRows && sourceChecksum.equals(targetChecksum);
        }
    }

    /** One queue's outcome. */
    static final class QueueResult {
        private final String name;
        private final QueueKind kind;
        private final List<PartResult> parts = new ArrayList<>();
        private String failure;

        QueueResult(String name, QueueKind kind) {
            this.name = name;
            this.kind = kind;
        }

        QueueResult failed(String why) {
            this.failure = why;
            return this;
        }

        void part(String label, String table, long copied, long sourceRows, long targetRows, String sourceChecksum,
                  String targetChecksum, long dead) {
            parts.add(new PartResult(label, table, copied, sourceRows, targetRows, sourceChecksum, targetChecksum,
                    dead));
        }

        String name() {
            return name;
        }

        List<PartResult> parts() {
            return List.copyOf(parts);
        }

        String failure() {
            return failure;
        }

        boolean verified() {
            return failure == null && parts.stream().allMatch(PartResult::verified);
        }
    }

    /**
     * What the source held, by kind of row: the queues by kind, then per table what its rows are.
     *
     * @return e.g. "1 ring, 1 work queue; 4 ring groups, 6 ring entries, 8 jobs (1 dead), 2 schedules, ..."
     */
    String carried() {
        Map<String, Long> kinds = new LinkedHashMap<>();
        Map<String, Long> rows = new LinkedHashMap<>();
        long dead = 0;
        for (QueueResult q : queues) {
            kinds.merge(Catalog.kindName(q.kind), 1L, Long::sum);
            for (PartResult p : q.parts) {
                rows.merge(p.label(), p.sourceRows(), Long::sum);
                dead += p.dead();
            }
        }
        StringJoiner j = new StringJoiner(", ");
        kinds.forEach((kind, n) -> j.add(n + " " + kind + (n == 1 ? "" : "s")));
        StringJoiner r = new StringJoiner(", ");
        for (Map.Entry<String, Long> e : rows.entrySet()) {
            String what = switch (e.getKey()) {
                case "heads" -> "ring groups";
                case "entries" -> "ring entries";
                case "cursors" -> "rotation cursors";
                case "schedule slots" -> "fired schedule slots";
                default -> e.getKey();
            };
            r.add(e.getValue() + " " + what + (e.getKey().equals("jobs") ? " (" + dead + " dead)" : ""));
        }
        return j + (rows.isEmpty() ? "" : "; " + r);
    }

    /**
     * @param t the terminal, for colour
     */
    void print(Terminal t) {
        t.println("");
        t.println(t.bold("Migration report") + ": " + source + " -> " + target);
        Table table = new Table("queue", "kind", "table", "copied now", "source rows", "target rows", "checksum",
                "result");
        long rows = 0;
        for (QueueResult q : queues) {
            if (q.failure != null) {
                table.row(q.name, Catalog.kindName(q.kind), "", "", "", "", "",
                        new Table.Styled("FAILED", t::red));
                continue;
            }
            for (PartResult p : q.parts) {
                rows += p.sourceRows();
                String checksum = p.sourceChecksum().equals(p.targetChecksum()) ? p.sourceChecksum()
                        : p.sourceChecksum() + " / " + p.targetChecksum();
                table.row(q.name, Catalog.kindName(q.kind), p.table(), p.copied(), p.sourceRows(), p.targetRows(),
                        checksum, p.verified() ? new Table.Styled("OK", t::green) : new Table.Styled("MISMATCH", t::red));
            }
        }
        t.print(table);
        for (QueueResult q : queues) {
            if (q.failure != null) {
                t.println(t.red("FAILED") + " " + q.name + ": " + q.failure);
            } else if (!q.verified()) {
                t.println(t.red("MISMATCH") + " " + q.name + ": counts or checksums differ. Were producers or"
                        + " consumers running on the source? Stop them and rerun with --fresh --queue " + q.name);
            }
        }
        t.println("Carried: " + carried());
        long ok = queues.stream().filter(QueueResult::verified).count();
        if (verified()) {
            t.println(t.verdict("VERIFIED") + ": " + queues.size() + (queues.size() == 1 ? " queue, " : " queues, ")
                    + rows + " rows; every row count and checksum matches on both sides");
        } else {
            t.println(t.red("NOT VERIFIED") + ": " + ok + " of " + queues.size() + " queues verified");
        }
    }
}
