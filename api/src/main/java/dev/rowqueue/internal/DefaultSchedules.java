package dev.rowqueue.internal;

import dev.rowqueue.Enqueue;
import dev.rowqueue.FixedDelaySchedule;
import dev.rowqueue.MissedSlots;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleConflictException;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.ScheduleListener;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedules;
import dev.rowqueue.CronSchedule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The {@link Schedules} implementation and this instance's scheduler thread.
 *
 * <p>A fire is one transaction: insert the slot row of the schedule's stored next slot (a duplicate key means another
 * scheduler fired it: give up), insert the rows of the other slots that get a job, enqueue their jobs, and advance
 * the next slot with a compare-and-set on the revision (no row: the schedule was changed, paused or fired meanwhile:
 * roll back). When idle, the scheduler runs one statement per poll: the select of every due schedule.
 */
final class DefaultSchedules implements Schedules {
    private static final Logger log = LoggerFactory.getLogger(DefaultSchedules.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1," + MAX_NAME_LENGTH + "}");
    private static final String T = Schema.SCHEDULES_TABLE;
    private static final String SLOTS = Schema.SCHEDULE_SLOTS_TABLE;
    private static final String COLUMNS = SchemaManager.SCHEDULE_COLUMNS;
    /** Slot rows older than this are deleted now and then as schedules fire. */
    private static final long KEEP_SLOTS_MS = Duration.ofDays(1).toMillis();
    /** More due slots than this in one poll are counted as missed without each being computed. */
    private static final int MAX_WALK = 100_000;

    private final Dialect dialect;
    private final Executor executor;
    private final SchemaManager schema;
    private final int maxPayloadLength;
    private final Duration pollInterval;
    private final long lateAfterMs;
    private final List<ScheduleListener> listeners;
    private final Map<String, WorkStore> stores = new ConcurrentHashMap<>();
    private final Set<String> warnedUnreadable = ConcurrentHashMap.newKeySet();
    private final boolean nowIsParameter;
    private final boolean schedulerAllowed;
    private final Object sleeper = new Object();
    private volatile boolean closed;
    private Thread thread;

    DefaultSchedules(Dialect dialect, Executor executor, SchemaManager schema, int maxPayloadLength,
                     Duration pollInterval, List<ScheduleListener> listeners, boolean schedulerAllowed) {
        this.dialect = dialect;
        this.schedulerAllowed = schedulerAllowed;
        this.executor = executor;
        this.schema = schema;
        this.maxPayloadLength = maxPayloadLength;
        this.pollInterval = pollInterval;
        this.lateAfterMs = Math.max(1000, 2 * pollInterval.toMillis());
        this.listeners = List.copyOf(listeners);
        this.nowIsParameter = dialect.nowMillis().strip().equals(":now");
    }

    // ---------------------------------------------------------------- the scheduler thread

    @Override
    public Schedules startScheduler() {
        if (!schedulerAllowed) {
            throw new IllegalStateException("this RowQueues was built with scheduler(false): it defines and lists"
                    + " schedules but never fires them; build it with scheduler(true) (the default) to start one");
        }
        if (closed) {
            throw new IllegalStateException("this RowQueues is closed");
        }
        start();
        return this;
    }

    /** Starts this instance's scheduler thread (once). */
    private synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        thread = new Thread(this::loop, "rowqueue-scheduler");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the scheduler thread and waits for its current fire to end. */
    void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        String lastError = null;
        while (!closed) {
            try {
                pollOnce();
                lastError = null;
            } catch (RuntimeException e) {
                String message = String.valueOf(e.getMessage());
                if (!message.equals(lastError)) {
                    log.warn("rowqueue: the scheduler's poll failed (retried every {}): {}", pollInterval, message);
                    lastError = message;
                }
            }
            synchronized (sleeper) {
                if (!closed) {
                    try {
                        sleeper.wait(Math.max(1, pollInterval.toMillis()));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    /** A due schedule, as the poll read it. */
    record Due(String name, Schedule schedule, String queue, String payload, String key, MissedSlots missed,
               long next, long lastJob, long revision, long now) {
    }

    /**
     * One poll: the due schedules in one statement, then a fire for each.
     *
     * @return how many schedules were due
     */
    int pollOnce() {
        List<Due> due = new ArrayList<>(due());
        // in an order of this scheduler's own: schedulers polling at the same moment take different schedules first
        // instead of all racing for the same one
        java.util.Collections.shuffle(due, ThreadLocalRandom.current());
        for (Due d : due) {
            if (closed) {
                break;
            }
            try {
                fire(d);
            } catch (Lost e) {
                log.debug("rowqueue: schedule '{}' was fired or changed by another scheduler", d.name());
            } catch (dev.rowqueue.TransientRowQueueException e) {
                // a deadlock or certification failure among schedulers racing for the slot (Galera): the next poll
                // finds it fired, or fires it
                log.debug("rowqueue: schedule '{}' lost a race for its slot: {}", d.name(), e.getMessage());
            } catch (RuntimeException e) {
                log.warn("rowqueue: schedule '{}' could not fire its slot {}: {}", d.name(),
                        Instant.ofEpochMilli(d.next()), e.getMessage());
            }
        }
        return due.size();
    }

    private List<Due> due() {
        String now = nowIsParameter ? ":now" : dialect.nowMillis();
        Sql sql = Sql.of("SELECT schedule_name, spec, queue_name, payload, job_key, missed, next_ms, last_job, revision"
                + (nowIsParameter ? "" : ", " + now + " AS db_now") + " FROM " + T + " WHERE paused = 0 AND next_ms <= "
                + now);
        long javaNow = dialect.clock().millis();
        return executor.run("select the due schedules", SqlOp.read(c -> {
            List<Due> list = new ArrayList<>();
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps);
                if (nowIsParameter) {
                    b.set("now", javaNow);
                }
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long lastJob = rs.getLong("last_job");
                        if (rs.wasNull()) {
                            lastJob = -1;
                        }
                        Schedule schedule;
                        try {
                            schedule = Schedule.parse(rs.getString("spec"));
                        } catch (IllegalArgumentException e) {
                            log.warn("rowqueue: schedule '{}' has an unreadable definition: {}",
                                    rs.getString("schedule_name"), e.getMessage());
                            continue;
                        }
                        list.add(new Due(rs.getString("schedule_name"), schedule, rs.getString("queue_name"),
                                rs.getString("payload"), rs.getString("job_key"),
                                MissedSlots.parse(rs.getString("missed")), rs.getLong("next_ms"), lastJob,
                                rs.getLong("revision"), nowIsParameter ? javaNow : rs.getLong("db_now")));
                    }
                }
            }
            return list;
        }));
    }

    /** Thrown inside a fire's transaction to roll it back: another scheduler fired the slot or changed the row. */
    private static final class Lost extends RuntimeException {
        Lost() {
            super("lost", null, false, false);
        }
    }

    /** A slot to fire and whether it is late. */
    private record Fire(long slot, boolean late) {
    }

    private void fire(Due d) {
        if (d.schedule() instanceof FixedDelaySchedule delay) {
            fireFixedDelay(d, delay);
            return;
        }
        // the due slots, from the stored next slot to the last one not after now; only the latest few are kept
        int keep = Math.max(1, d.missed().cap()) + 1;
        Deque<Long> latest = new ArrayDeque<>();
        long count = 0;
        long first = d.next();
        Instant s = Instant.ofEpochMilli(d.next());
        while (s.toEpochMilli() <= d.now()) {
            count++;
            latest.addLast(s.toEpochMilli());
            if (latest.size() > keep) {
                latest.removeFirst();
            }
            if (count >= MAX_WALK) {
                s = d.schedule().next(Instant.ofEpochMilli(d.now()));
                break;
            }
            s = d.schedule().next(s);
        }
        long nextSlot = s.toEpochMilli();
        List<Long> due = new ArrayList<>(latest);
        long last = due.get(due.size() - 1);
        boolean onTime = d.now() - last <= ScheduleOptions.MISSED_AFTER.toMillis();
        List<Fire> fires = new ArrayList<>();
        long missed = onTime ? count - 1 : count;
        List<Long> missedKept = onTime ? due.subList(0, due.size() - 1) : due;
        int catchUp = missed == 0 ? 0 : d.missed().jobsFor(missed);
        for (long m : missedKept.subList(Math.max(0, missedKept.size() - catchUp), missedKept.size())) {
            fires.add(new Fire(m, true));
        }
        if (onTime) {
            fires.add(new Fire(last, d.now() - last > lateAfterMs));
        }
        long[] ids = executor.run("fire schedule " + d.name(), SqlOp.transaction(c -> {
            boolean claimFired = fires.stream().anyMatch(f -> f.slot() == d.next());
            if (!claimFired) {
                claim(c, d.name(), d.next(), d.now());
            }
            long[] out = new long[fires.size()];
            for (int i = 0; i < fires.size(); i++) {
                long slot = fires.get(i).slot();
                claim(c, d.name(), slot, d.now());
                out[i] = enqueue(c, d.name(), d.queue(), d.payload(), d.key(), slot);
            }
            advance(c, d, nextSlot, -1);
            if (ThreadLocalRandom.current().nextInt(32) == 0) {
                prune(c, d.name(), d.now() - KEEP_SLOTS_MS);
            }
            return out;
        }));
        for (int i = 0; i < fires.size(); i++) {
            Fire f = fires.get(i);
            Duration lag = Duration.ofMillis(Math.max(0, d.now() - f.slot()));
            Instant slot = Instant.ofEpochMilli(f.slot());
            long id = ids[i];
            tell(l -> {
                if (f.late()) {
                    l.late(d.name(), slot, id, lag);
                } else {
                    l.fired(d.name(), slot, id, lag);
                }
            });
        }
        long unfired = missed - catchUp;
        if (unfired > 0) {
            Instant from = Instant.ofEpochMilli(first);
            long lastUnfired = catchUp > 0 && missedKept.size() > catchUp
                    ? missedKept.get(missedKept.size() - catchUp - 1)
                    : catchUp > 0 ? first : missedKept.get(missedKept.size() - 1);
            Instant to = Instant.ofEpochMilli(Math.max(first, lastUnfired));
            tell(l -> l.missed(d.name(), from, to, unfired));
        }
    }

    /**
     * A fixed delay: with no job awaited, fire the stored slot and await its job; with one, look whether it is
     * finished (gone, or dead) and make the next slot due a delay later, or look again after a poll interval.
     */
    private void fireFixedDelay(Due d, FixedDelaySchedule delay) {
        long poll = Math.max(1, pollInterval.toMillis());
        if (d.lastJob() >= 0) {
            boolean running = jobRunning(d.queue(), d.lastJob());
            executor.run("advance schedule " + d.name(), SqlOp.statement(c -> {
                advance(c, d, running ? d.now() + poll : d.now() + delay.delay().toMillis(), running ? d.lastJob() : -1);
                return null;
            }));
            return;
        }
        long id = executor.run("fire schedule " + d.name(), SqlOp.transaction(c -> {
            claim(c, d.name(), d.next(), d.now());
            long job = enqueue(c, d.name(), d.queue(), d.payload(), d.key(), d.next());
            advance(c, d, d.now() + poll, job);
            return job;
        }));
        Duration lag = Duration.ofMillis(Math.max(0, d.now() - d.next()));
        boolean late = lag.toMillis() > lateAfterMs;
        Instant slot = Instant.ofEpochMilli(d.next());
        tell(l -> {
            if (late) {
                l.late(d.name(), slot, id, lag);
            } else {
                l.fired(d.name(), slot, id, lag);
            }
        });
    }

    private boolean jobRunning(String queue, long id) {
        Sql sql = Sql.of("SELECT state FROM " + WorkTables.of(queue).jobs() + " WHERE id = :id");
        return executor.run("look up job " + id + " of " + queue, SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).set("id", id).done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getInt(1) != WorkTables.DEAD;
                }
            }
        }));
    }

    private void claim(java.sql.Connection c, String name, long slot, long now) throws SQLException {
        Sql sql = Sql.of("INSERT INTO " + SLOTS + " (schedule_name, slot_ms, fired_ms) VALUES (:name, :slot, :fired)");
        try (PreparedStatement ps = sql.prepare(c)) {
            dialect.bind(sql, ps).set("name", name).set("slot", slot).set("fired", now).done();
            ps.executeUpdate();
        } catch (SQLException e) {
            if (dialect.classify(e) == SqlErrorKind.DUPLICATE_KEY) {
                throw new Lost();
            }
            throw e;
        }
    }

    private void advance(java.sql.Connection c, Due d, long next, long lastJob) throws SQLException {
        Sql sql = Sql.of("UPDATE " + T + " SET next_ms = :next, last_job = " + (lastJob >= 0 ? ":job" : "NULL")
                + ", revision = revision + 1 WHERE schedule_name = :name AND revision = :rev");
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).set("next", next).set("name", d.name()).set("rev", d.revision());
            if (lastJob >= 0) {
                b.set("job", lastJob);
            }
            b.done();
            if (ps.executeUpdate() != 1) {
                throw new Lost();
            }
        }
    }

    private void prune(java.sql.Connection c, String name, long before) throws SQLException {
        Sql sql = Sql.of("DELETE FROM " + SLOTS + " WHERE schedule_name = :name AND slot_ms < :before");
        try (PreparedStatement ps = sql.prepare(c)) {
            dialect.bind(sql, ps).set("name", name).set("before", before).done();
            ps.executeUpdate();
        }
    }

    private long enqueue(java.sql.Connection c, String name, String queue, String payload, String key, long slot)
            throws SQLException {
        Instant at = Instant.ofEpochMilli(slot);
        String body = Validation.payload(ScheduleOptions.render(payload, name, at), maxPayloadLength);
        WorkStore store = stores.computeIfAbsent(queue, q -> dialect.workStore(WorkTables.of(q)));
        SqlOp<long[]> op = key == null ? store.enqueue(List.of(body), 0, 0)
                : store.enqueue(List.of(body), 0, 0, Enqueue.defaults().withKey(ScheduleOptions.render(key, name, at)).key(), null);
        return op.run(c)[0];
    }

    private void tell(java.util.function.Consumer<ScheduleListener> event) {
        for (ScheduleListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                log.warn("rowqueue: a schedule listener failed: {}", e.toString());
            }
        }
    }

    // ---------------------------------------------------------------- definitions

    private static String name(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("schedule name '" + (name == null ? "null" : Validation.printable(name))
                    + "' must be 1 to " + MAX_NAME_LENGTH + " letters, digits, '_', '.' or '-' (its case is kept:"
                    + " 'Daily' and 'daily' are two schedules; queue names follow a stricter rule, as they become"
                    + " table names: a letter, then letters, digits and '_', at most " + RowQueues.MAX_NAME_LENGTH
                    + ", folded to lower case)");
        }
        return name;
    }

    /** Checks a definition without SQL. */
    private ScheduleOptions check(Schedule schedule, ScheduleOptions options) {
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(options, "options");
        Instant sample = Instant.parse("2026-01-01T00:00:00Z");
        Validation.payload(ScheduleOptions.render(options.payload(), "x".repeat(MAX_NAME_LENGTH), sample),
                maxPayloadLength);
        if (options.key() != null) {
            Enqueue.defaults().withKey(ScheduleOptions.render(options.key(), "x".repeat(MAX_NAME_LENGTH), sample));
        }
        if (schedule.toString().length() > 400) {
            throw new IllegalArgumentException("schedule text longer than 400 characters: " + schedule);
        }
        return options;
    }

    /** Reads the catalog once and refuses a queue that is not a work queue in it. */
    private void checkQueue(String queue) {
        List<QueueInfo> catalog = schema.readCatalog();
        QueueInfo q = catalog.stream().filter(i -> i.name().equals(queue)).findFirst().orElse(null);
        if (q == null) {
            throw new IllegalArgumentException("work queue '" + queue + "' does not exist; create it first"
                    + " (RowQueues.workQueue(\"" + queue + "\").create()); no schedule was written");
        }
        if (q.kind() != QueueKind.WORK) {
            throw new IllegalArgumentException("queue '" + queue + "' is a " + q.kind() + ", not a work queue; no"
                    + " schedule was written");
        }
    }

    @Override
    public ScheduleInfo define(String name, String spec, ScheduleOptions options) {
        return define(name, parse(spec, options), options);
    }

    static Schedule parse(String spec, ScheduleOptions options) {
        Objects.requireNonNull(options, "options");
        if (spec == null) {
            throw new IllegalArgumentException("schedule must not be null");
        }
        String s = spec.strip();
        if (s.startsWith("cron:") || s.startsWith("rate:") || s.startsWith("delay:")) {
            return Schedule.parse(s);
        }
        return Schedule.cron(s, options.zone());
    }

    /** Checks a definition (before any SQL but its queue's catalog read), then ensures the tables; @return the name. */
    private String checked(String name, Schedule schedule, ScheduleOptions options) {
        String n = name(name);
        check(schedule, options);
        checkQueue(options.queue());
        schema.ensureSchedules();
        return n;
    }

    @Override
    public ScheduleInfo define(String name, Schedule schedule, ScheduleOptions options) {
        String n = checked(name, schedule, options);
        Optional<ScheduleInfo> existing = get(n);
        if (existing.isPresent()) {
            return same(existing.get(), schedule, options);
        }
        long now = dbNow();
        Sql insert = Sql.of("INSERT INTO " + T + " (" + COLUMNS + ") VALUES (:name, :spec, :queue, :payload, :jkey,"
                + " :missed, 0, :next, NULL, 1, :now2)");
        boolean inserted = executor.run("define schedule " + n, SqlOp.statement(c -> {
            try (PreparedStatement ps = insert.prepare(c)) {
                dialect.bind(insert, ps).set("name", n).set("spec", schedule.toString()).set("queue", options.queue())
                        .set("payload", options.payload()).set("jkey", options.key())
                        .set("missed", options.missed().toString()).set("next", firstSlot(schedule, now))
                        .set("now2", now).done();
                ps.executeUpdate();
                return true;
            } catch (SQLException e) {
                if (dialect.classify(e) == SqlErrorKind.DUPLICATE_KEY) {
                    return false;
                }
                throw e;
            }
        }));
        ScheduleInfo info = get(n).orElseThrow(() -> new NoSuchElementException("schedule '" + n
                + "' was deleted as it was defined"));
        if (!inserted) {
            return same(info, schedule, options);
        }
        log.info("rowqueue: defined schedule '{}': {} into {}", n, schedule, options.queue());
        return info;
    }

    private static ScheduleInfo same(ScheduleInfo existing, Schedule schedule, ScheduleOptions options) {
        List<String> diff = differences(existing, schedule, options);
        if (!diff.isEmpty()) {
            throw new ScheduleConflictException("schedule '" + existing.name() + "' exists with another definition ("
                    + String.join("; ", diff) + "); use replace to change it");
        }
        return existing;
    }

    private static List<String> differences(ScheduleInfo e, Schedule schedule, ScheduleOptions o) {
        List<String> diff = new ArrayList<>();
        if (!e.schedule().equals(schedule)) {
            diff.add("schedule " + e.schedule() + ", not " + schedule);
        }
        ScheduleOptions x = e.options();
        if (!x.queue().equals(o.queue())) {
            diff.add("queue " + x.queue() + ", not " + o.queue());
        }
        if (!x.payload().equals(o.payload())) {
            diff.add("payload '" + x.payload() + "', not '" + o.payload() + "'");
        }
        if (!Objects.equals(x.key(), o.key())) {
            diff.add("key " + x.key() + ", not " + o.key());
        }
        if (!x.missed().equals(o.missed())) {
            diff.add("missed slots " + x.missed() + ", not " + o.missed());
        }
        return diff;
    }

    private static long firstSlot(Schedule schedule, long now) {
        return schedule.next(Instant.ofEpochMilli(now)).toEpochMilli();
    }

    @Override
    public ScheduleInfo replace(String name, String spec, ScheduleOptions options) {
        return replace(name, parse(spec, options), options);
    }

    @Override
    public ScheduleInfo replace(String name, Schedule schedule, ScheduleOptions options) {
        String n = checked(name, schedule, options);
        Optional<Stored> existing = stored(n);
        if (existing.isEmpty()) {
            return define(n, schedule, options);
        }
        ScheduleInfo current = existing.get().info();
        if (current != null && differences(current, schedule, options).isEmpty()) {
            return current;
        }
        boolean newSlots = current == null || !current.schedule().equals(schedule);
        long now = newSlots ? dbNow() : 0;
        Sql update = Sql.of("UPDATE " + T + " SET spec = :spec, queue_name = :queue, payload = :payload,"
                + " job_key = :jkey, missed = :missed" + (newSlots ? ", next_ms = :next, last_job = NULL" : "")
                + ", revision = revision + 1 WHERE schedule_name = :name");
        executor.run("replace schedule " + n, SqlOp.statement(c -> {
            try (PreparedStatement ps = update.prepare(c)) {
                Sql.Binder b = dialect.bind(update, ps).set("name", n).set("spec", schedule.toString())
                        .set("queue", options.queue()).set("payload", options.payload()).set("jkey", options.key())
                        .set("missed", options.missed().toString());
                if (newSlots) {
                    b.set("next", firstSlot(schedule, now));
                }
                b.done();
                return ps.executeUpdate();
            }
        }));
        log.info("rowqueue: replaced schedule '{}': {} into {}", n, schedule, options.queue());
        return get(n).orElseThrow(() -> new NoSuchElementException("schedule '" + n + "' was deleted meanwhile"));
    }

    @Override
    public boolean pause(String name) {
        return setPaused(name(name), 1);
    }

    @Override
    public boolean resume(String name) {
        return setPaused(name(name), 0);
    }

    private boolean setPaused(String n, int paused) {
        schema.ensureSchedules();
        Sql sql = Sql.of("UPDATE " + T + " SET paused = :paused, revision = revision + 1 WHERE schedule_name = :name");
        return executor.run((paused == 1 ? "pause" : "resume") + " schedule " + n, SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).setInt("paused", paused).set("name", n).done();
                return ps.executeUpdate() > 0;
            }
        }));
    }

    @Override
    public long triggerNow(String name) {
        String n = name(name);
        ScheduleInfo info = get(n).orElseThrow(() -> new NoSuchElementException("no schedule named '" + n + "'"));
        long now = dbNow();
        ScheduleOptions o = info.options();
        return executor.run("trigger schedule " + n, SqlOp.transaction(
                c -> enqueue(c, n, o.queue(), o.payload(), o.key(), now)));
    }

    @Override
    public boolean delete(String name) {
        String n = name(name);
        schema.ensureSchedules();
        Sql slots = Sql.of("DELETE FROM " + SLOTS + " WHERE schedule_name = :name");
        Sql row = Sql.of("DELETE FROM " + T + " WHERE schedule_name = :name");
        boolean deleted = executor.run("delete schedule " + n, SqlOp.transaction(c -> {
            try (PreparedStatement ps = slots.prepare(c)) {
                dialect.bind(slots, ps).set("name", n).done();
                ps.executeUpdate();
            }
            try (PreparedStatement ps = row.prepare(c)) {
                dialect.bind(row, ps).set("name", n).done();
                return ps.executeUpdate() > 0;
            }
        }));
        if (deleted) {
            log.info("rowqueue: deleted schedule '{}'", n);
        }
        return deleted;
    }

    /**
     * Every schedule this version can read. A stored definition it cannot read (written by a newer version, or edited
     * by hand) is left out with a warning, once per instance and definition, so that one bad row does not hide the
     * others; {@link #get} names it, and {@link #replace} or {@link #delete} repairs it.
     */
    @Override
    public List<ScheduleInfo> list() {
        List<ScheduleInfo> out = new ArrayList<>();
        for (Stored s : read(null)) {
            if (s.info() != null) {
                out.add(s.info());
            } else if (warnedUnreadable.add(s.name() + "\n" + s.spec())) {
                log.warn("rowqueue: schedule '{}' is left out of the list: {}", s.name(), s.problem());
            }
        }
        return out;
    }

    @Override
    public Optional<ScheduleInfo> get(String name) {
        return stored(name(name)).map(Stored::readable);
    }

    private Optional<Stored> stored(String n) {
        List<Stored> one = read(n);
        return one.isEmpty() ? Optional.empty() : Optional.of(one.get(0));
    }

    /** A stored row: its info, or (info null) why this version cannot read its definition. */
    private record Stored(String name, String spec, ScheduleInfo info, String problem) {
        ScheduleInfo readable() {
            if (info == null) {
                throw new IllegalStateException("schedule '" + name + "' " + problem
                        + "; replace it with a definition this version can read, or delete it");
            }
            return info;
        }
    }

    private List<Stored> read(String name) {
        schema.ensureSchedules();
        Sql sql = Sql.of("SELECT " + COLUMNS + " FROM " + T + (name == null ? "" : " WHERE schedule_name = :name"));
        List<Stored> out = executor.run(name == null ? "list schedules" : "read schedule " + name,
                SqlOp.read(c -> {
                    List<Stored> list = new ArrayList<>();
                    try (PreparedStatement ps = sql.prepare(c)) {
                        Sql.Binder b = dialect.bind(sql, ps);
                        if (name != null) {
                            b.set("name", name);
                        }
                        b.done();
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                list.add(stored(rs));
                            }
                        }
                    }
                    return list;
                }));
        out.sort(java.util.Comparator.comparing(Stored::name));
        return out;
    }

    private static Stored stored(ResultSet rs) throws SQLException {
        String name = rs.getString("schedule_name");
        String spec = rs.getString("spec");
        try {
            return new Stored(name, spec, info(rs), null);
        } catch (IllegalArgumentException e) {
            return new Stored(name, spec, null, "has a stored definition this version cannot read ('" + spec + "': "
                    + e.getMessage() + ")");
        }
    }

    private static ScheduleInfo info(ResultSet rs) throws SQLException {
        Schedule schedule = Schedule.parse(rs.getString("spec"));
        ZoneId zone = schedule instanceof CronSchedule cron ? cron.zone() : ZoneOffset.UTC;
        ScheduleOptions options = new ScheduleOptions(rs.getString("queue_name"), rs.getString("payload"),
                rs.getString("job_key"), zone, MissedSlots.parse(rs.getString("missed")));
        long lastJob = rs.getLong("last_job");
        if (rs.wasNull()) {
            lastJob = -1;
        }
        return new ScheduleInfo(rs.getString("schedule_name"), schedule, options, rs.getInt("paused") != 0,
                Instant.ofEpochMilli(rs.getLong("next_ms")), lastJob, rs.getLong("revision"),
                Instant.ofEpochMilli(rs.getLong("created_ms")));
    }

    @Override
    public List<Instant> next(String name, int n) {
        if (n < 1 || n > Schedule.MAX_NEXT) {
            throw new IllegalArgumentException("n must be 1 to " + Schedule.MAX_NEXT + ", got " + n);
        }
        String s = name(name);
        ScheduleInfo info = get(s).orElseThrow(() -> new NoSuchElementException("no schedule named '" + s + "'"));
        List<Instant> out = new ArrayList<>(n);
        out.add(info.nextFire());
        if (n > 1) {
            out.addAll(info.schedule().next(info.nextFire(), n - 1));
        }
        return List.copyOf(out);
    }

    /** @return the database's current time in epoch milliseconds (the JVM's where the dialect binds it) */
    long dbNow() {
        if (nowIsParameter) {
            return dialect.clock().millis();
        }
        Sql sql = Sql.of("SELECT COUNT(*), " + dialect.nowMillis() + " FROM " + T + " WHERE 1 = 0");
        return executor.run("read the database's clock", SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).done();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(2);
                }
            }
        }));
    }
}
