package dev.rowqueue.internal;

import dev.rowqueue.CronSchedule;
import dev.rowqueue.Enqueue;
import dev.rowqueue.MissedSlots;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleConflictException;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.ScheduleListener;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.ScheduleStore;
import dev.rowqueue.spi.SqlOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The {@link Schedules} implementation: definitions checked here, stored by the dialect's {@link ScheduleStore}, and
 * fired by this instance's {@link Scheduler} once {@link #startScheduler()} starts it.
 */
final class DefaultSchedules implements Schedules {
    private static final Logger log = LoggerFactory.getLogger(DefaultSchedules.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1," + MAX_NAME_LENGTH + "}");

    private final Dialect dialect;
    private final ScheduleStore store;
    private final Executor executor;
    private final SchemaManager schema;
    private final int maxPayloadLength;
    private final SlotJobs jobs;
    private final Scheduler scheduler;
    private final Set<String> warnedUnreadable = ConcurrentHashMap.newKeySet();
    private final boolean nowIsParameter;
    private final boolean schedulerAllowed;

    DefaultSchedules(Dialect dialect, Executor executor, SchemaManager schema, int maxPayloadLength,
                     Duration pollInterval, List<ScheduleListener> listeners, boolean schedulerAllowed,
                     Runnable schedulerStarted) {
        this.dialect = dialect;
        this.store = dialect.scheduleStore();
        this.schedulerAllowed = schedulerAllowed;
        this.executor = executor;
        this.schema = schema;
        this.maxPayloadLength = maxPayloadLength;
        this.nowIsParameter = dialect.nowMillis().strip().equals(":now");
        this.jobs = new SlotJobs(dialect, maxPayloadLength);
        this.scheduler = new Scheduler(store, executor, jobs, pollInterval, listeners, schedulerStarted);
    }

    @Override
    public Schedules startScheduler() {
        if (!schedulerAllowed) {
            throw new IllegalStateException("this RowQueues was built with scheduler(false): it defines and lists"
                    + " schedules but never fires them; build it with scheduler(true) (the default) to start one");
        }
        if (scheduler.closed()) {
            throw new IllegalStateException("this RowQueues is closed");
        }
        scheduler.start();
        return this;
    }

    /** Stops the scheduler thread and waits for its current fire to end. */
    void close() {
        scheduler.close();
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
        boolean inserted = executor.run("define schedule " + n,
                store.insert(n, definition(schedule, options), firstSlot(schedule, now), now));
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

    private static ScheduleStore.Definition definition(Schedule schedule, ScheduleOptions options) {
        return new ScheduleStore.Definition(schedule.toString(), options.queue(), options.payload(), options.key(),
                options.missed().toString());
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
        ScheduleStore.Definition definition = definition(schedule, options);
        executor.run("replace schedule " + n, newSlots ? store.update(n, definition, firstSlot(schedule, now))
                : store.update(n, definition));
        log.info("rowqueue: replaced schedule '{}': {} into {}", n, schedule, options.queue());
        return get(n).orElseThrow(() -> new NoSuchElementException("schedule '" + n + "' was deleted meanwhile"));
    }

    @Override
    public boolean pause(String name) {
        return setPaused(name(name), true);
    }

    @Override
    public boolean resume(String name) {
        return setPaused(name(name), false);
    }

    private boolean setPaused(String n, boolean paused) {
        schema.ensureSchedules();
        return executor.run((paused ? "pause" : "resume") + " schedule " + n, store.setPaused(n, paused));
    }

    @Override
    public long triggerNow(String name) {
        String n = name(name);
        ScheduleInfo info = get(n).orElseThrow(() -> new NoSuchElementException("no schedule named '" + n + "'"));
        long now = dbNow();
        ScheduleOptions o = info.options();
        return executor.run("trigger schedule " + n, SqlOp.transaction(
                c -> jobs.enqueue(c, n, o.queue(), o.payload(), o.key(), now)));
    }

    @Override
    public boolean delete(String name) {
        String n = name(name);
        schema.ensureSchedules();
        boolean deleted = executor.run("delete schedule " + n, store.delete(n));
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
        List<Stored> out = new ArrayList<>();
        for (ScheduleStore.Row row : executor.run(name == null ? "list schedules" : "read schedule " + name,
                name == null ? store.readAll() : store.read(name))) {
            out.add(stored(row));
        }
        out.sort(java.util.Comparator.comparing(Stored::name));
        return out;
    }

    private static Stored stored(ScheduleStore.Row row) {
        String name = row.name();
        String spec = row.spec();
        try {
            return new Stored(name, spec, info(row), null);
        } catch (IllegalArgumentException e) {
            return new Stored(name, spec, null, "has a stored definition this version cannot read ('" + spec + "': "
                    + e.getMessage() + ")");
        }
    }

    private static ScheduleInfo info(ScheduleStore.Row row) {
        Schedule schedule = Schedule.parse(row.spec());
        ZoneId zone = schedule instanceof CronSchedule cron ? cron.zone() : ZoneOffset.UTC;
        ScheduleOptions options = new ScheduleOptions(row.queue(), row.payload(), row.key(), zone,
                MissedSlots.parse(row.missed()));
        return new ScheduleInfo(row.name(), schedule, options, row.paused(), Instant.ofEpochMilli(row.nextMs()),
                row.lastJob(), row.revision(), Instant.ofEpochMilli(row.createdMs()));
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

    @Override
    public Map<String, Instant> lastFires() {
        Map<String, Instant> fires = new TreeMap<>();
        executor.run("read the schedules' last fires", store.lastFires())
                .forEach((name, ms) -> fires.put(name, Instant.ofEpochMilli(ms)));
        return java.util.Collections.unmodifiableMap(fires);
    }

    /** @return the database's current time in epoch milliseconds (the JVM's where the dialect binds it) */
    long dbNow() {
        if (nowIsParameter) {
            return dialect.clock().millis();
        }
        return executor.run("read the database's clock", store.now());
    }
}
