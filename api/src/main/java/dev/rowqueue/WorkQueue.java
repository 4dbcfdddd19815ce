package dev.rowqueue;

import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A work queue that many consumers pop concurrently without ever holding the same job at the same time.
 *
 * <p>A job is <em>claimed</em> with a lease: until the lease ends it belongs to that consumer alone. The consumer
 * then {@linkplain #ack(Job) acks} it (the job is deleted), {@linkplain #nack(Job, Duration) nacks} it (the attempt
 * is counted and the job retried after a delay, or becomes dead after {@link WorkQueueOptions#maxAttempts()}
 * attempts) or {@linkplain #release(Job) releases} it unprocessed. A consumer that crashes loses nothing: when its
 * lease ends the job is claimable again, and that expired lease counts as a failed attempt, so a job that keeps
 * crashing its consumers ends up dead instead of looping forever.
 *
 * <p>{@link #claim(int)} hands out jobs by priority (higher first), then due time, then id. {@link #rotate(String,
 * int)} hands them out round-robin in id order behind a named, persisted cursor that wraps around (the batch loop of
 * the article "Endless loops"). Both lease what they return, so the two may be mixed on one queue.
 *
 * <p>Acks, nacks and releases carry the lease token of the claim: after a lease has expired and the job was
 * claimed by someone else, the old holder's ack returns {@code false} and changes nothing.
 *
 * <p>Jobs may carry a key and a unique key ({@link Enqueue#withKey(String)}, {@link Enqueue#unique()}): an enqueue naming
 * the unique key of a live job returns that job's id and writes nothing; a handle with
 * {@link WorkQueueOptions#withMaxLeasedPerKey(int)} never has more than that many jobs of one key leased, and one with
 * {@link WorkQueueOptions#withFairClaims(boolean)} takes keys in turns. The database enforces all three, across nodes.
 *
 * <p><b>Who creates the queue.</b> The producer side does: the first enqueue (or {@link #create()}) creates the
 * tables and registers the queue. The consumer side never does: claims, rotations, workers, statistics and dead-letter
 * calls on a queue that does not exist yet return nothing (empty, zero, {@code false}) and log one warning per queue
 * naming it ({@code queue 'x' does not exist yet: ...}), so a consumer may start before any producer, and a misspelt
 * name shows in the log instead of polling an empty table of its own. A database that cannot be reached still
 * throws. After the {@link RowQueues} instance is closed, every operation throws {@link IllegalStateException}.
 */
public interface WorkQueue {

    /** @return the queue name (lower case) */
    String name();

    /** @return this handle's options */
    WorkQueueOptions options();

    /**
     * Creates the queue's tables and registers it in the catalog, if it does not exist yet; the first enqueue does the
     * same. For consumers that should make the queue exist before any producer has run. With schema creation off,
     * checks that the tables exist instead.
     *
     * @return this handle
     * @throws QueueConflictException if a queue of that name and another kind exists
     */
    WorkQueue create();

    /**
     * Enqueues a job, ready now, with priority 0.
     *
     * @param payload the job's text; may be empty, must not be {@code null}
     * @return the job id
     */
    long enqueue(String payload);

    /**
     * Enqueues a job.
     *
     * @param payload the job's text
     * @param how     priority and delay, e.g. {@code Enqueue.defaults().withPriority(5).withDelay(Duration.ofSeconds(30))}
     * @return the job id
     */
    long enqueue(String payload, Enqueue how);

    /**
     * Enqueues several jobs atomically: all or none.
     *
     * @param payloads at least one payload; all are validated before any SQL runs
     * @param how      priority and delay of every job
     * @return the job ids, in list order (ascending)
     */
    List<Long> enqueueAll(List<String> payloads, Enqueue how);

    /**
     * Claims up to {@code max} due jobs, leased to the caller for {@link WorkQueueOptions#leaseDuration()}.
     *
     * @param max at least 1
     * @return the claimed jobs in claim order; empty if none is due
     */
    List<Job> claim(int max);

    /**
     * Claims up to {@code max} jobs, waiting up to {@code maxWait} for at least one to become available. Dialects
     * that the database can wake (such as PostgreSQL's {@code LISTEN/NOTIFY}) sleep until a job arrives; the
     * others poll with a bounded interval.
     *
     * @param max     at least 1
     * @param maxWait how long to wait at most; zero means do not wait
     * @return the claimed jobs; empty if none came within {@code maxWait}
     */
    List<Job> claim(int max, Duration maxWait);

    /**
     * Deletes a job that was processed.
     *
     * @param job a job this consumer claimed
     * @return {@code false} if the lease was lost (the job was claimed by another consumer after the lease ended,
     *         or was already acked); nothing changes then
     */
    boolean ack(Job job);

    /**
     * Acks the jobs this consumer finished and claims up to {@code max} more, as one atomic operation: the hot path of
     * a worker loop. On PostgreSQL and MariaDB it is one statement and one round trip, where {@link #ack(Job)} per job
     * and then {@link #claim(int)} cost one round trip each; elsewhere it is one transaction. Either everything
     * happens or, when it throws, nothing does. A job being acked is never among the claimed ones, even if its lease
     * had ended.
     *
     * <pre>{@code
     * List<Job> jobs = queue.claim(10);
     * while (!jobs.isEmpty()) {
     *     jobs.forEach(this::process);                        // nack or release the ones that failed
     *     jobs = queue.ackAndClaim(jobs, 10).claimed();
     * }
     * }</pre>
     *
     * @param done jobs this consumer claimed and processed; may be empty (then this is {@link #claim(int)}); at most
     *             1,000, each once
     * @param max  how many jobs to claim, at least 1
     * @return the claimed jobs in claim order, and those of {@code done} whose lease was lost (their ack changed
     *         nothing, as {@link #ack(Job)} returning {@code false})
     */
    Handoff ackAndClaim(Collection<Job> done, int max);

    /**
     * Records a failed attempt and retries the job after the options' backoff for its attempt count.
     *
     * @param job a job this consumer claimed
     * @return {@code false} if the lease was lost
     */
    boolean nack(Job job);

    /**
     * Records a failed attempt: the job's attempt count grows by one and it is retried after {@code retryDelay},
     * or, if it has now failed {@link WorkQueueOptions#maxAttempts()} times, becomes dead.
     *
     * @param job        a job this consumer claimed
     * @param retryDelay how long until it may be claimed again, zero or more
     * @return {@code false} if the lease was lost
     */
    boolean nack(Job job, Duration retryDelay);

    /**
     * Like {@link #nack(Job, Duration)}, and keeps an error text with the job (shown on dead letters).
     *
     * @param job        a job this consumer claimed
     * @param retryDelay zero or more
     * @param error      a description of the failure, truncated to 1000 characters; may be {@code null}
     * @return {@code false} if the lease was lost
     */
    boolean nack(Job job, Duration retryDelay, String error);

    /**
     * Gives a claimed job back unprocessed, claimable at once, without counting an attempt.
     *
     * @param job a job this consumer claimed
     * @return {@code false} if the lease was lost
     */
    boolean release(Job job);

    /**
     * Extends a lease for long work: the job stays this consumer's until {@code leaseDuration} from now.
     *
     * @param job           a job this consumer claimed
     * @param leaseDuration a positive duration
     * @return {@code false} if the lease was already lost
     */
    boolean extendLease(Job job, Duration leaseDuration);

    /**
     * The round-robin batch of "Endless loops": the next {@code max} claimable jobs in id order after the cursor's
     * position, wrapping around to the lowest id, each at most once per call. The jobs are leased like
     * {@link #claim(int)} and the cursor moves to the last one returned. The cursor is stored in the database, so it
     * survives restarts and is shared by every handle that names it; concurrent calls on one cursor get consecutive,
     * disjoint batches.
     *
     * @param cursor a cursor name, at most 200 characters
     * @param max    at least 1
     * @return the jobs in rotation order
     */
    List<Job> rotate(String cursor, int max);

    /**
     * Jobs that exhausted their attempts, oldest id first.
     *
     * @param limit at least 1
     * @return up to {@code limit} dead jobs, with their last error
     */
    List<Job> deadLetters(int limit);

    /**
     * Makes a dead job ready again, with its attempt count reset to zero.
     *
     * @param id the job id
     * @return {@code false} if no dead job has this id
     */
    boolean revive(long id);

    /** @return how many dead jobs were made ready again */
    int reviveAll();

    /** @return how many dead jobs were deleted */
    int purgeDead();

    /** @return counts of jobs by state */
    QueueStats stats();

    /**
     * The rate limit's window as the database holds it ({@link WorkQueueOptions#withRateLimit}): the limit and window
     * of the claims that last started jobs, and how many jobs started within the window. Needs no options: any handle
     * of the queue reads it, as the console does. Two short statements, no lock.
     *
     * @return the window, or empty if no claim has started a job of this queue under a rate limit
     */
    Optional<RateWindow> rateWindow();

    /**
     * Counts of jobs by state for each {@linkplain Job#key() key}: the keys with the most jobs first. Jobs without a
     * key are not counted here (see {@link #stats()}). One statement, grouping the whole table: meant for operators
     * (the CLI's {@code work stats --by-key}), not for a hot path.
     *
     * @param limit how many keys at most, 1 to 1,000
     * @return key to counts, in that order
     * @throws IllegalArgumentException for a limit outside 1 to 1,000, before any SQL runs
     */
    Map<String, QueueStats> statsByKey(int limit);

    /**
     * Looks a job up by id, in any state: one statement on the primary key.
     *
     * @param id a job id, 1 or more
     * @return the job as it is now, or empty if no job has this id (never had, or it was acked, cancelled or purged)
     * @throws IllegalArgumentException for an id below 1, before any SQL runs
     */
    Optional<JobInfo> job(long id);

    /**
     * Lists jobs by state (or every state), optionally of one key, newest or oldest first, one keyset page at a time:
     * one statement per page, however deep the page. Meant for operators (the console's job pages), not for a hot
     * path; see docs/console.md for what the statement costs.
     *
     * @param query state, key, order, cursor and page size (checked when the query was made)
     * @return the page, with the query of the next one if there are more jobs
     * @throws NullPointerException for a {@code null} query, before any SQL runs
     */
    JobPage jobs(JobQuery query);

    /**
     * Cancels a job that is ready or scheduled: it is deleted, and no consumer will get it. A job that a consumer
     * holds under a live lease is refused ({@link CancelOutcome#LEASED}): the consumer may be running it, and it stays
     * that consumer's to ack, nack or release. A cancel and a claim racing for one job never both succeed: the
     * database decides which came first. Dead jobs are refused too ({@link CancelOutcome#DEAD}: revive or purge them).
     *
     * @param id a job id, 1 or more
     * @return what happened; only {@link CancelOutcome#CANCELLED} changed anything
     * @throws IllegalArgumentException for an id below 1, before any SQL runs
     */
    CancelOutcome cancel(long id);

    /**
     * Jobs enqueued, finished (acked) and failed per minute over the last hour, as every process that records activity
     * counted them ({@link RowQueues.Builder#recordActivity(boolean)}, on by default). Recording costs no statement per
     * job: each process counts in memory and writes its counts of every queue in one batched {@code INSERT} per
     * minute, and every tenth minute deletes rows older than an hour. Counts are of operations that returned, including
     * those on a caller's connection whose transaction later rolled back. Reading is one statement.
     *
     * @return {@value QueueActivity#MINUTES} minutes, oldest first, ending with the current one
     */
    QueueActivity activity();

    /**
     * A view of this queue whose operations run on the caller's connection, inside the caller's transaction
     * (transactional outbox: enqueue commits or rolls back with the caller's business writes). Operations are not
     * retried; see {@link RingQueue#using(Connection)}.
     *
     * @param connection the caller's connection; never closed by rowqueue
     * @return a handle bound to that connection
     */
    WorkQueue using(Connection connection);

    /**
     * A worker that runs {@code handler} on this queue's jobs (see {@link Worker}); call {@link Worker#start()}.
     *
     * @param handler what to run for each job
     * @param options threads, prefetch, heartbeats, drain timeout, executor and listener
     * @return the worker, not started
     * @throws UnsupportedOperationException on a handle bound to a caller's connection ({@link #using})
     */
    Worker worker(JobHandler handler, WorkerOptions options);

    /**
     * A worker with {@link WorkerOptions#defaults()}: {@code worker(handler, WorkerOptions.defaults())}.
     *
     * @param handler what to run for each job
     * @return the worker, not started
     * @throws UnsupportedOperationException on a handle bound to a caller's connection ({@link #using})
     */
    default Worker worker(JobHandler handler) {
        return worker(handler, WorkerOptions.defaults());
    }
}
