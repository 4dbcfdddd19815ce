package dev.rowqueue.internal;

import dev.rowqueue.RingOptions;
import dev.rowqueue.SchemaScripts;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.WorkTables;

import java.util.List;
import java.util.Objects;

/** DDL of one dialect, as text. */
public final class DefaultSchemaScripts implements SchemaScripts {
    private final Dialect dialect;

    /**
     * @param dialect whose DDL to render
     */
    public DefaultSchemaScripts(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public List<String> catalog() {
        List<String> ddl = new java.util.ArrayList<>(dialect.ddl().catalog());
        ddl.addAll(dialect.ddl().activity());
        ddl.addAll(dialect.ddl().nodes());
        return List.copyOf(ddl);
    }

    @Override
    public List<String> schedules() {
        return dialect.ddl().schedules();
    }

    @Override
    public List<String> ring(String name, RingOptions options) {
        Objects.requireNonNull(options, "options");
        if (!dialect.supports(options.strategy())) {
            throw new IllegalArgumentException("dialect '" + dialect.name() + "' does not offer ring strategy "
                    + options.strategy());
        }
        return dialect.ddl().ring(RingTables.of(Validation.queueName(name)), options);
    }

    @Override
    public List<String> workQueue(String name) {
        return dialect.ddl().work(WorkTables.of(Validation.queueName(name)));
    }

    @Override
    public List<String> workQueueUpgrade(String name) {
        return dialect.ddl().workUpgrade(WorkTables.of(Validation.queueName(name)));
    }

    @Override
    public List<String> restartJobIds(String name, long nextId) {
        if (nextId < 1) {
            throw new IllegalArgumentException("nextId must be at least 1, got " + nextId);
        }
        return dialect.ddl().restartIdentity(WorkTables.of(Validation.queueName(name)), nextId);
    }

    @Override
    public List<String> counters(String name) {
        return dialect.ddl().counters(CounterTable.of(Validation.queueName(name)));
    }
}
