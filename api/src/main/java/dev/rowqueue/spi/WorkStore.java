package dev.rowqueue.spi;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RateWindow;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A work queue's database work, made by {@link Dialect#workStore}. Arguments are already validated. Times are
 * milliseconds; tokens are non-zero random values chosen by the core, one per claim. Every abstract method is
 * required (no method throws {@code UnsupportedOperationException}): the TCK's work, keyed-job and job-API contracts
 * call each of them.
 */
public interface WorkStore {
    /**
     * @param payloads at least one
     * @param priority higher first
     * @param delayMs  zero or more
     * @return the new ids, ascending, in payload order
     */
    SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs);

    /**
     * Enqueues jobs with a key or a unique key (or both). With a unique key ({@code payloads} then holds one payload):
     * if a live job holds that unique key, nothing is written and its id is returned; else the job is inserted, and a
     * producer that loses the race for the key to a concurrent one (a unique-key violation) finds and returns the
     * winner's job, or, if that job already ended, inserts again.
     *
     * @param payloads  at least one; exactly one with a unique key
     * @param priority  higher first
     * @param delayMs   zero or more
     * @param key       the jobs' key, or {@code null}
     * @param uniqueKey the job's unique key, or {@code null}
     * @return the new ids, ascending, in payload order; or the id of the live job that holds the unique key
     */
    SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs, String key, String uniqueKey);

    /**
     * A claim under a {@link ClaimRule}; a {@linkplain ClaimRule#plain() plain} rule is {@link #claim(int, long,
     * long)}. With a per-key limit, never leases a job of a key that has {@code maxLeasedPerKey} leased jobs, nor more
     * than that many of one key in all; with fairness, takes jobs by round.
     *
     * @param max     at least 1
     * @param leaseMs the lease length
     * @param token   the lease token to set
     * @param rule    how keys count
     * @return the leased jobs, in claim order
     */
    SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule);

    /**
     * {@link #ackAndClaim(long[], long[], int, long, long)} with a claim under a {@link ClaimRule}.
     *
     * @param ids     the jobs to ack
     * @param tokens  their lease tokens
     * @param max     at least 1
     * @param leaseMs the lease length
     * @param token   the lease token to set
     * @param rule    how keys count
     * @return the ids acked and the jobs claimed
     */
    SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                               ClaimRule rule);

    /**
     * @param limit the most keys
     * @return counts by state of each key's jobs, the keys with the most jobs first
     */
    SqlOp<Map<String, QueueStats>> statsByKey(int limit);

    /**
     * Leases up to {@code max} claimable jobs (live, due) by priority descending, due time, id. A job whose previous
     * lease ended without ack (it still has a token) gets its {@code attempts} raised by one. Must never lease a job
     * to two callers.
     *
     * @param max     at least 1
     * @param leaseMs the lease length
     * @param token   the lease token to set
     * @return the leased jobs, in claim order, as they are after the lease
     */
    SqlOp<List<Job>> claim(int max, long leaseMs, long token);

    /**
     * Leases up to {@code max} claimable jobs in id order after the cursor's position, wrapping around once, and
     * moves the cursor to the last one leased (creating it at position 0 if missing).
     *
     * @param cursor  the cursor name
     * @param max     at least 1
     * @param leaseMs the lease length
     * @param token   the lease token to set
     * @return the leased jobs in rotation order
     */
    SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token);

    /**
     * @param id    the job
     * @param token its lease token
     * @return whether a live job with this id and token was deleted
     */
    SqlOp<Boolean> ack(long id, long token);

    /**
     * Acks jobs and claims up to {@code max} others, atomically: {@link #ack} of each, then {@link #claim}, with the
     * same meaning, never claiming one of the acked jobs. The default runs them in one transaction (one round trip
     * each); a dialect that can do it in one statement overrides it.
     *
     * @param ids     the jobs to ack, no id twice; may be empty
     * @param tokens  their lease tokens, index for index
     * @param max     at least 1
     * @param leaseMs the lease length of the claimed jobs
     * @param token   the lease token to set on them
     * @return the ids that were acked and the jobs claimed, in claim order
     */
    default SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
        SqlOp<List<Job>> claim = claim(max, leaseMs, token);
        if (ids.length == 0) {
            return new SqlOp.Flagged<>(c -> new AckedAndClaimed(Set.of(), claim.run(c)), claim.singleStatement(),
                    false, claim.retriesDuplicateKey());
        }
        return SqlOp.transaction(c -> {
            Set<Long> acked = new HashSet<>();
            for (int i = 0; i < ids.length; i++) {
                if (ack(ids[i], tokens[i]).run(c)) {
                    acked.add(ids[i]);
                }
            }
            return new AckedAndClaimed(acked, claim.run(c));
        });
    }

    /**
     * The result of {@link #ackAndClaim}.
     *
     * @param acked   the ids whose ack took effect
     * @param claimed the jobs claimed, in claim order
     */
    record AckedAndClaimed(Set<Long> acked, List<Job> claimed) {
    }

    /**
     * Raises attempts by one, clears the lease, and makes the job due after {@code delayMs}, or dead if attempts
     * reach {@code maxAttempts} (a dead job gives up its unique key).
     *
     * @param id          the job
     * @param token       its lease token
     * @param delayMs     zero or more
     * @param maxAttempts the attempt count that makes it dead
     * @param error       error text or {@code null}
     * @return whether a live job with this id and token was changed
     */
    SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error);

    /**
     * @param id    the job
     * @param token its lease token
     * @return whether the job was made due now without a lease (attempts unchanged)
     */
    SqlOp<Boolean> release(long id, long token);

    /**
     * Gives back every live job leased under any of some tokens, attempts unchanged, due now: the claims that set
     * them failed with an unknown outcome (the connection died while they could have committed), so the caller never
     * received those jobs. Running it twice must have the effect of running it once.
     *
     * @param tokens the tokens of the claims, at least one
     * @return how many jobs were released
     */
    SqlOp<Integer> releaseLeased(long[] tokens);

    /**
     * @param id      the job
     * @param token   its lease token
     * @param leaseMs the new lease length from now
     * @return whether the lease was extended
     */
    SqlOp<Boolean> extend(long id, long token, long leaseMs);

    /**
     * Extends the leases of several jobs at once (a worker's heartbeat). The default extends them one by one in one
     * transaction; a store does it in one statement.
     *
     * @param ids     the jobs
     * @param tokens  their lease tokens, index by index
     * @param leaseMs the new lease length from now
     * @return the ids whose lease was extended (the others were lost: acked, re-leased or dead)
     */
    default SqlOp<Set<Long>> extendAll(long[] ids, long[] tokens, long leaseMs) {
        return SqlOp.transaction(c -> {
            Set<Long> extended = new HashSet<>();
            for (int i = 0; i < ids.length; i++) {
                if (extend(ids[i], tokens[i], leaseMs).run(c)) {
                    extended.add(ids[i]);
                }
            }
            return extended;
        });
    }

    /**
     * Makes leased jobs dead (used when a claim finds a job that exhausted its attempts through expired leases); they
     * give up their unique keys.
     *
     * @param ids   the jobs
     * @param token their lease token
     * @param error the text to keep
     * @return how many were made dead
     */
    SqlOp<Integer> bury(long[] ids, long token, String error);

    /**
     * @param limit at least 1
     * @return dead jobs by id
     */
    SqlOp<List<Job>> dead(int limit);

    /**
     * @param id one dead job, or empty for all
     * @return how many became live and due now, with attempts reset
     */
    SqlOp<Integer> revive(OptionalLong id);

    /** @return how many dead jobs were deleted */
    SqlOp<Integer> purgeDead();

    /** @return counts by state */
    SqlOp<QueueStats> stats();

    /**
     * @return the rate limit's window as the database holds it, or empty if no claim started a job under a rate limit
     *         ({@link dev.rowqueue.WorkQueue#rateWindow()})
     */
    SqlOp<Optional<RateWindow>> rateWindow();

    /**
     * @param id a job id, 1 or more
     * @return the job in any state, with its state by the database's clock, or empty
     */
    SqlOp<Optional<JobInfo>> job(long id);

    /**
     * One keyset page of jobs in id order.
     *
     * @param state       a state, or {@code null} for every state
     * @param key         a job key, or {@code null} for every job
     * @param newestFirst highest id first, else lowest
     * @param after       0, or only ids below it (newest first) or above it (oldest first)
     * @param limit       the most jobs, 1 or more (a store may read one more to tell whether more follow)
     * @return the jobs, in that order
     */
    SqlOp<List<JobInfo>> jobs(JobState state, String key, boolean newestFirst, long after, int limit);

    /**
     * Deletes a job that is ready or scheduled; must never delete a job a consumer holds under a live lease, whatever
     * claim runs at the same moment.
     *
     * @param id a job id, 1 or more
     * @return what happened
     */
    SqlOp<CancelOutcome> cancel(long id);
}
