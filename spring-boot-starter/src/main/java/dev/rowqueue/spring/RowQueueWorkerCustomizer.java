package dev.rowqueue.spring;

/**
 * Adjusts every worker {@link RowQueueWorkers} starts: declare one or more as beans; they run in their
 * {@code @Order}, each on what the previous returned. The definition handed in has its options resolved (the
 * definition's own, or the configured {@code rowqueue.work-queues.<queue>.worker.*}), never {@code null}, so a
 * customizer can add a listener, wrap the handler or change a setting for all workers at once.
 *
 * <pre>{@code
 * @Bean
 * RowQueueWorkerCustomizer timing(MyTimer timer) {
 *     return worker -> worker.withOptions(worker.options().withListener(timer.listenerFor(worker.queue())));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface RowQueueWorkerCustomizer {

    /**
     * @param worker a worker about to be created, its options resolved
     * @return the definition to create it from (the same queue), e.g. {@code worker.withOptions(...)}
     */
    WorkerDefinition customize(WorkerDefinition worker);
}
