package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.ScheduleStore;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The portable schedules: standard SQL on the dialect's time ({@link Dialect#nowMillis()}) and error classification,
 * the store {@link Dialect#scheduleStore()} returns unless a dialect returns its own. Every statement is one the
 * schedules have always run; none needs more than {@code INSERT}, {@code UPDATE}, {@code DELETE} and a
 * {@code SELECT} with {@code GROUP BY}.
 */
public final class StandardScheduleStore implements ScheduleStore {

    private static final String T = Schema.SCHEDULES_TABLE;
    private static final String SLOTS = Schema.SCHEDULE_SLOTS_TABLE;
    /** The schedules table's columns, in the table's order. */
    private static final String COLUMNS = Schema.schedules().columns().stream().map(Schema.Column::name)
            .collect(Collectors.joining(", "));
    private static final String SET_DEFINITION = "UPDATE " + T + " SET spec = :spec, queue_name = :queue,"
            + " payload = :payload, job_key = :jkey, missed = :missed";
    private static final String BY_NAME_AND_REVISION = " WHERE schedule_name = :name AND revision = :rev";

    private final Dialect dialect;
    /** Whether the dialect's time is the parameter {@code :now}: then the poll compares with the JVM's clock. */
    private final boolean nowIsParameter;
    private final Sql due;
    private final Sql now;
    private final Sql insert;
    private final Sql update;
    private final Sql updateWithSlots;
    private final Sql setPaused;
    private final Sql deleteSlots;
    private final Sql deleteRow;
    private final Sql readAll;
    private final Sql readOne;
    private final Sql lastFires;
    private final Sql claimSlot;
    private final Sql advance;
    private final Sql advanceAwaiting;
    private final Sql prune;

    /**
     * @param dialect the dialect, for its time, binding and error classification
     */
    public StandardScheduleStore(Dialect dialect) {
        this.dialect = dialect;
        this.nowIsParameter = dialect.nowMillis().strip().equals(":now");
        String time = nowIsParameter ? ":now" : dialect.nowMillis();
        due = Sql.of("SELECT schedule_name, spec, queue_name, payload, job_key, missed, next_ms, last_job, revision"
                + (nowIsParameter ? "" : ", " + time + " AS db_now") + " FROM " + T + " WHERE paused = 0 AND next_ms <= "
                + time);
        now = Sql.of("SELECT COUNT(*), " + dialect.nowMillis() + " FROM " + T + " WHERE 1 = 0");
        insert = Sql.of("INSERT INTO " + T + " (" + COLUMNS + ") VALUES (:name, :spec, :queue, :payload, :jkey,"
                + " :missed, 0, :next, NULL, 1, :now2)");
        update = Sql.of(SET_DEFINITION + ", revision = revision + 1 WHERE schedule_name = :name");
        updateWithSlots = Sql.of(SET_DEFINITION + ", next_ms = :next, last_job = NULL, revision = revision + 1"
                + " WHERE schedule_name = :name");
        setPaused = Sql.of("UPDATE " + T + " SET paused = :paused, revision = revision + 1 WHERE schedule_name = :name");
        deleteSlots = Sql.of("DELETE FROM " + SLOTS + " WHERE schedule_name = :name");
        deleteRow = Sql.of("DELETE FROM " + T + " WHERE schedule_name = :name");
        readAll = Sql.of("SELECT " + COLUMNS + " FROM " + T);
        readOne = Sql.of("SELECT " + COLUMNS + " FROM " + T + " WHERE schedule_name = :name");
        lastFires = Sql.of("SELECT schedule_name, MAX(fired_ms) FROM " + SLOTS + " GROUP BY schedule_name");
        claimSlot = Sql.of("INSERT INTO " + SLOTS + " (schedule_name, slot_ms, fired_ms) VALUES (:name, :slot, :fired)");
        advance = Sql.of("UPDATE " + T + " SET next_ms = :next, last_job = NULL, revision = revision + 1"
                + BY_NAME_AND_REVISION);
        advanceAwaiting = Sql.of("UPDATE " + T + " SET next_ms = :next, last_job = :job, revision = revision + 1"
                + BY_NAME_AND_REVISION);
        prune = Sql.of("DELETE FROM " + SLOTS + " WHERE schedule_name = :name AND slot_ms < :before");
    }

    @Override
    public SqlOp<List<Due>> due() {
        long javaNow = dialect.clock().millis();
        return SqlOp.read(c -> rows(c, due, b -> {
            if (nowIsParameter) {
                b.set("now", javaNow);
            }
        }, rs -> new Due(rs.getString("schedule_name"), rs.getString("spec"), rs.getString("queue_name"),
                rs.getString("payload"), rs.getString("job_key"), rs.getString("missed"), rs.getLong("next_ms"),
                lastJob(rs), rs.getLong("revision"), nowIsParameter ? javaNow : rs.getLong("db_now"))));
    }

    /** Binds a statement's parameters. */
    private interface Parameters {
        void bind(Sql.Binder binder) throws SQLException;
    }

    /** Reads a result row. */
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** @return the rows of a query, in the order the database returned them */
    private <T> List<T> rows(java.sql.Connection c, Sql sql, Parameters parameters, RowReader<T> reader)
            throws SQLException {
        List<T> list = new ArrayList<>();
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps);
            parameters.bind(b);
            b.done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    list.add(reader.read(rs));
                }
            }
        }
        return list;
    }

    /** @return the row's {@code last_job}, or -1 if it is null */
    private static long lastJob(ResultSet rs) throws SQLException {
        long lastJob = rs.getLong("last_job");
        return rs.wasNull() ? -1 : lastJob;
    }

    @Override
    public SqlOp<Long> now() {
        return SqlOp.read(c -> {
            try (PreparedStatement ps = now.prepare(c)) {
                dialect.bind(now, ps).done();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(2);
                }
            }
        });
    }

    @Override
    public SqlOp<Boolean> insert(String name, Definition definition, long nextMs, long createdMs) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = insert.prepare(c)) {
                definition(dialect.bind(insert, ps).set("name", name), definition).set("next", nextMs)
                        .set("now2", createdMs).done();
                return Jdbc.inserted(ps, dialect);
            }
        });
    }

    private static Sql.Binder definition(Sql.Binder b, Definition d) throws SQLException {
        return b.set("spec", d.spec()).set("queue", d.queue()).set("payload", d.payload()).set("jkey", d.key())
                .set("missed", d.missed());
    }

    @Override
    public SqlOp<Boolean> update(String name, Definition definition) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = update.prepare(c)) {
                definition(dialect.bind(update, ps).set("name", name), definition).done();
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public SqlOp<Boolean> update(String name, Definition definition, long nextMs) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = updateWithSlots.prepare(c)) {
                definition(dialect.bind(updateWithSlots, ps).set("name", name), definition).set("next", nextMs).done();
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public SqlOp<Boolean> setPaused(String name, boolean paused) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = setPaused.prepare(c)) {
                dialect.bind(setPaused, ps).setInt("paused", paused ? 1 : 0).set("name", name).done();
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public SqlOp<Boolean> delete(String name) {
        return SqlOp.transaction(c -> {
            try (PreparedStatement ps = deleteSlots.prepare(c)) {
                dialect.bind(deleteSlots, ps).set("name", name).done();
                ps.executeUpdate();
            }
            try (PreparedStatement ps = deleteRow.prepare(c)) {
                dialect.bind(deleteRow, ps).set("name", name).done();
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public SqlOp<List<Row>> readAll() {
        return SqlOp.read(c -> rows(c, readAll, b -> { }, StandardScheduleStore::row));
    }

    @Override
    public SqlOp<List<Row>> read(String name) {
        return SqlOp.read(c -> rows(c, readOne, b -> b.set("name", name), StandardScheduleStore::row));
    }

    private static Row row(ResultSet rs) throws SQLException {
        return new Row(rs.getString("schedule_name"), rs.getString("spec"), rs.getString("queue_name"),
                rs.getString("payload"), rs.getString("job_key"), rs.getString("missed"), rs.getInt("paused") != 0,
                rs.getLong("next_ms"), lastJob(rs), rs.getLong("revision"), rs.getLong("created_ms"));
    }

    @Override
    public SqlOp<Map<String, Long>> lastFires() {
        return SqlOp.read(c -> {
            Map<String, Long> fires = new HashMap<>();
            try (PreparedStatement ps = lastFires.prepare(c)) {
                dialect.bind(lastFires, ps).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        fires.put(rs.getString(1), rs.getLong(2));
                    }
                }
            }
            return fires;
        });
    }

    @Override
    public SqlOp<Boolean> claimSlot(String name, long slotMs, long firedMs) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = claimSlot.prepare(c)) {
                dialect.bind(claimSlot, ps).set("name", name).set("slot", slotMs).set("fired", firedMs).done();
                return Jdbc.inserted(ps, dialect);
            }
        });
    }

    @Override
    public SqlOp<Boolean> advance(String name, long revision, long nextMs, long lastJob) {
        Sql sql = lastJob >= 0 ? advanceAwaiting : advance;
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).set("next", nextMs).set("name", name).set("rev", revision);
                if (lastJob >= 0) {
                    b.set("job", lastJob);
                }
                b.done();
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public SqlOp<Void> prune(String name, long beforeMs) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = prune.prepare(c)) {
                dialect.bind(prune, ps).set("name", name).set("before", beforeMs).done();
                ps.executeUpdate();
                return null;
            }
        });
    }

    @Override
    public SqlOp<Boolean> jobPending(WorkTables tables, long id) {
        Sql sql = Sql.of("SELECT state FROM " + tables.jobs() + " WHERE id = :id");
        return SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).set("id", id).done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getInt(1) != WorkTables.DEAD;
                }
            }
        });
    }
}
