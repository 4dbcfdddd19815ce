package dev.rowqueue.console;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.ScheduleInfo;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything the console's pages and JSON API read and change, and nothing else: the browser reaches the database
 * only through these methods, each a fixed call of the public API with bound values. {@link #over} implements it on
 * a {@link dev.rowqueue.RowQueues}, opening only queues its catalog lists (the console never creates a queue).
 *
 * <p>Queue names passed in are catalog names (the pages look them up in {@link #queues()} first). Reads may be
 * cached for the console's refresh interval, so that a console left open costs the same however many tabs show it;
 * a change through this interface drops what it affects from the cache.
 *
 * <p>The job pages (jobs by state with keyset paging, search by id or key, a job's detail, cancel) read through
 * {@link #jobs}, {@link #job} and change through {@link #cancel}; an implementation written before them answers those
 * pages with an error ({@link UnsupportedOperationException}); so do the schedules page and its actions
 * ({@link #schedules}, {@link #pauseSchedule}, {@link #resumeSchedule}, {@link #triggerSchedule}).
 */
public interface ConsoleData {

    /**
     * @param rowQueues   the instance to serve; not closed by the console
     * @param cacheMillis how long reads are reused, 0 for never
     * @return the console's data over the public API
     */
    static ConsoleData over(dev.rowqueue.RowQueues rowQueues, long cacheMillis) {
        return new RowQueuesConsoleData(rowQueues, cacheMillis);
    }

    /** @return the database and the dialect serving it */
    DatabaseInfo database();

    /** @return the catalog: every queue, in name order (empty if the database has no rowqueue catalog) */
    List<QueueInfo> queues();

    /**
     * @param name a queue name, as typed (folded to lower case)
     * @return its catalog entry
     */
    default Optional<QueueInfo> queue(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return queues().stream().filter(q -> q.name().equals(n)).findFirst();
    }

    /**
     * The overview's rows: every queue, with the counts of work queues. One statement per work queue, plus the
     * catalog.
     *
     * @return a summary per queue, in name order
     */
    List<QueueSummary> overview();

    /**
     * @param workQueue a work queue
     * @return its jobs by state
     */
    QueueStats stats(String workQueue);

    /**
     * @param workQueue a work queue
     * @return its last hour per minute ({@link dev.rowqueue.WorkQueue#activity()}), or {@code null} when unknown
     */
    default dev.rowqueue.QueueActivity activity(String workQueue) {
        return null;
    }

    /**
     * @param workQueue a work queue
     * @return its rate limit's window as the database holds it ({@link dev.rowqueue.WorkQueue#rateWindow()}); empty
     *         when it has none, or when unknown
     */
    default java.util.Optional<dev.rowqueue.RateWindow> rateWindow(String workQueue) {
        return java.util.Optional.empty();
    }

    /**
     * @return the processes registered in {@code rowqueue_nodes} ({@link dev.rowqueue.RowQueues#nodes()}): the
     *         holders of leases and the schedulers; empty when unknown
     */
    default List<dev.rowqueue.NodeInfo> nodes() {
        return List.of();
    }

    /** @return when each schedule last fired ({@link dev.rowqueue.Schedules#lastFires()}); empty when unknown */
    default Map<String, java.time.Instant> lastFires() {
        return Map.of();
    }

    /**
     * @param workQueue a work queue
     * @param limit     at most this many, 1 to 1,000
     * @return its dead letters, oldest first
     */
    List<Job> deadLetters(String workQueue, int limit);

    /**
     * @param workQueue a work queue
     * @param id        a dead job's id
     * @return whether a dead job had this id (it is ready again, its attempts reset)
     */
    boolean revive(String workQueue, long id);

    /**
     * @param workQueue a work queue
     * @return how many dead jobs were made ready again
     */
    int reviveAll(String workQueue);

    /**
     * @param workQueue a work queue
     * @return how many dead jobs were deleted
     */
    int purgeDead(String workQueue);

    /**
     * One keyset page of a work queue's jobs ({@link dev.rowqueue.WorkQueue#jobs}); never cached.
     *
     * @param workQueue a work queue
     * @param query     state, key, order, cursor and page size
     * @return the page
     */
    default JobPage jobs(String workQueue, JobQuery query) {
        throw new UnsupportedOperationException(getClass().getName() + " does not list jobs");
    }

    /**
     * @param workQueue a work queue
     * @param id        a job id, 1 or more
     * @return the job in any state, or empty; never cached
     */
    default Optional<JobInfo> job(String workQueue, long id) {
        throw new UnsupportedOperationException(getClass().getName() + " does not look jobs up");
    }

    /**
     * @param workQueue a work queue
     * @param id        a job id, 1 or more
     * @return what happened: only a ready or scheduled job is cancelled
     */
    default CancelOutcome cancel(String workQueue, long id) {
        throw new UnsupportedOperationException(getClass().getName() + " does not cancel jobs");
    }

    /**
     * Every recurring schedule ({@link dev.rowqueue.Schedules#list()}), read without creating the schedule tables and
     * without starting a scheduler: the console never fires a schedule.
     *
     * @return every schedule, in name order; empty if the database has no schedule tables
     */
    default List<ScheduleInfo> schedules() {
        throw new UnsupportedOperationException(getClass().getName() + " does not list schedules");
    }

    /**
     * @param name a schedule
     * @return {@code false} if there is none of that name
     */
    default boolean pauseSchedule(String name) {
        throw new UnsupportedOperationException(getClass().getName() + " does not pause schedules");
    }

    /**
     * @param name a schedule
     * @return {@code false} if there is none of that name
     */
    default boolean resumeSchedule(String name) {
        throw new UnsupportedOperationException(getClass().getName() + " does not resume schedules");
    }

    /**
     * Enqueues the schedule's job now ({@link dev.rowqueue.Schedules#triggerNow}), without changing its slots.
     *
     * @param name a schedule
     * @return the job's id, or empty if there is no schedule of that name
     */
    default OptionalLong triggerSchedule(String name) {
        throw new UnsupportedOperationException(getClass().getName() + " does not trigger schedules");
    }

    /**
     * @param ring a ring queue
     * @return its groups that hold entries, in ascending order (all of them: the API cannot page groups yet)
     */
    List<String> groups(String ring);

    /**
     * @param ring  a ring queue
     * @param group a group
     * @param limit at most this many
     * @return the group's newest entries, newest first
     */
    List<RingEntry> newestEntries(String ring, String group, int limit);

    /**
     * @param table a counters table
     * @return every counter and its value
     */
    Map<String, Long> counters(String table);

    /**
     * @param table a counters table
     * @param key   a counter
     * @return its value, 0 for a counter never used
     */
    long counter(String table, String key);
}
