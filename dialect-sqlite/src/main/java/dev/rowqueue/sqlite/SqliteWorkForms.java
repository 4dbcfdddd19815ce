package dev.rowqueue.sqlite;

import dev.rowqueue.Job;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.Claims;
import dev.rowqueue.support.WorkForms;

import java.util.List;

/**
 * The work queue's hook on SQLite: the claim. It reads the ids of the jobs it would take (the claim index's walk in
 * claim order, a read: no lock), and only if there are some leases them in one {@code UPDATE ... WHERE id IN (...)
 * AND <claimable> RETURNING ...} ({@link SqliteStatements}' lease), which takes the write lock and commits in
 * auto-commit mode. The lease repeats the claimability test, so a job another process claimed between the read and
 * the lease is not leased twice; a claim whose lease got none of its candidates reads again (at most
 * {@link Claims#EMPTY_CLAIM_ROUNDS} times), one that got some returns those, so a claim writes at most once and a
 * retry of it leaks no lease.
 *
 * <p>Two plain statements, not the one-statement claim of the other dialects ({@code UPDATE} of a {@code MATERIALIZED}
 * CTE's jobs, {@code RETURNING} the due time each had before its lease): on SQLite a statement's temporary b-trees
 * (the CTE's, the {@code IN} list's, the correlated subquery's) and its preparing cost more than a second statement.
 * Measured with xerial 3.54.1.0 (docs/benchmarks.md, "One-job claim+ack (issue 39, item 3)"): the one-statement
 * claim took 190-310 µs at the median, the read and the lease by id about 120 µs, with the same pages written.
 */
final class SqliteWorkForms implements WorkForms {

    private final Portable portable;

    /** @param portable the store's portable operations */
    SqliteWorkForms(Portable portable) {
        this.portable = portable;
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        Claims claims = portable.claims();
        return SqlOp.statement(c -> {
            for (int round = 0; Claims.anotherRound(round, 0); round++) {
                List<Long> ids = claims.candidates(c, Claims.Kind.CLAIM, max, -1);
                if (ids.isEmpty()) {
                    return List.of(); // nothing to claim, and no write lock taken for it
                }
                List<Job> leased = claims.leaseAndRead(c, ids, leaseMs, token);
                if (!leased.isEmpty()) {
                    return leased;
                }
            }
            return List.of();
        });
    }
}
