package dev.rowqueue;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One page of {@link WorkQueue#jobs(JobQuery)}.
 *
 * @param query the query of this page
 * @param jobs  its jobs, in the query's order
 * @param more  whether jobs past this page matched when it was read
 */
public record JobPage(JobQuery query, List<JobInfo> jobs, boolean more) {
    /** Validates and copies. */
    public JobPage {
        Objects.requireNonNull(query, "query");
        jobs = List.copyOf(jobs);
        if (more && jobs.isEmpty()) {
            throw new IllegalArgumentException("an empty page has no next page");
        }
    }

    /** @return the cursor of the next page (the last id of this one), if there are more jobs */
    public OptionalLong nextCursor() {
        return more ? OptionalLong.of(jobs.get(jobs.size() - 1).id()) : OptionalLong.empty();
    }

    /** @return the query of the next page, if there are more jobs */
    public Optional<JobQuery> next() {
        return more ? Optional.of(query.withAfter(jobs.get(jobs.size() - 1).id())) : Optional.empty();
    }
}
