package dev.rowqueue.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.atomic.AtomicInteger;

/** The {@code rowqueue.worker.*} meters of one queue, shared by the listeners of its workers. */
final class WorkerMeters {
    static final String RUNNING = "rowqueue.worker.running";
    static final String JOBS = "rowqueue.worker.jobs";
    static final String LEASE_LOST = "rowqueue.worker.lease.lost";
    static final String HANDLER = "rowqueue.worker.handler";
    static final String WAIT = "rowqueue.worker.wait";
    static final String DATABASE_ERRORS = "rowqueue.worker.database.errors";
    static final String REFUSED = "rowqueue.worker.refused";

    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger refused = new AtomicInteger();
    final Counter succeeded;
    final Counter failed;
    final Counter dead;
    final Counter leaseLost;
    final Counter databaseErrors;
    final Timer handler;
    final Timer wait;

    WorkerMeters(MeterRegistry registry, String queue, Tags tags) {
        Gauge.builder(RUNNING, running, AtomicInteger::get)
                .description("handlers of rowqueue workers running now")
                .tag("queue", queue)
                .tags(tags)
                .strongReference(true)
                .register(registry);
        Gauge.builder(REFUSED, refused, AtomicInteger::get)
                .description("rowqueue workers whose claims the database refuses (a syntax error or a missing"
                        + " privilege: a permanent failure, health DOWN) now; 0 when every worker can claim")
                .tag("queue", queue)
                .tags(tags)
                .strongReference(true)
                .register(registry);
        succeeded = jobs(registry, queue, tags, "succeeded");
        failed = jobs(registry, queue, tags, "failed");
        dead = jobs(registry, queue, tags, "dead");
        leaseLost = Counter.builder(LEASE_LOST)
                .description("jobs whose lease a rowqueue worker lost (another consumer may run them)")
                .tag("queue", queue)
                .tags(tags)
                .register(registry);
        databaseErrors = Counter.builder(DATABASE_ERRORS)
                .description("failed claims, acks and heartbeats of rowqueue workers (each retried)")
                .tag("queue", queue)
                .tags(tags)
                .register(registry);
        handler = Timer.builder(HANDLER)
                .description("how long rowqueue job handlers ran, whatever their outcome")
                .tag("queue", queue)
                .tags(tags)
                .register(registry);
        wait = Timer.builder(WAIT)
                .description("time from a job's enqueue to the start of its handler (delays and retries included)")
                .tag("queue", queue)
                .tags(tags)
                .register(registry);
    }

    private static Counter jobs(MeterRegistry registry, String queue, Tags tags, String outcome) {
        return Counter.builder(JOBS)
                .description("jobs rowqueue workers ran, by outcome: succeeded (acked), failed (nacked, to be"
                        + " retried), dead (nacked on its last attempt)")
                .tags("queue", queue, "outcome", outcome)
                .tags(tags)
                .register(registry);
    }
}
