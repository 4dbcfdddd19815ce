package dev.rowqueue.spring;

import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Runs the workers declared as {@link WorkerDefinition} beans with the application context, as a
 * {@link SmartLifecycle} in phase {@link #PHASE}.
 *
 * <ul>
 *   <li><b>Start</b>: when the context has refreshed (all singletons created), each definition's worker is created on
 *       its queue (tables created if schema creation is on) and started. A worker that cannot be created fails the
 *       start, and the workers already started are closed again.</li>
 *   <li><b>Stop</b>: in Spring's graceful-shutdown sequence. The phase comes after the web server's graceful shutdown
 *       (requests in flight may still enqueue) and before the web server stops. All workers are closed at once: no
 *       more claims, prefetched jobs given back, running handlers awaited, then interrupted, acks flushed (see
 *       {@link Worker#close(Duration)}). A worker waits for its handlers up to its
 *       {@link WorkerOptions#drainTimeout() drain timeout}, but never longer than the shutdown phase allows
 *       ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s by default) less a quarter of it (at most 10 s),
 *       left for interrupted handlers to end and acks to be written. A job whose handler did not finish comes back
 *       to the queue (released at once, or when its lease ends): nothing is lost.</li>
 * </ul>
 *
 * <p>Stopped and started again (a context {@code stop()}/{@code start()}), it creates new workers.
 */
public class RowQueueWorkers implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(RowQueueWorkers.class);

    /**
     * The lifecycle phase: between Spring Boot's web server graceful shutdown ({@code DEFAULT_PHASE - 1024}) and
     * its web server start and stop ({@code DEFAULT_PHASE - 2048}).
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1536;

    /**
     * One running worker, as the health indicator shows it.
     *
     * @param queue   its queue
     * @param paused  whether it is paused
     * @param running how many handlers run now
     * @param refused the database's refusal of the statement it claims with ({@link Worker#refused()}: a permanent
     *                failure, health DOWN), or {@code null}
     */
    public record Status(String queue, boolean paused, int running, String refused) {
        /**
         * A worker whose claims the database runs.
         *
         * @param queue   its queue
         * @param paused  whether it is paused
         * @param running how many handlers run now
         */
        public Status(String queue, boolean paused, int running) {
            this(queue, paused, running, null);
        }
    }

    private record Running(WorkerDefinition definition, Worker worker, Duration drain) {
    }

    private final ConfiguredQueues queues;
    private final List<WorkerDefinition> definitions;
    private final List<RowQueueWorkerCustomizer> customizers;
    private final boolean autoStartup;
    private final Duration drainBudget;
    private final Object lock = new Object();
    private List<Running> running = List.of();
    private volatile boolean started;

    /**
     * @param queues               where the queues and their configured options come from
     * @param definitions          the workers to run
     * @param customizers          applied in order to each definition, its options resolved, before its worker is
     *                             created
     * @param autoStartup          whether they start with the context
     * @param shutdownPhaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}
     */
    public RowQueueWorkers(ConfiguredQueues queues, List<WorkerDefinition> definitions,
                           List<RowQueueWorkerCustomizer> customizers, boolean autoStartup,
                           Duration shutdownPhaseTimeout) {
        this.queues = Objects.requireNonNull(queues, "queues");
        this.definitions = List.copyOf(definitions);
        this.customizers = List.copyOf(customizers);
        this.autoStartup = autoStartup;
        Duration margin = shutdownPhaseTimeout.dividedBy(4);
        if (margin.compareTo(Duration.ofSeconds(10)) > 0) {
            margin = Duration.ofSeconds(10);
        }
        this.drainBudget = shutdownPhaseTimeout.minus(margin);
    }

    @Override
    public void start() {
        synchronized (lock) {
            if (started) {
                return;
            }
            List<Running> list = new ArrayList<>();
            try {
                for (WorkerDefinition declared : definitions) {
                    WorkerDefinition d = resolve(declared);
                    Worker w = queues.workQueue(d.queue()).worker(d.handler(), d.options());
                    list.add(new Running(d, w, min(d.options().drainTimeout(), drainBudget)));
                    w.start();
                }
            } catch (RuntimeException e) {
                closeAll(list);
                throw e;
            }
            running = List.copyOf(list);
            started = true;
            log.debug("rowqueue: {} workers started", list.size());
        }
    }

    /** The definition with its options resolved, through the customizers. */
    private WorkerDefinition resolve(WorkerDefinition declared) {
        WorkerOptions options = declared.options() != null ? declared.options()
                : queues.workerOptions(declared.queue());
        WorkerDefinition d = declared.withOptions(options);
        for (RowQueueWorkerCustomizer c : customizers) {
            WorkerDefinition next = Objects.requireNonNull(c.customize(d), () -> c + " returned null");
            if (!next.queue().equalsIgnoreCase(d.queue()) || next.options() == null) {
                throw new IllegalStateException(c + " must keep the queue (" + d.queue() + ") and give options");
            }
            d = next;
        }
        return d;
    }

    @Override
    public void stop() {
        closeAll(detach());
    }

    @Override
    public void stop(Runnable callback) {
        List<Running> list = detach();
        if (list.isEmpty()) {
            callback.run();
            return;
        }
        Thread t = new Thread(() -> {
            try {
                closeAll(list);
            } finally {
                callback.run();
            }
        }, "rowqueue-workers-stop");
        t.setDaemon(true);
        t.start();
    }

    private List<Running> detach() {
        synchronized (lock) {
            List<Running> list = running;
            running = List.of();
            started = false;
            return list;
        }
    }

    /** Closes every worker at once and waits for all of them. */
    private static void closeAll(List<Running> list) {
        List<Thread> closers = new ArrayList<>();
        for (Running r : list) {
            Thread t = new Thread(() -> close(r), "rowqueue-worker-" + r.definition().queue() + "-stop");
            t.setDaemon(true);
            t.start();
            closers.add(t);
        }
        for (Thread t : closers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void close(Running r) {
        try {
            if (!r.worker().close(r.drain())) {
                log.warn("rowqueue: worker of {}: handlers still ran after {} and were interrupted; their jobs come"
                        + " back to the queue", r.definition().queue(), r.drain());
            }
        } catch (RuntimeException e) {
            log.warn("rowqueue: worker of {} failed to close; its jobs come back when their leases end",
                    r.definition().queue(), e);
        }
    }

    @Override
    public boolean isRunning() {
        return started;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** @return the workers running now, in definition order; empty when stopped */
    public List<Status> workers() {
        List<Running> list;
        synchronized (lock) {
            list = running;
        }
        return list.stream().map(r -> new Status(r.definition().queue(), r.worker().isPaused(),
                r.worker().running(), r.worker().refused().map(Throwable::getMessage).orElse(null))).toList();
    }

    /** @return the definitions this bean runs */
    public List<WorkerDefinition> definitions() {
        return definitions;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
