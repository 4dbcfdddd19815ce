package dev.rowqueue.bench;

import org.jobrunr.jobs.mappers.JobMapper;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.sql.common.SqlStorageProviderFactory;
import org.jobrunr.utils.mapper.jackson.JacksonJsonMapper;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.LongStream;

/**
 * The JobRunr peer (the open-source edition): a {@link BackgroundJobServer} with as many workers as the cell's threads
 * and the shortest poll interval its SQL storage accepts ({@value #POLL_SECONDS} s; the default is 15 s), on the
 * target's pool, through JobRunr's own {@code SqlStorageProviderFactory} (which picks its PostgreSQL or MariaDB
 * storage provider and creates its tables). Jobs are lambdas calling a static method of this class (no-op, a 1 ms
 * sleep, or reporting the start time it carries), as JobRunr's documentation shows; enqueues go through
 * {@link JobScheduler#enqueue(org.jobrunr.jobs.lambdas.JobLambda)} and, batched, its stream variant, which saves the
 * jobs of a stream in batches. Everything else keeps JobRunr's defaults (succeeded jobs stay in its table for 36 h,
 * as it keeps them by design).
 */
public final class JobRunrPeer implements Contender { // public: JobRunr calls its static job methods by reflection

    /** The smallest poll interval JobRunr's SQL storage providers accept. */
    static final int POLL_SECONDS = 5;

    /** Jobs whose handler returned (or started, for the latency cells); static: JobRunr calls static methods. */
    private static final LongAdder DONE = new LongAdder();
    private static volatile Workers.StartLatency latency;

    private final BenchTarget target;
    private final DataSource ds;
    private final JacksonJsonMapper json = new JacksonJsonMapper();
    private final StorageProvider storage;
    private final JobScheduler scheduler;

    JobRunrPeer(BenchTarget target) throws SQLException {
        this.target = target;
        this.ds = target.dataSource();
        this.storage = SqlStorageProviderFactory.using(ds);
        storage.setJobMapper(new JobMapper(json));
        this.scheduler = new JobScheduler(storage);
        clear();
    }

    /** @return JobRunr's version, from its jar's manifest */
    static String version() {
        String v = JobScheduler.class.getPackage().getImplementationVersion();
        return v == null ? "(version unknown)" : v;
    }

    // the jobs: static methods, so that JobRunr needs no JobActivator

    /** A no-op job. */
    public static void noop() {
        DONE.increment();
    }

    /** A job that sleeps 1 ms. */
    public static void sleep1() {
        Workers.Handler.SLEEP_1MS.run();
        DONE.increment();
    }

    /**
     * A latency job.
     *
     * @param enqueuedNanos the {@link System#nanoTime()} taken before its enqueue
     */
    public static void started(long enqueuedNanos) {
        Workers.StartLatency l = latency;
        if (l != null) {
            l.started(enqueuedNanos);
        }
    }

    @Override
    public String name() {
        return "JobRunr";
    }

    @Override
    public String settings() {
        return "JobRunr " + version() + " (open source): BackgroundJobServer with andWorkerCount(n), andPollInterval("
                + POLL_SECONDS + " s) (its SQL minimum; default 15 s), other settings its defaults, jobs are static"
                + " method lambdas; JobScheduler.enqueue(lambda) / enqueue(Stream, lambda)";
    }

    private BackgroundJobServer server(int threads) {
        BackgroundJobServer server = new BackgroundJobServer(storage, json, new JobActivator() {
            @Override
            public <T> T activateJob(Class<T> type) {
                return null; // only static methods run
            }
        }, BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration().andWorkerCount(threads)
                .andPollInterval(Duration.ofSeconds(POLL_SECONDS)));
        server.start();
        return server;
    }

    /** Deletes every job, untimed, so that one cell does not pay for the last one's rows. */
    private void clear() throws SQLException {
        Targets.sql(ds, "DELETE FROM jobrunr_jobs");
    }

    @Override
    public Harness.Measurement workers(Profile profile, Workers.Handler handler, int threads) throws Exception {
        clear();
        DONE.reset();
        BackgroundJobServer[] server = {null};
        Harness.Observed work = new ToppedUp(profile) {
            @Override
            void fill(long n) {
                if (handler == Workers.Handler.NOOP) {
                    scheduler.enqueue(LongStream.range(0, n).boxed(), i -> JobRunrPeer.noop());
                } else {
                    scheduler.enqueue(LongStream.range(0, n).boxed(), i -> JobRunrPeer.sleep1());
                }
            }

            @Override
            void start() throws SQLException {
                Workers.analyze(target, "jobrunr_jobs");
                server[0] = server(threads);
            }

            @Override
            public long completed() {
                return DONE.sum();
            }
        };
        try {
            return Harness.observe(profile, work);
        } finally {
            if (server[0] != null) {
                server[0].stop();
            }
            clear();
        }
    }

    @Override
    public Harness.Measurement enqueue(Profile profile, int threads, int batch) throws Exception {
        clear();
        try {
            List<Long> ids = LongStream.range(0, batch).boxed().toList();
            return Harness.measure(profile, threads, (thread, n) -> {
                if (batch == 1) {
                    scheduler.enqueue(() -> JobRunrPeer.noop());
                } else {
                    scheduler.enqueue(ids.stream(), i -> JobRunrPeer.noop());
                }
                return batch;
            });
        } finally {
            clear();
        }
    }

    @Override
    public Harness.Measurement latency(Profile profile, int threads) throws Exception {
        clear();
        BackgroundJobServer[] server = {null};
        Workers.StartLatency l = new Workers.StartLatency(Bench.TRICKLE_PER_SECOND) {
            @Override
            void enqueue(long nanos) {
                scheduler.enqueue(() -> JobRunrPeer.started(nanos));
            }

            @Override
            void startConsumer() {
                server[0] = server(threads);
            }

            @Override
            void stopConsumer() {
                server[0].stop();
            }
        };
        latency = l;
        try (l) {
            return Harness.observe(profile, l);
        } finally {
            latency = null;
            clear();
        }
    }

    @Override
    public void close() {
        storage.close();
    }
}
