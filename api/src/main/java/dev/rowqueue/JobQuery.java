package dev.rowqueue;

import java.util.Objects;

/**
 * Which jobs {@link WorkQueue#jobs(JobQuery)} lists: a state (or every state), optionally one key, in id order
 * (newest or oldest first), one page at a time. Pages are keyset pages: the cursor is the last id of the page before,
 * so a page costs the same wherever it is, and jobs enqueued meanwhile neither repeat nor shift jobs between pages.
 * Immutable: {@link #all()} starts a chain and each method returns a copy that keeps every other value; every
 * argument is checked when it is given, before any SQL.
 *
 * <pre>{@code
 * JobPage page = queue.jobs(JobQuery.all().withState(JobState.READY).oldestFirst().withLimit(100));
 * while (true) {
 *     page.jobs().forEach(j -> System.out.println(j.id() + " " + j.payload()));
 *     if (page.next().isEmpty()) break;
 *     page = queue.jobs(page.next().get());
 * }
 * }</pre>
 *
 * @param state       the state, or {@code null} for every state
 * @param key         only jobs of this key, or {@code null} for every job
 * @param descending  newest first: highest id first ({@code true}) or lowest id first
 * @param after       only ids past this one in the query's order (below it newest first, above it oldest first); 0 for
 *                    the first page
 * @param limit       the most jobs per page, 1 to {@link #MAX_LIMIT}
 */
public record JobQuery(JobState state, String key, boolean descending, long after, int limit) {

    /** The largest page. */
    public static final int MAX_LIMIT = 1000;
    /** The page size of a new query. */
    public static final int DEFAULT_LIMIT = 100;

    /** Validates. */
    public JobQuery {
        if (after < 0) {
            throw new IllegalArgumentException("the cursor (a job id) must be 0 or more, got " + after);
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("a page holds 1 to " + MAX_LIMIT + " jobs, got " + limit);
        }
        if (key != null && key.isEmpty()) {
            throw new IllegalArgumentException("the key must not be empty; pass null for every job");
        }
    }

    /**
     * @param state a state
     * @return a copy listing only this state
     */
    public JobQuery withState(JobState state) {
        return new JobQuery(Objects.requireNonNull(state, "state"), key, descending, after, limit);
    }

    /** @return the newest jobs of every state, {@value #DEFAULT_LIMIT} per page */
    public static JobQuery all() {
        return new JobQuery(null, null, true, 0, DEFAULT_LIMIT);
    }

    /**
     * @param key a job key, not empty
     * @return this query, for the jobs of this key only
     */
    public JobQuery withKey(String key) {
        return new JobQuery(state, Objects.requireNonNull(key, "key"), descending, after, limit);
    }

    /** @return this query, highest id first (from its first page) */
    public JobQuery newestFirst() {
        return new JobQuery(state, key, true, 0, limit);
    }

    /** @return this query, lowest id first (from its first page) */
    public JobQuery oldestFirst() {
        return new JobQuery(state, key, false, 0, limit);
    }

    /**
     * @param jobs 1 to {@value #MAX_LIMIT}
     * @return this query with this page size
     */
    public JobQuery withLimit(int jobs) {
        return new JobQuery(state, key, descending, after, jobs);
    }

    /**
     * @param id the last id of the page before ({@link JobPage#nextCursor()}); 0 for the first page
     * @return this query, for the page after that id
     */
    public JobQuery withAfter(long id) {
        return new JobQuery(state, key, descending, id, limit);
    }
}
