package dev.rowqueue.internal;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobHandler;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RateWindow;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.JobRules;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The {@link WorkQueue} implementation: each operation does its work and nothing else; where operation listeners are
 * registered, callers get it inside an {@link ObservedWorkQueue} ({@link DefaultRowQueues.Context#handle}).
 */
final class DefaultWorkQueue implements WorkerQueue {
    /** The first poll interval of a blocking claim; doubled up to the configured poll interval. */
    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final String name;
    private final WorkQueueOptions options;
    private final WorkStore store;
    private final DefaultRowQueues.Context context;
    private final ClaimRule rule;
    /**
     * Tokens of this handle's claims that failed with an unknown outcome, each with when it is dropped
     * ({@link System#nanoTime()}): the jobs they may have leased are given back, attempts unchanged, before its next
     * claims. A killed session can still commit after the client saw it fail (the server finishes the statement),
     * so a token is looked for again, at most every {@link #RESOLVE_EVERY_NANOS}, until two leases have passed.
     */
    private final Map<Long, Long> unknownClaims = new ConcurrentHashMap<>();
    private static final long RESOLVE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private volatile long nextResolve;

    DefaultWorkQueue(String name, WorkQueueOptions options, WorkStore store, DefaultRowQueues.Context context) {
        this.name = name;
        this.options = options;
        this.store = store;
        this.context = context;
        this.rule = new ClaimRule(options.maxLeasedPerKey(), options.fairClaims(), options.rateLimit(),
                options.rateWindow().toMillis());
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Producer side: creates the queue if it does not exist yet (with schema creation on), at most once per instance.
     */
    private void created() {
        context.lifecycle().check();
        context.schema().ensure(SchemaManager.Definition.of(name, QueueKind.WORK));
    }

    /**
     * Consumer side: whether the queue exists; never creates it. A missing queue is logged once per queue.
     */
    private boolean present() {
        context.lifecycle().check();
        return context.schema().exists(SchemaManager.Definition.of(name, QueueKind.WORK));
    }

    @Override
    public WorkQueue create() {
        created();
        return this;
    }

    @Override
    public WorkQueueOptions options() {
        return options;
    }

    @Override
    public long enqueue(String payload) {
        return enqueue(payload, Enqueue.defaults());
    }

    @Override
    public long enqueue(String payload, Enqueue how) {
        Objects.requireNonNull(how, "how");
        Validation.payload(payload, context.maxPayloadLength());
        long delay = Validation.notNegative("delay", how.delay());
        created();
        long id = context.executor().run("enqueue into " + name, enqueue(List.of(payload), how, delay))[0];
        context.activity().record(name, ActivityRecorder.ENQUEUED, 1);
        if (delay == 0) {
            context.claimable(name);
        }
        return id;
    }

    /** The store's enqueue, with the keys of {@code how} (validated by {@link Enqueue}) where it has any. */
    /**
     * An enqueue refused for a duplicate key applied nothing (the statement, or the enqueue's transaction, was undone),
     * so it is tried again: a unique key that a concurrent enqueue took is found, and an id the server handed out twice
     * (MySQL Group Replication did, after the whole group was killed and restarted) is replaced by a fresh one.
     */
    private dev.rowqueue.spi.SqlOp<long[]> enqueue(List<String> payloads, Enqueue how, long delay) {
        if (how.uniqueKey() != null) {
            // the unique index is what keeps one live job per unique key: without it, refuse before any write
            context.schema().requireGuarantees(SchemaManager.Definition.of(name, QueueKind.WORK), "unique enqueues");
        }
        if (how.key() == null && how.uniqueKey() == null) {
            return store.enqueue(payloads, how.priority(), delay).retryingDuplicateKey();
        }
        return store.enqueue(payloads, how.priority(), delay, how.key(), how.uniqueKey()).retryingDuplicateKey();
    }

    @Override
    public List<Long> enqueueAll(List<String> payloads, Enqueue how) {
        Objects.requireNonNull(how, "how");
        List<String> checked = Validation.payloads(payloads, context.maxPayloadLength());
        long delay = Validation.notNegative("delay", how.delay());
        if (how.uniqueKey() != null && checked.size() > 1) {
            throw new IllegalArgumentException("a unique key names one job, but " + checked.size() + " payloads were"
                    + " given with unique key '" + how.uniqueKey() + "'; enqueue them one by one with their own unique"
                    + " keys; nothing was written");
        }
        created();
        long[] ids = context.executor().run("enqueue into " + name, enqueue(checked, how, delay));
        context.activity().record(name, ActivityRecorder.ENQUEUED, ids.length);
        if (delay == 0) {
            context.claimable(name);
        }
        List<Long> result = new ArrayList<>(ids.length);
        for (long id : ids) {
            result.add(id);
        }
        return Collections.unmodifiableList(result);
    }

    /** @return a new lease token, carrying this node's id ({@link NodeRegistry#token()}) */
    private long newToken() {
        return context.node().token();
    }

    private long leaseMillis() {
        return Validation.positive("leaseDuration", options.leaseDuration());
    }

    @Override
    public List<Job> claim(int max) {
        Validation.batch("claim batch size", max);
        if (!present()) {
            return List.of();
        }
        return claimCombined(new long[0], new long[0], max).claimed();
    }

    @Override
    public List<Job> claim(int max, Duration maxWait) {
        Validation.batch("claim batch size", max);
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(Validation.notNegative("maxWait", maxWait));
        long deadline = System.nanoTime() + waitNanos;
        WakeupSource wakeups = context.waitOn();
        boolean polls = context.waitOnPolls();
        long pause = FIRST_POLL_NANOS;
        long maxPause = context.pollInterval().toNanos();
        while (true) {
            // the ticket is taken before the claim looks, so a signal sent after an empty claim is not lost
            WakeupSource.Ticket ticket = waitNanos == 0 ? null : wakeups.ticket(WorkTables.of(name));
            List<Job> jobs = claim(max);
            long left = deadline - System.nanoTime();
            if (!jobs.isEmpty() || left <= 0) {
                return jobs;
            }
            try {
                if (!polls) {
                    ticket.await(left);
                } else {
                    ticket.await(Math.min(pause, left));
                    pause = Math.min(pause * 2, maxPause);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransientRowQueueException("interrupted while waiting for jobs in " + name, e);
            }
        }
    }

    /**
     * A claim raises the attempts of a job whose previous lease ended without ack ({@link JobRules#lease}). If that
     * exhausted the job's attempts ({@link JobRules#exhausted(int, int)}), it is made dead here instead of being
     * delivered once more.
     */
    private List<Job> buryExhausted(DefaultRowQueues.Context ctx, List<Job> claimed) {
        int max = options.maxAttempts();
        if (claimed.stream().noneMatch(j -> JobRules.exhausted(j.failures(), max))) {
            return claimed;
        }
        long token = claimed.get(0).leaseToken();
        List<Job> deliver = new ArrayList<>();
        List<Long> exhausted = new ArrayList<>();
        for (Job job : claimed) {
            if (JobRules.exhausted(job.failures(), max)) {
                exhausted.add(job.id());
            } else {
                deliver.add(job);
            }
        }
        long[] ids = exhausted.stream().mapToLong(Long::longValue).toArray();
        int buried = ctx.executor().run("move exhausted jobs of " + name + " to dead letters", "work " + name,
                store.bury(ids, token, "lease expired without ack " + max + " times (consumer crashed or stalled)"));
        ctx.activity().record(name, ActivityRecorder.FAILED, buried);
        return deliver;
    }

    @Override
    public boolean ack(Job job) {
        Validation.job(job);
        boolean acked = context.executor().run("ack job " + job.id() + " of " + name, "work " + name,
                store.ack(job.id(), job.leaseToken()));
        if (acked) {
            context.activity().record(name, ActivityRecorder.FINISHED, 1);
        }
        return acked;
    }

    @Override
    public Handoff ackAndClaim(Collection<Job> done, int max) {
        Objects.requireNonNull(done, "done");
        Validation.batch("claim batch size", max);
        if (done.size() > Validation.MAX_BATCH) {
            throw new IllegalArgumentException("at most " + Validation.MAX_BATCH + " jobs can be acked at once, got "
                    + done.size());
        }
        List<Job> jobs = new ArrayList<>(done.size());
        Set<Long> seen = new HashSet<>();
        for (Job job : done) {
            Validation.job(job);
            if (!seen.add(job.id())) {
                throw new IllegalArgumentException("job " + job.id() + " is given twice to ack");
            }
            jobs.add(job);
        }
        long[] ids = new long[jobs.size()];
        long[] tokens = new long[jobs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = jobs.get(i).id();
            tokens[i] = jobs.get(i).leaseToken();
        }
        if (ids.length == 0 && !present()) {
            return new Handoff(List.of(), List.of());
        }
        WorkStore.AckedAndClaimed result = claimCombined(ids, tokens, max);
        context.activity().record(name, ActivityRecorder.FINISHED, result.acked().size());
        List<Job> lost = new ArrayList<>();
        for (Job job : jobs) {
            if (!result.acked().contains(job.id())) {
                lost.add(job);
            }
        }
        return new Handoff(result.claimed(), lost);
    }

    /**
     * Acks (possibly none) and claims through the queue's gate, where the claim may run together with others of this
     * queue that wait ({@code RowQueues.Builder#claimConcurrency}); this caller's jobs that exhausted their attempts
     * are made dead instead of delivered.
     */
    private WorkStore.AckedAndClaimed claimCombined(long[] ids, long[] tokens, int max) {
        // in a caller's transaction (transaction binding) the claim runs there and passes no gate: it must not carry
        // other threads' claims
        return context.current("claim from " + name, ctx -> {
            resolveUnknownClaims(ctx);
            // claims under a per-key or a rate limit take turns in the database: one at a time here too, the others
            // riding along
            ClaimGates.Request request = new ClaimGates.Request(ids, tokens, max, leaseMillis(), rule,
                    rule.limited() || rule.rateLimited());
            WorkStore.AckedAndClaimed result = ctx.claimGates().combined(name, request,
                    (allIds, allTokens, n, leaseMs) -> {
                        // the token is made here, so a claim whose outcome is unknown can be found and undone
                        long token = newToken();
                        long sent = System.nanoTime();
                        try {
                            WorkStore.AckedAndClaimed r = allIds.length == 0
                                    ? new WorkStore.AckedAndClaimed(Set.of(), ctx.executor().run("claim from " + name,
                                            "work " + name, store.claim(n, leaseMs, token, rule)))
                                    : ctx.executor().run("ack " + allIds.length + " jobs of " + name
                                            + " and claim from " + name, "work " + name,
                                            store.ackAndClaim(allIds, allTokens, n, leaseMs, token, rule));
                            return arrivedInTime(r, token, sent, leaseMs);
                        } catch (UnknownCommitOutcomeException e) {
                            giveBackLater(token, leaseMs);
                            throw e;
                        }
                    });
            List<Job> delivered = buryExhausted(ctx, result.claimed());
            ctx.activity().started(name, delivered); // counted in memory: the wait from enqueue of first attempts
            return new WorkStore.AckedAndClaimed(result.acked(), delivered);
        });
    }

    /**
     * A claim's leases began, in the database, no earlier than the claim was sent. One whose answer came back after
     * its lease (less the clock margin, a tenth of the lease and at most 250 ms) may have ended hands out nothing: a
     * stalled server or network can deliver a claim that late (a Galera node stopped for 20 s answered 10 s after
     * another consumer had claimed, run and acked the same jobs), and a job handed out then could run again after its
     * ack. Its jobs are given back, attempts unchanged, as those of a claim of unknown outcome are.
     */
    private WorkStore.AckedAndClaimed arrivedInTime(WorkStore.AckedAndClaimed r, long token, long sent, long leaseMs) {
        long took = System.nanoTime() - sent;
        long margin = WorkerOptions.defaults().leaseMarginFor(Duration.ofMillis(leaseMs)).toMillis();
        if (r.claimed().isEmpty() || took < TimeUnit.MILLISECONDS.toNanos(leaseMs - margin)) {
            return r;
        }
        org.slf4j.LoggerFactory.getLogger(DefaultWorkQueue.class).warn("rowqueue: {}: a claim answered after {} ms,"
                + " past its lease of {} ms: its {} jobs are not handed out (another consumer may hold them by now) and"
                + " are given back", name, TimeUnit.NANOSECONDS.toMillis(took), leaseMs, r.claimed().size());
        giveBackLater(token, leaseMs);
        return new WorkStore.AckedAndClaimed(r.acked(), List.of());
    }

    /** Has the next claim give back the jobs leased under a token, looking for them for two leases. */
    private void giveBackLater(long token, long leaseMs) {
        unknownClaims.put(token, System.nanoTime() + 2 * TimeUnit.MILLISECONDS.toNanos(leaseMs));
        nextResolve = System.nanoTime();
    }

    /**
     * Gives back the jobs leased by this handle's claims of unknown outcome, attempts unchanged: nobody received them.
     * A failure leaves the tokens for the next claim, which fails with it.
     */
    private void resolveUnknownClaims(DefaultRowQueues.Context ctx) {
        long now = System.nanoTime();
        if (unknownClaims.isEmpty() || now - nextResolve < 0) {
            return;
        }
        nextResolve = now + RESOLVE_EVERY_NANOS;
        List<Long> tokens = new ArrayList<>(unknownClaims.keySet());
        long[] each = tokens.stream().mapToLong(Long::longValue).toArray();
        int released = ctx.executor().run("give back the jobs of claims from " + name + " whose outcome was"
                + " unknown", store.releaseLeased(each));
        for (Long token : tokens) {
            unknownClaims.computeIfPresent(token, (t, until) -> now - until >= 0 ? null : until);
        }
        if (released > 0) {
            org.slf4j.LoggerFactory.getLogger(DefaultWorkQueue.class).info("rowqueue: {}: claims whose outcome"
                    + " was unknown had leased {} jobs; given back, no attempt counted", name, released);
        }
    }

    @Override
    public boolean nack(Job job) {
        Validation.job(job);
        return nack(job, options.retryDelay(job.failures() + 1), null);
    }

    @Override
    public boolean nack(Job job, Duration retryDelay) {
        return nack(job, retryDelay, null);
    }

    @Override
    public boolean nack(Job job, Duration retryDelay, String error) {
        Validation.job(job);
        long delay = Validation.notNegative("retryDelay", retryDelay);
        String text = Validation.errorText(error, Dialect.ERROR_LENGTH);
        boolean nacked = context.executor().run("nack job " + job.id() + " of " + name, "work " + name,
                store.nack(job.id(), job.leaseToken(), delay, options.maxAttempts(), text));
        if (nacked) {
            context.activity().record(name, ActivityRecorder.FAILED, 1);
            if (delay == 0) {
                context.claimable(name);
            }
        }
        return nacked;
    }

    @Override
    public boolean release(Job job) {
        Validation.job(job);
        boolean released = context.executor().run("release job " + job.id() + " of " + name, "work " + name,
                store.release(job.id(), job.leaseToken()));
        if (released) {
            context.claimable(name);
        }
        return released;
    }

    @Override
    public boolean extendLease(Job job, Duration leaseDuration) {
        Validation.job(job);
        long lease = Validation.positive("leaseDuration", leaseDuration);
        return context.executor().run("extend lease of job " + job.id() + " of " + name, "work " + name,
                store.extend(job.id(), job.leaseToken(), lease));
    }

    @Override
    public List<Job> rotate(String cursor, int max) {
        if (rule.limited()) {
            throw new IllegalStateException("rotate does not apply a per-key limit; this handle of " + name
                    + " claims with maxLeasedPerKey(" + options.maxLeasedPerKey() + "), so it cannot rotate");
        }
        if (rule.rateLimited()) {
            throw new IllegalStateException("rotate does not apply a rate limit; this handle of " + name
                    + " claims with rateLimit(" + options.rateLimit() + ", " + options.rateWindow()
                    + "), so it cannot rotate");
        }
        String c = Validation.cursor(cursor, Dialect.KEY_LENGTH);
        Validation.batch("rotate batch size", max);
        if (!present()) {
            return List.of();
        }
        long token = newToken();
        return context.current("rotate " + name, ctx -> buryExhausted(ctx, ctx.claimGates().alone(name,
                () -> ctx.executor().run("rotate " + name + " with cursor " + c, "work " + name,
                        store.rotate(c, max, leaseMillis(), token)))));
    }

    @Override
    public List<Job> deadLetters(int limit) {
        Validation.positive("limit", limit);
        if (!present()) {
            return List.of();
        }
        return List.copyOf(context.executor().run("list dead letters of " + name, store.dead(limit)));
    }

    @Override
    public boolean revive(long id) {
        if (!present()) {
            return false;
        }
        boolean revived = context.executor().run("revive job " + id + " of " + name,
                store.revive(OptionalLong.of(id))) > 0;
        if (revived) {
            context.claimable(name);
        }
        return revived;
    }

    @Override
    public int reviveAll() {
        if (!present()) {
            return 0;
        }
        int revived = context.executor().run("revive dead letters of " + name, store.revive(OptionalLong.empty()));
        if (revived > 0) {
            context.claimable(name);
        }
        return revived;
    }

    @Override
    public int purgeDead() {
        if (!present()) {
            return 0;
        }
        return context.executor().run("purge dead letters of " + name, store.purgeDead());
    }

    @Override
    public QueueStats stats() {
        if (!present()) {
            return new QueueStats(0, 0, 0, 0);
        }
        return context.executor().run("count jobs of " + name, store.stats());
    }

    @Override
    public Optional<RateWindow> rateWindow() {
        if (!present()) {
            return Optional.empty();
        }
        return context.executor().run("read the rate window of " + name, store.rateWindow());
    }

    @Override
    public Map<String, QueueStats> statsByKey(int limit) {
        Validation.batch("key limit", limit);
        if (!present()) {
            return Map.of();
        }
        return context.executor().run("count jobs of " + name + " by key", store.statsByKey(limit));
    }

    @Override
    public Optional<JobInfo> job(long id) {
        Validation.jobId(id);
        if (!present()) {
            return Optional.empty();
        }
        return context.executor().run("look up job " + id + " of " + name, store.job(id));
    }

    @Override
    public JobPage jobs(JobQuery q) {
        Objects.requireNonNull(q, "query");
        if (!present()) {
            return new JobPage(q, List.of(), false);
        }
        // one more than the page, to tell whether another page follows
        List<JobInfo> jobs = context.executor().run("list jobs of " + name,
                store.jobs(q.state(), q.key(), q.descending(), q.after(), q.limit() + 1));
        boolean more = jobs.size() > q.limit();
        return new JobPage(q, more ? jobs.subList(0, q.limit()) : jobs, more);
    }

    @Override
    public CancelOutcome cancel(long id) {
        Validation.jobId(id);
        if (!present()) {
            return CancelOutcome.NOT_FOUND;
        }
        return context.executor().run("cancel job " + id + " of " + name, "work " + name, store.cancel(id));
    }

    @Override
    public QueueActivity activity() {
        return context.activity().read(name, context.executor());
    }

    @Override
    public NodeRegistry node() {
        return context.node();
    }

    @Override
    public Lifecycle lifecycle() {
        return context.lifecycle();
    }

    @Override
    public Set<Long> extendLeases(List<Job> jobs, Duration lease) {
        long leaseMs = Validation.positive("leaseDuration", lease);
        long[] ids = new long[jobs.size()];
        long[] tokens = new long[jobs.size()];
        for (int i = 0; i < ids.length; i++) {
            Validation.job(jobs.get(i));
            ids[i] = jobs.get(i).id();
            tokens[i] = jobs.get(i).leaseToken();
        }
        return context.executor().run("extend the leases of " + ids.length + " jobs of " + name, "work " + name,
                store.extendAll(ids, tokens, leaseMs));
    }

    @Override
    public Worker worker(JobHandler handler, WorkerOptions workerOptions) {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(workerOptions, "options");
        context.lifecycle().check();
        if (context.executor().boundToCallersConnection()) {
            throw new UnsupportedOperationException("a worker claims on connections of its own; create it from the"
                    + " queue of the RowQueues instance, not from a handle bound with using(connection)");
        }
        // a worker's claims, acks, nacks and heartbeats never join a caller's transaction (transaction binding), even
        // when they run on a thread that has one (a handler's JobContext, a caller's executor)
        WorkerQueue own = context.handle(new DefaultWorkQueue(name, options, store, context.own()),
                ObservedWorkQueue::new);
        return new DefaultWorker(own, handler, workerOptions, options.leaseDuration(), context.pollInterval(),
                context.waitOn(), context.waitOnPolls());
    }

    @Override
    public WorkQueue using(Connection connection) {
        return context.handle(new DefaultWorkQueue(name, options, store, context.bound(connection)),
                ObservedWorkQueue::new);
    }

    @Override
    public String toString() {
        return "WorkQueue[" + name + "]";
    }
}
