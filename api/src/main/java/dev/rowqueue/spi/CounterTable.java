package dev.rowqueue.spi;

import java.util.List;

/**
 * The table of a counters queue: {@code counter_key} (primary key) and {@code counter_value}.
 *
 * @param queue the queue name
 * @param table the table (named like the queue)
 */
public record CounterTable(String queue, String table) {
    /**
     * @param queue a validated queue name
     * @return its table name
     */
    public static CounterTable of(String queue) {
        return new CounterTable(queue, queue);
    }

    /** @return the tables */
    public List<String> tables() {
        return List.of(table);
    }

    /** @return every name the queue takes in the database's namespace */
    public List<String> objects() {
        return List.of(table);
    }
}
