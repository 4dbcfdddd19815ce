package dev.rowqueue.cli;

import dev.rowqueue.QueueConflictException;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SchemaException;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Copies queues from one database to another: rings (sequence numbers, slots and head rows, so numbering continues),
 * work queues (ids, states, attempts, due times, last errors, keys, unique keys and rotation cursors; leased jobs arrive
 * ready, and the target's id generator restarts above the copied ids) with the schedules that enqueue into them (their
 * definitions, revisions, next slots and fired slots), and counters.
 *
 * <p>The target queues are created through the API, so the target dialect's DDL is used; rows move with plain
 * {@code SELECT} and {@code INSERT}, in batches that commit together with a {@link Checkpoints checkpoint}, so an
 * interrupted migration continues where it stopped when run again. At the end every table is verified: its row count
 * and an order-independent checksum, computed by the same code over the rows read from each side.
 */
final class Migration {
    private static final Logger log = LoggerFactory.getLogger(Migration.class);

    /** What the migration tells as it goes; the test hook can interrupt it. */
    interface Listener {
        /**
         * @param totalRows rows of every selected queue on the source
         */
        default void started(long totalRows) {
        }

        /**
         * After each committed batch.
         *
         * @param queue the queue
         * @param part  the part
         * @param done  rows copied or found copied so far, over all queues
         */
        default void progress(String queue, String part, long done) {
        }

        /**
         * Inside each batch's transaction on the target, just before its commit.
         *
         * @param queue the queue
         * @param part  the part
         * @param batch the batch number within this run of the part, from 1
         * @throws SQLException to interrupt the migration (tests)
         */
        default void beforeCommit(String queue, String part, int batch) throws SQLException {
        }

        /**
         * @param line a line worth telling the user
         */
        default void note(String line) {
        }
    }

    /**
     * @param batchSize rows per batch and transaction
     * @param fresh     drop the selected queues on the target and forget their checkpoints first
     */
    record Options(int batchSize, boolean fresh) {
        Options {
            if (batchSize < 1) {
                throw new IllegalArgumentException("--batch-size must be at least 1, got " + batchSize);
            }
        }
    }

    private final Endpoint.Opened from;
    private final Endpoint.Opened to;
    private final Options options;
    private final Listener listener;
    private final Checkpoints checkpoints;
    private final String sourceDb;
    private Boolean sourceHasSchedules;
    private long done;

    Migration(Endpoint.Opened from, Endpoint.Opened to, Options options, Listener listener) {
        this.from = from;
        this.to = to;
        this.options = options;
        this.listener = listener;
        this.checkpoints = new Checkpoints(to.dataSource());
        this.sourceDb = from.rq().database().productName() + " " + from.endpoint().displayUrl();
    }

    /**
     * The source queues to move.
     *
     * @param names queue names, or empty for every queue of the source's catalog
     * @return their catalog entries
     * @throws CliException with {@link ExitCode#NOT_FOUND} for a name the source does not have
     */
    List<QueueInfo> select(List<String> names) {
        List<QueueInfo> all;
        try {
            all = from.rq().queues();
        } catch (SchemaException e) {
            all = List.of();
        }
        if (all.isEmpty()) {
            throw new CliException(ExitCode.NOT_FOUND, "the source " + from.endpoint().displayUrl()
                    + " has no rowqueue queues (no entries in rowqueue_catalog)");
        }
        if (names.isEmpty()) {
            return all;
        }
        Map<String, QueueInfo> byName = new LinkedHashMap<>();
        all.forEach(q -> byName.put(q.name(), q));
        List<QueueInfo> chosen = new ArrayList<>();
        for (String n : names) {
            QueueInfo q = byName.get(n.toLowerCase(Locale.ROOT));
            if (q == null) {
                throw new CliException(ExitCode.NOT_FOUND, "the source has no queue named '" + n + "'; it has "
                        + String.join(", ", byName.keySet()));
            }
            if (!chosen.contains(q)) {
                chosen.add(q);
            }
        }
        return chosen;
    }

    /**
     * Copies and verifies the queues.
     *
     * @param queues catalog entries from {@link #select}
     * @return what was copied and whether each table verified
     * @throws SQLException when a database fails mid-way; rerunning continues after the last committed batch
     */
    MigrationReport run(List<QueueInfo> queues) throws SQLException {
        checkpoints.ensureTable();
        if (checkpoints.sharedWith(from.dataSource())) {
            throw new CliException(ExitCode.USAGE, "--from and --to reach the same database and schema ("
                    + from.endpoint().displayUrl() + ", " + to.endpoint().displayUrl() + "); nothing was copied");
        }
        long total = 0;
        for (QueueInfo q : queues) {
            for (MigrationPart p : sourceParts(q, false)) {
                total += count(from, p);
            }
        }
        listener.started(total);
        MigrationReport report = new MigrationReport(from.describe() + " " + from.endpoint().displayUrl(),
                to.describe() + " " + to.endpoint().displayUrl());
        for (QueueInfo q : queues) {
            report.add(migrate(q));
        }
        return report;
    }

    private MigrationReport.QueueResult migrate(QueueInfo q) throws SQLException {
        MigrationReport.QueueResult result = new MigrationReport.QueueResult(q.name(), q.kind());
        if (options.fresh()) {
            if (to.rq().dropQueue(q.name())) {
                listener.note(q.name() + ": dropped on the target (--fresh)");
            }
            to.rq().existingSchedules().ifPresent(s -> s.list().stream()
                    .filter(i -> i.options().queue().equals(q.name())).forEach(i -> s.delete(i.name())));
            checkpoints.forget(q.name());
        }
        try {
            openOnTarget(q);
        } catch (QueueConflictException | IllegalArgumentException e) {
            return result.failed("cannot create it on the target: " + e.getMessage());
        }
        List<MigrationPart> parts = sourceParts(q, true);
        Map<MigrationPart, Long> copied = new LinkedHashMap<>();
        for (MigrationPart p : parts) {
            Optional<String> refused = prepare(p);
            if (refused.isPresent()) {
                return result.failed(refused.get());
            }
        }
        for (MigrationPart p : parts) {
            copied.put(p, copy(p));
        }
        if (q.kind() == dev.rowqueue.QueueKind.WORK) {
            restartJobIds(q.name());
        }
        List<MigrationPart> targetParts = parts(q);
        for (int i = 0; i < parts.size(); i++) {
            MigrationPart p = parts.get(i);
            MigrationPart.Checksum source = checksum(from, p);
            MigrationPart.Checksum target = checksum(to, targetParts.get(i));
            result.part(p.label(), p.table(), copied.get(p), source.rows(), target.rows(), source.hex(), target.hex(),
                    source.dead());
        }
        return result;
    }

    /**
     * The parts as the source is read: a work queue whose jobs table has schema version 1 (no key columns: the
     * source was written by an older rowqueue, and the migration does not change it) is read with the values of a job
     * without a key in their place.
     */
    private List<MigrationPart> sourceParts(QueueInfo q, boolean tell) {
        List<MigrationPart> parts = parts(q);
        if (q.kind() != dev.rowqueue.QueueKind.WORK || hasKeyColumns(q.name())) {
            return parts;
        }
        if (tell) {
            listener.note(q.name() + ": the source has schema version 1 (no job keys); its jobs arrive without keys");
        }
        List<MigrationPart> legacy = new ArrayList<>();
        for (MigrationPart p : parts) {
            legacy.add(p.label().equals("jobs") ? p.fromVersion1(from.dialect()) : p);
        }
        return legacy;
    }

    /** The queue's tables, and for a work queue the schedules that enqueue into it if the source has schedules. */
    private List<MigrationPart> parts(QueueInfo q) {
        List<MigrationPart> parts = new ArrayList<>(MigrationPart.of(q));
        if (q.kind() == dev.rowqueue.QueueKind.WORK && sourceHasSchedules()) {
            parts.addAll(MigrationPart.schedules(q.name()));
        }
        return parts;
    }

    private boolean sourceHasSchedules() {
        if (sourceHasSchedules == null) {
            sourceHasSchedules = from.rq().existingSchedules().isPresent();
        }
        return sourceHasSchedules;
    }

    private boolean hasKeyColumns(String queue) {
        String probe = from.dialect().probe(WorkTables.of(queue).jobs(), String.join(", ", MigrationPart.KEY_COLUMNS));
        try (Connection c = from.dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.executeQuery(probe).close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private void openOnTarget(QueueInfo q) {
        RowQueues rq = to.rq();
        switch (q.kind()) {
            case RING -> rq.ring(q.name(), new RingOptions(q.capacity(), q.strategy()));
            case WORK -> {
                rq.workQueue(q.name()).create();
                if (sourceHasSchedules()) {
                    rq.schedules(); // creates the schedule tables; the command line's handle fires nothing
                }
            }
            case COUNTERS -> rq.counters(q.name());
        }
    }

    /**
     * Starts a part's checkpoint, refusing to merge into a target table that holds rows this migration did not
     * write, or to continue a migration from another source.
     */
    private Optional<String> prepare(MigrationPart p) throws SQLException {
        Optional<Checkpoints.Checkpoint> cp = checkpoints.load(p.queue(), p.label());
        if (cp.isPresent()) {
            if (!cp.get().sourceDb().equals(sourceDb)) {
                return Optional.of("the target's checkpoints for it come from another source (" + cp.get().sourceDb()
                        + "); rerun with --fresh to copy it again from this one");
            }
            return Optional.empty();
        }
        long rows = count(to, p);
        if (rows > 0) {
            return Optional.of("the target table " + p.table() + " already holds " + rows + " rows that no migration"
                    + " wrote; rerun with --fresh to drop the target queue and copy it again");
        }
        checkpoints.start(p.queue(), p.label(), sourceDb);
        return Optional.empty();
    }

    /** Copies a part from its checkpoint on; returns the rows copied by this run. */
    private long copy(MigrationPart p) throws SQLException {
        Checkpoints.Checkpoint cp = checkpoints.load(p.queue(), p.label()).orElseThrow();
        done += cp.rows();
        if (cp.done()) {
            listener.progress(p.queue(), p.label(), done);
            return 0;
        }
        if (cp.rows() > 0) {
            listener.note(p.queue() + ": " + p.label() + " resumed after " + cp.rows() + " rows copied by an"
                    + " earlier run");
        }
        boolean resume = cp.rows() > 0;
        Sql select = p.select(resume);
        Sql insert = p.insert();
        long rows = cp.rows();
        long copiedNow = 0;
        int batchNo = 0;
        try (Connection src = from.dataSource().getConnection(); Connection dst = to.dataSource().getConnection()) {
            src.setAutoCommit(false); // lets PostgreSQL stream the result with a cursor
            dst.setAutoCommit(false);
            try (PreparedStatement query = select.prepare(src); PreparedStatement ps = insert.prepare(dst)) {
                query.setFetchSize(options.batchSize());
                if (resume) {
                    Object key0 = cp.lastKey() != null ? cp.lastKey() : (Object) cp.lastNum();
                    Long key1 = p.keyLength() == 2 ? cp.lastNum() : null;
                    p.bindAfter(from.dialect(), select, query, key0, key1).done();
                } else {
                    p.bindFilter(from.dialect().bind(select, query)).done();
                }
                try (ResultSet rs = query.executeQuery()) {
                    List<Object[]> batch = new ArrayList<>(options.batchSize());
                    boolean more = true;
                    while (more) {
                        more = rs.next();
                        if (more) {
                            batch.add(p.read(from.dialect(), rs));
                        }
                        if (batch.size() == options.batchSize() || (!more && !batch.isEmpty())) {
                            batchNo++;
                            writeBatch(dst, ps, insert, p, batch, rows + batch.size(), batchNo);
                            rows += batch.size();
                            copiedNow += batch.size();
                            done += batch.size();
                            listener.progress(p.queue(), p.label(), done);
                            batch.clear();
                        }
                    }
                }
            } finally {
                rollbackQuietly(src);
                rollbackQuietly(dst);
            }
        }
        checkpoints.finish(p.queue(), p.label());
        log.debug("{}/{}: {} rows copied", p.queue(), p.label(), copiedNow);
        return copiedNow;
    }

    private void writeBatch(Connection dst, PreparedStatement ps, Sql insert, MigrationPart p, List<Object[]> batch,
                            long rowsAfter, int batchNo) throws SQLException {
        try {
            for (Object[] row : batch) {
                p.bind(to.dialect(), insert, ps, p.transform().apply(row)).addBatch();
            }
            ps.executeBatch();
            Object[] last = batch.get(batch.size() - 1);
            List<Object> key = p.key(last);
            String lastKey = key.get(0) instanceof String s ? s : null;
            long lastNum = p.keyLength() == 2 ? ((Number) key.get(1)).longValue()
                    : key.get(0) instanceof Number n ? n.longValue() : 0;
            checkpoints.advance(dst, p.queue(), p.label(), lastKey, lastNum, rowsAfter);
            listener.beforeCommit(p.queue(), p.label(), batchNo);
            dst.commit();
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(dst);
            throw e;
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the connection is being given up anyway
        }
    }

    /** New jobs on the target get ids above every copied job and every rotation cursor's position. */
    private void restartJobIds(String queue) throws SQLException {
        WorkTables t = WorkTables.of(queue);
        long max = Math.max(max(from.dataSource(), "SELECT MAX(id) FROM " + t.jobs()),
                max(from.dataSource(), "SELECT MAX(last_id) FROM " + t.cursors()));
        try (Connection c = to.dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (String sql : to.rq().schema().restartJobIds(queue, max + 1)) {
                s.execute(sql);
            }
        }
    }

    private static long max(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = Sql.of(sql).prepare(c)) {
            return Jdbc.firstLong(ps).orElse(0);
        }
    }

    private static long count(Endpoint.Opened side, MigrationPart p) throws SQLException {
        try (Connection c = side.dataSource().getConnection();
             PreparedStatement ps = p.prepare(side.dialect(), p.count(), c)) {
            return Jdbc.firstLong(ps).orElse(0);
        }
    }

    private MigrationPart.Checksum checksum(Endpoint.Opened side, MigrationPart p) throws SQLException {
        MigrationPart.Checksum sum = new MigrationPart.Checksum(p.label().equals("jobs") ? 3 : -1);
        try (Connection c = side.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = p.prepare(side.dialect(), p.selectAll(), c)) {
                ps.setFetchSize(options.batchSize());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        sum.add(p.transform().apply(p.read(side.dialect(), rs)));
                    }
                }
            } finally {
                rollbackQuietly(c);
            }
        }
        return sum;
    }
}
