package dev.rowqueue;

import java.util.Objects;

/**
 * One way a live database differs from what rowqueue's dialect would create, as read from the database's catalogue
 * (JDBC {@code DatabaseMetaData}): found when a queue is opened, and by {@link RowQueues#checkSchema()}.
 *
 * @param table     the table
 * @param kind      what kind of object is missing or different
 * @param object    the object's name: the table, the column, the index; for a primary key, its columns
 * @param problem   what is wrong, in words
 * @param guarantee whether a guarantee depends on the object (every table, column, nullability and primary key, and the
 *                  unique index of unique keys); {@code false} for an index that serves speed alone
 * @param fix       the DDL (or, where no single statement exists, the definition) that makes it as rowqueue creates it
 */
public record SchemaDifference(String table, Kind kind, String object, String problem, boolean guarantee, String fix) {

    /** What kind of object differs. */
    public enum Kind {
        /** The table is missing. */
        TABLE,
        /** A column is missing, or its nullability differs. */
        COLUMN,
        /** The primary key is missing or on other columns. */
        PRIMARY_KEY,
        /** An index is missing. */
        INDEX
    }

    /** Validates. */
    public SchemaDifference {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(fix, "fix");
    }

    /** @return one line: the table, the problem, what depends on it, and the fix */
    @Override
    public String toString() {
        return table + ": " + problem + (guarantee ? "" : " (serves speed only)") + "; fix: " + fix;
    }
}
