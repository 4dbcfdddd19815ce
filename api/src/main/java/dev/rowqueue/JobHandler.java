package dev.rowqueue;

/**
 * What a {@link Worker} runs for each job it claims. Returning acks the job; throwing nacks it with the queue's
 * retry policy and the exception's text (the job is dead after {@link WorkQueueOptions#maxAttempts()} attempts). A
 * handler may instead settle the job itself through {@link JobContext#release()} or {@link JobContext#retryAfter}.
 *
 * <pre>{@code
 * Worker worker = queue.worker(job -> mailer.send(job.payload()), WorkerOptions.defaults().withThreads(4));
 * worker.start();
 * }</pre>
 */
@FunctionalInterface
public interface JobHandler {
    /**
     * @param job the job, with its lease
     * @throws Exception to nack the job
     */
    void handle(JobContext job) throws Exception;
}
