package dev.rowqueue.tck;

import dev.rowqueue.Job;
import dev.rowqueue.MissedSlots;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleConflictException;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.FaultyDataSource;
import dev.rowqueue.testkit.InterceptingDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.sql.SQLException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Recurring jobs: several schedulers fire exactly one job per (schedule, slot), a scheduler killed in the middle of a
 * slot leaves it to another, the missed-slot policies, pause and resume, fixed delays, definition conflicts,
 * daylight-saving transitions, idle cost and bad input. Sub-second slots, never minutes of sleep. Tagged
 * {@code schedules}, so that {@code -Dgroups=schedules} runs these alone on a target.
 *
 * <p>The shared instance of {@link TckEnv} runs no scheduler; each test starts its own schedulers.
 */
@Tag("schedules")
public abstract class ScheduleContract extends Contract {

    /** A bound on waits, so a hang fails instead of stalling the build; not a performance limit. */
    private static final Duration LIVENESS = Duration.ofSeconds(60);
    private static final Duration LONG = Duration.ofHours(1);

    private final Set<String> schedules = ConcurrentHashMap.newKeySet();
    private final List<RowQueues> started = new ArrayList<>();

    @AfterEach
    void stopSchedulersAndDeleteSchedules() {
        started.forEach(RowQueues::close);
        started.clear();
        for (String s : schedules) {
            try {
                rq().schedules().delete(s);
            } catch (RuntimeException e) {
                // nothing to clean
            }
        }
        schedules.clear();
    }

    private String scheduleName() {
        String n = TckEnv.randomName();
        schedules.add(n);
        return n;
    }

    private Schedules defs() {
        return rq().schedules();
    }

    private WorkQueue newQueue() {
        return rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(LONG)).create();
    }

    /** A scheduler node: its own instance with the scheduler on, started. */
    private RowQueues scheduler(RowQueues.Builder builder, Duration poll) {
        RowQueues node = builder.scheduler(true).schedulerPollInterval(poll).build();
        started.add(node);
        node.schedules().startScheduler();
        return node;
    }

    private static void await(String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + LIVENESS.toNanos();
        long mark = Refusals.mark();
        while (!done.getAsBoolean()) {
            Refusals.failIfRefusedSince(mark, what);
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            sleep(10);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the slots of the queue's jobs (payload {slot_ms}), slot to number of jobs */
    private static TreeMap<Long, Integer> slots(WorkQueue q) {
        TreeMap<Long, Integer> slots = new TreeMap<>();
        List<Job> jobs;
        while (!(jobs = q.claim(500)).isEmpty()) {
            for (Job j : jobs) {
                slots.merge(Long.parseLong(j.payload()), 1, Integer::sum);
            }
        }
        return slots;
    }

    private long revision(String name) {
        return defs().get(name).orElseThrow().revision();
    }

    /** Defines a schedule every {@code periodMs} whose jobs carry their slot (payload {slot_ms}). */
    private ScheduleInfo slotsEvery(String name, WorkQueue q, long periodMs, MissedSlots missed) {
        return defs().define(name, Schedule.every(Duration.ofMillis(periodMs)),
                ScheduleOptions.forQueue(q.name()).withPayload("{slot_ms}").withMissed(missed));
    }

    /** Waits until the schedule's next slot is after {@code slotMs}, then stops every scheduler node. */
    private void awaitSlotFiredThenStop(String what, String name, long slotMs) {
        await(what, () -> defs().get(name).orElseThrow().nextFire().toEpochMilli() > slotMs);
        started.forEach(RowQueues::close);
    }

    /** @return the queue's jobs by slot, after checking that no slot has more than one */
    private static TreeMap<Long, Integer> oneJobPerSlot(WorkQueue q) {
        TreeMap<Long, Integer> slots = slots(q);
        Map<Long, Integer> twice = new HashMap<>();
        slots.forEach((slot, n) -> {
            if (n != 1) {
                twice.put(slot, n);
            }
        });
        assertEquals(Map.of(), twice, "slots with more than one job");
        return slots;
    }

    // ---------------------------------------------------------------- one job per slot

    @Test
    void four_schedulers_fire_exactly_one_job_per_slot_over_30_slots() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        long period = 150;
        ScheduleInfo info = slotsEvery(name, q, period, MissedSlots.each(1000));
        long first = info.nextFire().toEpochMilli();
        for (int i = 0; i < 4; i++) {
            scheduler(env().builder(), Duration.ofMillis(20 + 7 * i));
        }
        long last = first + 29 * period;
        awaitSlotFiredThenStop("30 slots fired", name, last);
        TreeMap<Long, Integer> slots = oneJobPerSlot(q);
        for (long s = first; s <= last; s += period) {
            assertEquals(1, slots.getOrDefault(s, 0), "slot " + Instant.ofEpochMilli(s) + " has one job: " + slots);
        }
        assertTrue(slots.firstKey() >= first, "no job before the first slot");
    }

    // ---------------------------------------------------------------- killed mid-slot

    /** Fails the scheduler's compare-and-set, after its slot row and job were written, once: the node "dies". */
    private static final class Killer extends InterceptingDataSource {
        final AtomicBoolean killed = new AtomicBoolean();

        Killer(javax.sql.DataSource delegate) {
            super(delegate);
        }

        @Override
        protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
            if (EXECUTIONS.contains(method.getName()) && (killed.get()
                    || sql != null && sql.startsWith("UPDATE rowqueue_schedules SET next_ms"))) {
                killed.set(true); // and every statement after: the node is dead
                throw new SQLException("the node was killed in the middle of its slot", "HY000");
            }
            return call.proceed();
        }
    }

    private RowQueues.Builder builderOn(javax.sql.DataSource ds) {
        RowQueues.Builder b = RowQueues.builder(ds);
        env().target().dialect().ifPresent(b::dialect);
        env().target().dialectOptions().forEach(b::dialectOption);
        return b.retry(dev.rowqueue.RetryPolicy.none());
    }

    @Test
    void a_scheduler_killed_in_the_middle_of_a_slot_leaves_it_to_another_which_fires_it_once() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        long period = 300;
        ScheduleInfo info = slotsEvery(name, q, period, MissedSlots.each(100));
        long slot = info.nextFire().toEpochMilli();
        Killer killer = new Killer(env().rawDataSource());
        RowQueues doomed = scheduler(builderOn(killer), Duration.ofMillis(10));
        await("the node is killed in its slot", killer.killed::get);
        doomed.close();
        assertEquals(info.revision(), revision(name), "the dead node's fire was rolled back");
        scheduler(env().builder(), Duration.ofMillis(20));
        awaitSlotFiredThenStop("the slot fired by another node", name, slot);
        assertEquals(1, oneJobPerSlot(q).get(slot), "the killed node's slot has exactly one job");
    }

    @Test
    void a_scheduler_that_dies_after_its_commit_is_not_followed_by_a_second_job_for_the_slot() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        ScheduleInfo info = slotsEvery(name, q, 300, MissedSlots.each(100));
        long slot = info.nextFire().toEpochMilli();
        FaultyDataSource faulty = new FaultyDataSource(env().rawDataSource());
        faulty.arm(FaultyDataSource.Point.COMMIT, 1, true,
                () -> new SQLException("the node died as its commit returned", "08006"));
        RowQueues doomed = scheduler(builderOn(faulty), Duration.ofMillis(10));
        await("the node dies after its commit", () -> faulty.fired() > 0);
        doomed.close();
        scheduler(env().builder(), Duration.ofMillis(20));
        awaitSlotFiredThenStop("a later slot fired", name, slot + 300);
        assertEquals(1, oneJobPerSlot(q).get(slot), "the slot has exactly one job");
    }

    // ---------------------------------------------------------------- missed slots, pause

    /**
     * Lets about a dozen 100 ms slots of three schedules go by with no scheduler running, then runs one poll of a
     * scheduler (its next poll is an hour away).
     */
    @Test
    void each_missed_slot_policy_decides_the_jobs_of_the_slots_that_went_by() {
        Map<MissedSlots, WorkQueue> queues = new HashMap<>();
        Map<MissedSlots, String> names = new HashMap<>();
        for (MissedSlots policy : List.of(MissedSlots.SKIP, MissedSlots.ONCE, MissedSlots.each(3))) {
            WorkQueue q = newQueue();
            String name = scheduleName();
            defs().define(name, Schedule.every(Duration.ofMillis(100)),
                    ScheduleOptions.forQueue(q.name()).withPayload("{slot_ms}").withMissed(policy));
            queues.put(policy, q);
            names.put(policy, name);
        }
        sleep(1300);
        Map<String, Long> before = new HashMap<>();
        names.values().forEach(n -> before.put(n, revision(n)));
        RowQueues node = scheduler(env().builder(), LONG);
        await("one poll fired all three", () -> names.values().stream().allMatch(n -> revision(n) > before.get(n)));
        node.close();
        Map<MissedSlots, TreeMap<Long, Integer>> jobs = new HashMap<>();
        queues.forEach((p, q) -> jobs.put(p, slots(q)));
        assertEquals(1, jobs.get(MissedSlots.SKIP).size(), "SKIP: only the current slot: " + jobs);
        assertEquals(2, jobs.get(MissedSlots.ONCE).size(), "ONCE: one job for the missed slots and the current"
                + " one: " + jobs);
        assertEquals(4, jobs.get(MissedSlots.each(3)).size(), "EACH:3: the latest three missed slots and the"
                + " current one: " + jobs);
        jobs.values().forEach(m -> m.values().forEach(n -> assertEquals(1, n)));
        for (MissedSlots p : jobs.keySet()) {
            ScheduleInfo info = defs().get(names.get(p)).orElseThrow();
            long current = jobs.get(p).lastKey();
            assertEquals(current + 100, info.nextFire().toEpochMilli(), p + ": the next slot follows the current one");
            List<Long> fired = new ArrayList<>(jobs.get(p).keySet());
            for (int i = 1; i < fired.size(); i++) {
                assertEquals(fired.get(i - 1) + 100, fired.get(i), p + ": the latest slots get the jobs: " + fired);
            }
        }
    }

    @Test
    void a_paused_schedule_fires_nothing_and_once_resumed_treats_the_slots_that_went_by_as_missed() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        defs().define(name, Schedule.every(Duration.ofMillis(100)),
                ScheduleOptions.forQueue(q.name()).withPayload("{slot_ms}"));
        assertTrue(defs().pause(name));
        assertTrue(defs().get(name).orElseThrow().paused());
        RowQueues node = scheduler(env().builder(), Duration.ofMillis(20));
        sleep(600);
        node.close();
        assertEquals(0, q.stats().total(), "a paused schedule enqueues nothing");
        assertTrue(defs().resume(name));
        assertFalse(defs().get(name).orElseThrow().paused());
        long before = revision(name);
        RowQueues again = scheduler(env().builder(), LONG);
        await("the resumed schedule fired", () -> revision(name) > before);
        again.close();
        assertEquals(2, slots(q).size(), "ONCE after resume: one job for the missed slots, one for the current");
        assertFalse(defs().pause("no_such_schedule"));
        assertFalse(defs().resume("no_such_schedule"));
    }

    // ---------------------------------------------------------------- fixed delay, trigger, delete

    @Test
    void a_fixed_delay_waits_for_its_job_to_finish() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        defs().define(name, Schedule.fixedDelay(Duration.ofMillis(100)), ScheduleOptions.forQueue(q.name()));
        scheduler(env().builder(), Duration.ofMillis(20));
        await("the first job", () -> q.stats().total() > 0);
        List<Job> first = q.claim(10);
        assertEquals(1, first.size());
        sleep(600);
        assertEquals(1, q.stats().total(), "no second job while the first is leased");
        // the ack commits after it is sent, and its answer may come back late under load: the delay counts from the
        // commit, so the second job appears no sooner than 100 ms after the ack was sent
        long ackSent = System.nanoTime();
        assertTrue(q.ack(first.get(0)));
        await("the second job", () -> q.stats().total() > 0);
        assertTrue(System.nanoTime() - ackSent >= Duration.ofMillis(100).toNanos(), "a delay after the first finished");
        assertEquals(1, q.claim(10).size());
    }

    @Test
    void trigger_now_enqueues_one_job_without_moving_the_slots_and_delete_removes_the_schedule() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        ScheduleInfo info = defs().define(name, "@yearly", ScheduleOptions.forQueue(q.name()).withPayload("{schedule}"));
        long id = defs().triggerNow(name);
        List<Job> jobs = q.claim(10);
        assertEquals(1, jobs.size());
        assertEquals(id, jobs.get(0).id());
        assertEquals(name, jobs.get(0).payload());
        assertEquals(info.nextFire(), defs().get(name).orElseThrow().nextFire());
        assertTrue(defs().list().stream().anyMatch(s -> s.name().equals(name)));
        assertTrue(defs().delete(name));
        assertFalse(defs().delete(name));
        assertTrue(defs().get(name).isEmpty());
        assertThrows(NoSuchElementException.class, () -> defs().triggerNow(name));
        assertThrows(NoSuchElementException.class, () -> defs().next(name, 3));
    }

    @Test
    void a_stored_definition_this_version_cannot_read_is_named_left_out_of_the_list_and_repaired_by_replace() {
        WorkQueue q = newQueue();
        String bad = scheduleName();
        String good = scheduleName();
        defs().define(bad, "@daily", ScheduleOptions.forQueue(q.name()));
        defs().define(good, "@hourly", ScheduleOptions.forQueue(q.name()));
        // as a newer version, or a hand edit, may leave it (the name is validated, so it can be spelt into the SQL)
        env().execute("UPDATE " + dev.rowqueue.spi.Schema.SCHEDULES_TABLE + " SET spec = 'every:fortnight'"
                + " WHERE schedule_name = '" + bad + "'");

        List<String> listed = defs().list().stream().map(ScheduleInfo::name).toList();
        assertTrue(listed.contains(good), "the readable schedule is still listed: " + listed);
        assertFalse(listed.contains(bad), "the unreadable one is left out: " + listed);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> defs().get(bad));
        assertTrue(e.getMessage().contains(bad) && e.getMessage().contains("every:fortnight"), e.getMessage());

        ScheduleInfo repaired = defs().replace(bad, "@weekly", ScheduleOptions.forQueue(q.name()));
        assertEquals(Schedule.parse("cron:@weekly"), repaired.schedule());
        assertTrue(defs().list().stream().anyMatch(s -> s.name().equals(bad)));
        assertTrue(defs().delete(bad));
    }

    // ---------------------------------------------------------------- definitions

    @Test
    void defining_an_existing_name_differently_is_a_conflict_unless_replaced() {
        WorkQueue q = newQueue();
        WorkQueue other = newQueue();
        String name = scheduleName();
        ScheduleOptions options = ScheduleOptions.forQueue(q.name());
        ScheduleInfo info = defs().define(name, "0 9 * * MON-FRI", options.withZone("Europe/Berlin"));
        assertEquals(info, defs().define(name, Schedule.cron("0 9 * * 1-5", ZoneId.of("Europe/Berlin")), options),
                "the same definition, written differently, is no conflict");
        assertThrows(ScheduleConflictException.class, () -> defs().define(name, "0 10 * * MON-FRI",
                options.withZone("Europe/Berlin")));
        assertThrows(ScheduleConflictException.class, () -> defs().define(name, "0 9 * * MON-FRI", options));
        assertThrows(ScheduleConflictException.class, () -> defs().define(name, "0 9 * * MON-FRI",
                ScheduleOptions.forQueue(other.name()).withZone("Europe/Berlin")));
        assertThrows(ScheduleConflictException.class, () -> defs().define(name, "0 9 * * MON-FRI",
                options.withZone("Europe/Berlin").withMissed(MissedSlots.SKIP)));
        assertEquals(info, defs().get(name).orElseThrow(), "a conflict changes nothing");
        ScheduleInfo replaced = defs().replace(name, Schedule.every(Duration.ofMinutes(5)),
                options.withPayload("p").withMissed(MissedSlots.SKIP));
        assertEquals(Schedule.every(Duration.ofMinutes(5)), replaced.schedule());
        assertEquals("p", replaced.options().payload());
        assertEquals(MissedSlots.SKIP, replaced.options().missed());
        assertEquals(0, replaced.nextFire().toEpochMilli() % Duration.ofMinutes(5).toMillis(),
                "a replaced schedule's next slot is its own");
        assertTrue(replaced.revision() > info.revision());
    }

    // ---------------------------------------------------------------- daylight saving

    private List<Instant> next3(String spec, String zone) {
        WorkQueue q = newQueue();
        String name = scheduleName();
        defs().define(name, spec, ScheduleOptions.forQueue(q.name()).withZone(zone));
        return defs().next(name, 3);
    }

    @Test
    void a_skipped_local_time_fires_once_at_the_first_instant_after_the_gap_in_berlin_and_new_york() {
        for (String[] c : new String[][]{{"30 2 * 3 SUNL", "Europe/Berlin"}, {"30 2 * 3 SUN#2", "America/New_York"}}) {
            ZoneId zone = ZoneId.of(c[1]);
            List<Instant> next = next3(c[0], c[1]);
            for (Instant i : next) {
                ZonedDateTime z = i.atZone(zone);
                ZoneOffsetTransition gap = zone.getRules().getTransition(LocalDateTime.of(z.toLocalDate(),
                        LocalTime.of(2, 30)));
                assertTrue(gap != null && gap.isGap(), c[1] + ": 02:30 is skipped on " + z.toLocalDate());
                assertEquals(gap.getInstant(), i, c[1] + ": fires at the first instant after the gap");
                assertEquals(LocalTime.of(3, 0), z.toLocalTime());
                assertEquals(DayOfWeek.SUNDAY, z.getDayOfWeek());
            }
            assertTrue(Duration.between(next.get(0), next.get(1)).toDays() > 300, "once a year: " + next);
        }
    }

    @Test
    void a_repeated_local_time_fires_once_at_its_first_occurrence_in_berlin_and_new_york() {
        for (String[] c : new String[][]{{"30 2 * 10 SUNL", "Europe/Berlin"}, {"30 1 * 11 SUN#1", "America/New_York"}}) {
            ZoneId zone = ZoneId.of(c[1]);
            List<Instant> next = next3(c[0], c[1]);
            for (Instant i : next) {
                ZonedDateTime z = i.atZone(zone);
                ZoneOffsetTransition overlap = zone.getRules().getTransition(z.toLocalDateTime());
                assertTrue(overlap != null && overlap.isOverlap(), c[1] + ": " + z + " occurs twice");
                assertEquals(overlap.getOffsetBefore(), z.getOffset(), c[1] + ": the first occurrence");
            }
            assertTrue(Duration.between(next.get(0), next.get(1)).toDays() > 300, "once a year, not twice: " + next);
        }
    }

    // ---------------------------------------------------------------- costs

    @Test
    void an_idle_scheduler_runs_one_statement_per_poll_for_all_schedules() {
        WorkQueue q = newQueue();
        for (int i = 0; i < 20; i++) {
            defs().define(scheduleName(), "@yearly", ScheduleOptions.forQueue(q.name()));
        }
        scheduler(env().builder(), Duration.ofMillis(50));
        sleep(200);
        env().counting().record();
        sleep(1000);
        // a loaded machine may poll less often than every 50 ms: wait for three polls rather than a fixed second
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             env().counting().recordedSoFar() < 3 && System.nanoTime() < deadline; ) {
            sleep(50);
        }
        List<String> sql = env().counting().recorded();
        assertTrue(sql.size() >= 3, "the scheduler polled: " + sql);
        Set<String> distinct = Set.copyOf(sql);
        assertEquals(1, distinct.size(), "one statement, the select of the due schedules: " + distinct);
        assertTrue(distinct.iterator().next().contains("FROM rowqueue_schedules WHERE paused = 0"), distinct.toString());
    }

    // ---------------------------------------------------------------- bad input

    @Test
    void bad_input_is_refused_before_any_sql_and_an_unknown_queue_after_one_catalog_read_with_nothing_written() {
        WorkQueue q = newQueue();
        String name = scheduleName();
        ScheduleOptions options = ScheduleOptions.forQueue(q.name());
        Schedules defs = defs();
        long before = env().counting().executions();
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "0 25 * * *", options));
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "* * *", options));
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "rate:PT0S", options));
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "rate:-PT1S", options));
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "delay:PT0S", options));
        assertThrows(IllegalArgumentException.class, () -> Schedule.every(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> Schedule.fixedDelay(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "cron:0 9 * * *@Mars/Olympus", options));
        assertThrows(IllegalArgumentException.class, () -> options.withZone("Mars/Olympus"));
        assertThrows(IllegalArgumentException.class, () -> defs.define("bad name", "@daily", options));
        assertThrows(IllegalArgumentException.class, () -> defs.define("x".repeat(65), "@daily", options));
        assertThrows(IllegalArgumentException.class, () -> ScheduleOptions.forQueue("no such queue"));
        assertThrows(IllegalArgumentException.class, () -> MissedSlots.each(0));
        assertThrows(IllegalArgumentException.class, () -> defs.next(name, 0));
        assertEquals(before, env().counting().executions(), "no statement ran");
        assertThrows(IllegalArgumentException.class, () -> defs.define(name, "@daily",
                ScheduleOptions.forQueue("tck_no_such_queue")));
        assertEquals(before + 1, env().counting().executions(), "one read of the catalog");
        assertTrue(defs.get(name).isEmpty(), "nothing was written");
        assertNotEquals(null, defs.define(name, "@daily", options), "the same name defines fine afterwards");
    }
}
