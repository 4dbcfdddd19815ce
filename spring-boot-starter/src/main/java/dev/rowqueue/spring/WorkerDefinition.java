package dev.rowqueue.spring;

import dev.rowqueue.JobHandler;
import dev.rowqueue.WorkerOptions;

import java.util.Objects;

/**
 * A worker declared as a bean: the starter creates a {@link dev.rowqueue.Worker} on the named work queue for each
 * such bean, starts it with the application context and drains it on shutdown (see {@link RowQueueWorkers}).
 *
 * <pre>{@code
 * @Bean
 * WorkerDefinition emailWorker(EmailSender sender) {
 *     return WorkerDefinition.of("emails", job -> sender.send(job.payload()));
 * }
 * }</pre>
 *
 * <p>The queue's options come from {@code rowqueue.work-queues.<queue>.*}. The worker's options are the ones given
 * with {@link #withOptions(WorkerOptions)}, or else {@code rowqueue.work-queues.<queue>.worker.*} over
 * {@link WorkerOptions#defaults()}. Several definitions may name one queue: each gets a worker of its own.
 *
 * <p>The handler runs on the worker's threads, outside any transaction of the code that enqueued; a handler that
 * is a {@code @Transactional} bean method gets a transaction of its own, and the worker's ack is not part of it.
 *
 * @param queue   the work queue's name
 * @param handler what runs for each job
 * @param options the worker's options, or {@code null} for the configured ones
 */
public record WorkerDefinition(String queue, JobHandler handler, WorkerOptions options) {

    /** Validates. */
    public WorkerDefinition {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(handler, "handler");
    }

    /**
     * @param queue   the work queue's name
     * @param handler what runs for each job
     * @return a definition whose options come from the configuration
     */
    public static WorkerDefinition of(String queue, JobHandler handler) {
        return new WorkerDefinition(queue, handler, null);
    }

    /**
     * @param workerOptions the worker's options (the configuration's {@code worker.*} are then not used)
     * @return a copy with these options
     */
    public WorkerDefinition withOptions(WorkerOptions workerOptions) {
        return new WorkerDefinition(queue, handler, Objects.requireNonNull(workerOptions, "options"));
    }
}
