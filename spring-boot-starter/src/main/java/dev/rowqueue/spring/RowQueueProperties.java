package dev.rowqueue.spring;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.WorkerOptions;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code rowqueue.*} configuration properties. Unset values mean rowqueue's own defaults (or the dialect's, where
 * the API says so).
 *
 * <pre>
 * rowqueue.claim-concurrency=4
 * rowqueue.work-queues.emails.lease=2m
 * rowqueue.work-queues.emails.max-attempts=10
 * rowqueue.work-queues.emails.worker.threads=4
 * rowqueue.rings.recent_views.capacity=100
 * rowqueue.health.dead-letter-threshold=0
 * </pre>
 *
 * <p>Queue names are matched case-insensitively, as rowqueue folds them to lower case. In a properties or YAML file a
 * name is written as is ({@code rowqueue.work-queues.order_events.lease=2m}, or in brackets); environment variables
 * cannot tell a name's underscores from separators, so set per-queue options in a file.
 */
@ConfigurationProperties(prefix = "rowqueue")
public class RowQueueProperties {

    /** Whether rowqueue is auto-configured at all. */
    private boolean enabled = true;

    /**
     * Whether missing tables are created on first use. Turn it off when Flyway or Liquibase manage the schema
     * (RowQueues#schema() gives the DDL).
     */
    private boolean createSchema = true;

    /**
     * Whether this instance counts what its work queues do per minute for WorkQueue#activity() (written once a
     * minute, all queues in one statement). Off: this instance writes nothing, and activity() shows what others wrote.
     */
    private boolean recordActivity = true;

    /** At most this many claims of one work queue run at once through this instance. Unset: the dialect's. */
    private Integer claimConcurrency;

    /** The longest sleep between polls of a blocking claim, on databases that cannot wake a waiting claimer. */
    private Duration pollInterval = Duration.ofMillis(200);

    /** The longest payload accepted, in characters. Unset: what the dialect's column holds. */
    private Integer maxPayloadLength;

    /** The dialect to use (for example "h2", "postgresql", "portable") instead of detecting it. */
    private String dialect;

    /** Dialect-specific options, as the dialect module documents them. */
    private Map<String, String> dialectOptions = new LinkedHashMap<>();

    /** How transient database failures (deadlocks, serialization failures, lost connections) are retried. */
    private final Retry retry = new Retry();

    /** Joining Spring-managed transactions. */
    private final Transactions transactions = new Transactions();

    /** Options of work queues by name, used by ConfiguredQueues and by workers declared as beans. */
    private Map<String, WorkQueue> workQueues = new LinkedHashMap<>();

    /** Options of ring queues by name, used by ConfiguredQueues#ring(String). */
    private Map<String, Ring> rings = new LinkedHashMap<>();

    /** Workers declared as WorkerDefinition beans. */
    private final Workers workers = new Workers();

    /** The rowqueue health indicator. */
    private final Health health = new Health();

    /** Micrometer meters and job observations, when rowqueue-micrometer and a MeterRegistry are present. */
    private final Metrics metrics = new Metrics();

    /** The operator console, when rowqueue-console is on the class path of a servlet web application. */
    private final Console console = new Console();

    /** The scheduler of recurring jobs. */
    private final Scheduler scheduler = new Scheduler();

    /** Schedules (recurring jobs) by name, defined at startup. */
    private Map<String, ScheduleEntry> schedules = new LinkedHashMap<>();

    public Scheduler getScheduler() {
        return scheduler;
    }

    public Map<String, ScheduleEntry> getSchedules() {
        return schedules;
    }

    public void setSchedules(Map<String, ScheduleEntry> schedules) {
        this.schedules = schedules;
    }

    /** {@code rowqueue.scheduler.*}. */
    public static class Scheduler {
        /**
         * Whether this application fires due schedules. Unset: it does when it defines any (beans or
         * {@code rowqueue.schedules.*}); {@code true}: always (a node that only fires schedules others defined);
         * {@code false}: never.
         */
        private Boolean enabled;

        /** How often the due schedules are selected: one statement per poll for all of them. */
        private Duration pollInterval = Duration.ofSeconds(1);

        public Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }

    /** {@code rowqueue.schedules.<name>.*}: one schedule. */
    public static class ScheduleEntry {
        /** A cron expression (in {@code zone}), or rate:PT10S, delay:PT1M, cron:<expression>@<zone>. */
        private String schedule;
        /** The work queue its jobs go into. */
        private String queue;
        /** The payload template ({slot}, {slot_ms}, {schedule}); unset: the default. */
        private String payload;
        /** The job key template; unset: none. */
        private String key;
        /** The cron expression's zone; unset: UTC. */
        private String zone;
        /** SKIP, ONCE (default) or EACH:<cap>. */
        private String missed;
        /** Whether a stored definition that differs is replaced (otherwise startup fails with the conflict). */
        private boolean replace;

        public String getSchedule() {
            return schedule;
        }

        public void setSchedule(String schedule) {
            this.schedule = schedule;
        }

        public String getQueue() {
            return queue;
        }

        public void setQueue(String queue) {
            this.queue = queue;
        }

        public String getPayload() {
            return payload;
        }

        public void setPayload(String payload) {
            this.payload = payload;
        }

        public String getKey() {
            return key;
        }

        public void setKey(String key) {
            this.key = key;
        }

        public String getZone() {
            return zone;
        }

        public void setZone(String zone) {
            this.zone = zone;
        }

        public String getMissed() {
            return missed;
        }

        public void setMissed(String missed) {
            this.missed = missed;
        }

        public boolean isReplace() {
            return replace;
        }

        public void setReplace(boolean replace) {
            this.replace = replace;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isCreateSchema() {
        return createSchema;
    }

    public void setCreateSchema(boolean createSchema) {
        this.createSchema = createSchema;
    }

    public boolean isRecordActivity() {
        return recordActivity;
    }

    public void setRecordActivity(boolean recordActivity) {
        this.recordActivity = recordActivity;
    }

    public Integer getClaimConcurrency() {
        return claimConcurrency;
    }

    public void setClaimConcurrency(Integer claimConcurrency) {
        this.claimConcurrency = claimConcurrency;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Integer getMaxPayloadLength() {
        return maxPayloadLength;
    }

    public void setMaxPayloadLength(Integer maxPayloadLength) {
        this.maxPayloadLength = maxPayloadLength;
    }

    public String getDialect() {
        return dialect;
    }

    public void setDialect(String dialect) {
        this.dialect = dialect;
    }

    public Map<String, String> getDialectOptions() {
        return dialectOptions;
    }

    public void setDialectOptions(Map<String, String> dialectOptions) {
        this.dialectOptions = dialectOptions;
    }

    public Retry getRetry() {
        return retry;
    }

    public Transactions getTransactions() {
        return transactions;
    }

    public Map<String, WorkQueue> getWorkQueues() {
        return workQueues;
    }

    public void setWorkQueues(Map<String, WorkQueue> workQueues) {
        this.workQueues = workQueues;
    }

    public Map<String, Ring> getRings() {
        return rings;
    }

    public void setRings(Map<String, Ring> rings) {
        this.rings = rings;
    }

    public Workers getWorkers() {
        return workers;
    }

    public Health getHealth() {
        return health;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Console getConsole() {
        return console;
    }

    /**
     * @param name a work queue's name
     * @return its configured options, or {@code null} if none are configured
     */
    WorkQueue workQueue(String name) {
        return byName(workQueues, name);
    }

    /**
     * @param name a ring's name
     * @return its configured options, or {@code null} if none are configured
     */
    Ring ring(String name) {
        return byName(rings, name);
    }

    private static <T> T byName(Map<String, T> map, String name) {
        T exact = map.get(name);
        if (exact != null) {
            return exact;
        }
        String folded = name.toLowerCase(Locale.ROOT);
        for (Map.Entry<String, T> e : map.entrySet()) {
            if (e.getKey().toLowerCase(Locale.ROOT).equals(folded)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** {@code rowqueue.retry.*}: how transient failures are retried; unset fields take RetryPolicy's defaults. */
    public static class Retry {

        /** Attempts per operation, the first included (1: no retry). Unset, with the other two: the dialect's policy. */
        private Integer maxAttempts;

        /** The backoff before the first retry, doubled per retry. Unset: 5 ms. */
        private Duration initialBackoff;

        /** The longest backoff between two attempts. Unset: 500 ms. */
        private Duration maxBackoff;

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        /** @return the policy these properties describe, or {@code null} for the dialect's when none is set */
        RetryPolicy toPolicy() {
            if (maxAttempts == null && initialBackoff == null && maxBackoff == null) {
                return null;
            }
            RetryPolicy d = RetryPolicy.defaults();
            return new RetryPolicy(maxAttempts != null ? maxAttempts : d.maxAttempts(),
                    initialBackoff != null ? initialBackoff : d.initialBackoff(),
                    maxBackoff != null ? maxBackoff : d.maxBackoff());
        }
    }

    /** {@code rowqueue.transactions.*}. */
    public static class Transactions {

        /**
         * Whether operations (enqueue, push, increment, ...) called inside a Spring-managed transaction on the
         * application's DataSource join it, committing or rolling back with it. Outside one they always run in a
         * transaction of their own. Workers never join.
         */
        private boolean join = true;

        public boolean isJoin() {
            return join;
        }

        public void setJoin(boolean join) {
            this.join = join;
        }
    }

    /** {@code rowqueue.work-queues.<name>.*}: one work queue's options; unset fields take the API's defaults. */
    public static class WorkQueue {

        /** Attempts before a job becomes a dead letter. Unset: 5. */
        private Integer maxAttempts;

        /** How long a claimed job belongs to its consumer before it may be claimed again. Unset: 60 s. */
        private Duration lease;

        /** The delay before the first retry of a failed job, doubled per failure. Unset: 10 s. */
        private Duration retryBackoff;

        /** The longest delay before a retry. Unset: 1 h. */
        private Duration maxRetryDelay;

        /**
         * How many jobs of one key may be leased at once, across every consumer and node; 0: no limit. Every consumer
         * of the queue must use the same value. Unset: no limit.
         */
        private Integer maxLeasedPerKey;

        /** Whether claims take turns between keys instead of following priority, due time and id. Unset: false. */
        private Boolean fairClaims;

        /**
         * How many jobs claims may start in any window of {@code rate-window}, across every consumer and node (1 to
         * 100,000); set with {@code rate-window}. Every consumer of the queue must use the same limit. Unset: no limit.
         */
        private Integer rateLimit;

        /** The window of {@code rate-limit} (1 ms to 1 day); set with {@code rate-limit}. */
        private Duration rateWindow;

        /** Options of workers of this queue declared as beans without explicit WorkerOptions. */
        private final Worker worker = new Worker();

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public Duration getRetryBackoff() {
            return retryBackoff;
        }

        public void setRetryBackoff(Duration retryBackoff) {
            this.retryBackoff = retryBackoff;
        }

        public Duration getMaxRetryDelay() {
            return maxRetryDelay;
        }

        public void setMaxRetryDelay(Duration maxRetryDelay) {
            this.maxRetryDelay = maxRetryDelay;
        }

        public Integer getMaxLeasedPerKey() {
            return maxLeasedPerKey;
        }

        public void setMaxLeasedPerKey(Integer maxLeasedPerKey) {
            this.maxLeasedPerKey = maxLeasedPerKey;
        }

        public Boolean getFairClaims() {
            return fairClaims;
        }

        public void setFairClaims(Boolean fairClaims) {
            this.fairClaims = fairClaims;
        }

        public Integer getRateLimit() {
            return rateLimit;
        }

        public void setRateLimit(Integer rateLimit) {
            this.rateLimit = rateLimit;
        }

        public Duration getRateWindow() {
            return rateWindow;
        }

        public void setRateWindow(Duration rateWindow) {
            this.rateWindow = rateWindow;
        }

        public Worker getWorker() {
            return worker;
        }

        /**
         * @param base the options to start from
         * @return {@code base} with the fields set here
         * @throws IllegalArgumentException for a value the options refuse, or a rate limit without its window (or the
         *                                  other way round)
         */
        WorkQueueOptions applyTo(WorkQueueOptions base) {
            WorkQueueOptions o = base;
            if (maxAttempts != null) {
                o = o.withMaxAttempts(maxAttempts);
            }
            if (lease != null) {
                o = o.withLeaseDuration(lease);
            }
            if (retryBackoff != null || maxRetryDelay != null) {
                o = o.withRetryBackoff(retryBackoff != null ? retryBackoff : o.retryBackoff(),
                        maxRetryDelay != null ? maxRetryDelay : o.maxRetryDelay());
            }
            if (maxLeasedPerKey != null) {
                o = o.withMaxLeasedPerKey(maxLeasedPerKey);
            }
            if (fairClaims != null) {
                o = o.withFairClaims(fairClaims);
            }
            if (rateLimit != null || rateWindow != null) {
                if (rateLimit == null || rateWindow == null) {
                    throw new IllegalArgumentException("rate-limit and rate-window are set together (for example"
                            + " rate-limit=50 and rate-window=1s), got rate-limit=" + rateLimit + " and rate-window="
                            + rateWindow);
                }
                o = o.withRateLimit(rateLimit, rateWindow);
            }
            return o;
        }
    }

    /** {@code rowqueue.work-queues.<name>.worker.*}: unset fields take WorkerOptions' defaults. */
    public static class Worker {

        /** Handler threads. Unset: the JVM's processors. */
        private Integer threads;

        /**
         * The most jobs claimed beyond the free handler threads, 0 to 16 x threads. Set alone, a fixed prefetch (no
         * window). Unset: 4 x threads, within the prefetch window.
         */
        private Integer prefetch;

        /**
         * Prefetch only jobs expected to start within this window, at the handler times seen so far (with prefetch
         * as the most). Unset: WorkerOptions' default (100 ms) unless prefetch is set.
         */
        private Duration prefetchWindow;

        /** How often running jobs' leases are extended. Unset: a third of the lease. */
        private Duration heartbeat;

        /**
         * How long shutdown waits for running handlers before interrupting them; capped by the shutdown phase's
         * time (spring.lifecycle.timeout-per-shutdown-phase). Unset: 30 s.
         */
        private Duration drainTimeout;

        public Integer getThreads() {
            return threads;
        }

        public void setThreads(Integer threads) {
            this.threads = threads;
        }

        public Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(Integer prefetch) {
            this.prefetch = prefetch;
        }

        public Duration getPrefetchWindow() {
            return prefetchWindow;
        }

        public void setPrefetchWindow(Duration prefetchWindow) {
            this.prefetchWindow = prefetchWindow;
        }

        public Duration getHeartbeat() {
            return heartbeat;
        }

        public void setHeartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
        }

        public Duration getDrainTimeout() {
            return drainTimeout;
        }

        public void setDrainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
        }

        /**
         * @param base the options to start from
         * @return {@code base} with the fields set here
         */
        WorkerOptions applyTo(WorkerOptions base) {
            WorkerOptions o = base;
            if (threads != null) {
                o = o.withThreads(threads);
            }
            if (prefetch != null) {
                o = o.withPrefetch(prefetch);
            }
            if (prefetchWindow != null) {
                o = o.withPrefetchWindow(prefetchWindow);
            }
            if (heartbeat != null) {
                o = o.withHeartbeat(heartbeat);
            }
            if (drainTimeout != null) {
                o = o.withDrainTimeout(drainTimeout);
            }
            return o;
        }
    }

    /** {@code rowqueue.rings.<name>.*}: one ring queue's options. */
    public static class Ring {

        /** How many entries each group keeps. Required for ConfiguredQueues#ring(String). */
        private Integer capacity;

        /** How pushes keep the cap. */
        private RingStrategy strategy = RingStrategy.SAFE;

        public Integer getCapacity() {
            return capacity;
        }

        public void setCapacity(Integer capacity) {
            this.capacity = capacity;
        }

        public RingStrategy getStrategy() {
            return strategy;
        }

        public void setStrategy(RingStrategy strategy) {
            this.strategy = strategy;
        }
    }

    /** {@code rowqueue.workers.*}. */
    public static class Workers {

        /**
         * Whether workers declared as beans start with the application context. When false, start them with the
         * RowQueueWorkers bean's start().
         */
        private boolean autoStartup = true;

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }
    }

    /** {@code rowqueue.metrics.*}: used when rowqueue-micrometer is on the class path and a MeterRegistry exists. */
    public static class Metrics {

        /** Whether rowqueue's operations and worker beans are metered. */
        private boolean enabled = true;

        /**
         * Whether each job a worker bean runs is one Micrometer Observation (rowqueue.job: a span with tracing, a
         * timer), when an ObservationRegistry exists.
         */
        private boolean observeJobs = true;

        /**
         * Whether the work queues named in rowqueue.work-queues.* and those of worker beans get queue depth gauges
         * (rowqueue.queue.jobs by state) at start.
         */
        private boolean depthGauges = true;

        /** The depth gauges query the database at most once per this interval per queue. */
        private Duration depthRefresh = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isObserveJobs() {
            return observeJobs;
        }

        public void setObserveJobs(boolean observeJobs) {
            this.observeJobs = observeJobs;
        }

        public boolean isDepthGauges() {
            return depthGauges;
        }

        public void setDepthGauges(boolean depthGauges) {
            this.depthGauges = depthGauges;
        }

        public Duration getDepthRefresh() {
            return depthRefresh;
        }

        public void setDepthRefresh(Duration depthRefresh) {
            this.depthRefresh = depthRefresh;
        }
    }

    /** {@code rowqueue.console.*}: the operator console (rowqueue-console), mounted in the application's servlet container. */
    public static class Console {

        /** How the console's requests are authenticated. */
        public enum Auth {
            /** Spring Security when the application has it (a springSecurityFilterChain), the console's token otherwise. */
            AUTO,
            /** The application's Spring Security: it signs people in; the console checks that someone is. */
            SPRING_SECURITY,
            /** The console's own token (rowqueue.console.token): a sign-in form, sessions, and bearer requests. */
            TOKEN
        }

        /** Whether the console is served. Off unless set. */
        private boolean enabled;

        /** Where the console is mounted, below the application's context path. */
        private String path = "/rowqueue";

        /** Whether the console serves no change at all (no revive, no purge, no buttons). */
        private boolean readOnly;

        /** Who authenticates the console's requests. */
        private Auth auth = Auth.AUTO;

        /**
         * The console's own token, at least 16 characters, when it authenticates by itself (no Spring Security): for the
         * sign-in form and Authorization: Bearer. The environment variable ROWQUEUE_CONSOLE_TOKEN sets it too.
         */
        private String token;

        /** Behind Spring Security, the role an operator needs (e.g. RQ_OPERATOR). Unset: any authenticated user. */
        private String role;

        /** How often open pages refresh, and how long the console reuses what it read. */
        private Duration refresh = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public boolean isReadOnly() {
            return readOnly;
        }

        public void setReadOnly(boolean readOnly) {
            this.readOnly = readOnly;
        }

        public Auth getAuth() {
            return auth;
        }

        public void setAuth(Auth auth) {
            this.auth = auth;
        }

        public String getToken() {
            return token;
        }

        public void setToken(String token) {
            this.token = token;
        }

        public String getRole() {
            return role;
        }

        public void setRole(String role) {
            this.role = role;
        }

        public Duration getRefresh() {
            return refresh;
        }

        public void setRefresh(Duration refresh) {
            this.refresh = refresh;
        }
    }

    /** {@code rowqueue.health.*}. */
    public static class Health {

        /**
         * The health indicator reports WARNING (not DOWN) when a work queue holds more dead letters than this.
         * 0: any dead letter warns.
         */
        private long deadLetterThreshold = 0;

        public long getDeadLetterThreshold() {
            return deadLetterThreshold;
        }

        public void setDeadLetterThreshold(long deadLetterThreshold) {
            this.deadLetterThreshold = deadLetterThreshold;
        }
    }
}
