package dev.rowqueue;

import java.util.List;

/**
 * The DDL rowqueue runs, as text: hand it to Flyway or Liquibase and build with
 * {@link RowQueues.Builder#createSchema(boolean) createSchema(false)}. Each list holds one statement per element,
 * without terminators; {@link #script(List)} joins them.
 */
public interface SchemaScripts {

    /**
     * The DDL a dialect renders, without a database; {@link RowQueues#schema()} gives the same for the instance's
     * own dialect.
     *
     * @param dialect a dialect, e.g. {@code DialectProviders.named("postgresql").create(product, Map.of())}
     * @return its scripts
     */
    static SchemaScripts of(dev.rowqueue.spi.Dialect dialect) {
        return new dev.rowqueue.internal.DefaultSchemaScripts(java.util.Objects.requireNonNull(dialect, "dialect"));
    }


    /**
     * @return the tables every database using rowqueue has once: the catalog, then the activity of work queues
     *         ({@link WorkQueue#activity()}; since the job API, created by {@code RowQueues} on its first use of an
     *         older catalog), then the nodes ({@link RowQueues#nodes()}, created the same way)
     */
    List<String> catalog();

    /**
     * The DDL of the schedule tables ({@code rowqueue_schedules}, {@code rowqueue_schedule_slots}).
     *
     * @return the statements, in order
     */
    List<String> schedules();

    /**
     * @param name    the ring name
     * @param options capacity and strategy (the trigger strategy's DDL depends on the capacity)
     * @return the ring's tables and indexes
     */
    List<String> ring(String name, RingOptions options);

    /**
     * @param name the work queue name
     * @return the queue's tables and indexes
     */
    List<String> workQueue(String name);

    /**
     * The statements that upgrade a work queue created with schema version 1 (before keyed jobs) to the current
     * version: they add the columns {@code job_key}, {@code unique_key} and {@code key_seq} and their indexes. A
     * {@code RowQueues} with schema creation on runs them itself when it first opens such a queue; run them yourself
     * where it is off (then the catalog's {@code schema_version} of the queue is set to 2 on first open), or in a
     * maintenance window on large tables (index creation takes time, and on some databases blocks writes meanwhile).
     *
     * @param name the work queue name
     * @return the statements, in order
     */
    List<String> workQueueUpgrade(String name);

    /**
     * @param name the counters table name
     * @return its table
     */
    List<String> counters(String name);

    /**
     * Statements to run after inserting jobs with explicit ids (for example when moving a queue from another
     * database), so that newly enqueued jobs get ids above them.
     *
     * @param name   the work queue name
     * @param nextId the lowest id new jobs may get
     * @return the statements
     */
    List<String> restartJobIds(String name, long nextId);

    /**
     * @param statements statements from this interface
     * @return one script, statements separated by {@code ;} and a new line
     */
    default String script(List<String> statements) {
        return String.join(";\n", statements) + ";\n";
    }
}
