package dev.rowqueue.internal;

import dev.rowqueue.SchemaDifference;
import dev.rowqueue.SchemaDifference.Kind;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.support.SchemaDdl;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares live tables with the {@link Schema} model as a dialect renders it ({@link SchemaDdl}), from the database's
 * catalogue only (JDBC {@link DatabaseMetaData}: {@code getColumns}, {@code getPrimaryKeys}, {@code getIndexInfo}), so
 * it works on every engine, known or not. Names are compared case-insensitively (H2, HSQLDB, Derby and Oracle report
 * them in upper case). A unique index that a guarantee depends on is found by its columns, whatever its name: a
 * UNIQUE constraint's index has a name of the engine's choosing (Derby's {@code SQL...}, H2's
 * {@code ..._INDEX_...}, SQLite's {@code sqlite_autoindex_...}); an index that serves speed is found by its name or
 * by its columns. Where the dialect makes a unique index a UNIQUE constraint ({@link
 * dev.rowqueue.support.DdlFeatures#uniqueKeyedAsConstraint()}: Derby, whose unique indexes allow one NULL only), the
 * constraint's index is reported as not unique, and an index on the columns is what counts. A primary key is also satisfied by a unique index on its columns (all it guarantees is
 * uniqueness, and an upsert's conflict target accepts either).
 */
final class SchemaVerifier {

    private SchemaVerifier() {
    }

    /** A live column, as the metadata reports it. */
    private record LiveColumn(String name, int nullable) {
    }

    /** A live index: its columns in order, and whether unique. */
    private record LiveIndex(String name, boolean unique, List<String> columns) {
    }

    /**
     * @param c           a connection
     * @param ddl         the dialect's DDL renderer
     * @param tables      the tables as the dialect creates them
     * @param relaxed     columns (lower case) whose NOT NULL may be missing: those an upgrade added where the database
     *                    cannot add a constrained column
     * @return the differences, in table order
     * @throws SQLException from the driver's metadata
     */
    static List<SchemaDifference> check(Connection c, SchemaDdl ddl, List<Schema.Table> tables, Set<String> relaxed)
            throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String catalog = c.getCatalog();
        String schema;
        try {
            schema = c.getSchema();
        } catch (SQLException | AbstractMethodError | UnsupportedOperationException e) {
            schema = null; // a driver before JDBC 4.1, or one without schemas
        }
        List<SchemaDifference> differences = new ArrayList<>();
        for (Schema.Table t : tables) {
            differences.addAll(check(md, catalog, schema, ddl, t, relaxed));
        }
        return differences;
    }

    private static List<SchemaDifference> check(DatabaseMetaData md, String catalog, String schema, SchemaDdl ddl,
                                                Schema.Table t, Set<String> relaxed) throws SQLException {
        List<SchemaDifference> out = new ArrayList<>();
        Located located = locate(md, catalog, schema, t.name());
        if (located == null) {
            out.add(new SchemaDifference(t.name(), Kind.TABLE, t.name(), "table " + t.name() + " does not exist", true,
                    String.join("; ", ddl.createTables(t))));
            return out;
        }
        Map<String, LiveColumn> columns = located.columns();
        Set<String> primaryKey = lower(t.primaryKey());
        for (Schema.Column col : t.columns()) {
            LiveColumn live = columns.get(col.name().toLowerCase(Locale.ROOT));
            if (live == null) {
                out.add(new SchemaDifference(t.name(), Kind.COLUMN, col.name(), "column " + col.name()
                        + " does not exist", true, "ALTER TABLE " + t.name() + " ADD " + ddl.columnDefinition(col)));
                continue;
            }
            if (col.type() == Schema.Type.IDENTITY || primaryKey.contains(col.name().toLowerCase(Locale.ROOT))) {
                continue; // a key column is NOT NULL by being one; some engines report it otherwise (SQLite)
            }
            boolean notNull = ddl.declaresNotNull(col);
            if (notNull && live.nullable() == DatabaseMetaData.columnNullable
                    && !relaxed.contains(col.name().toLowerCase(Locale.ROOT))) {
                out.add(new SchemaDifference(t.name(), Kind.COLUMN, col.name(), "column " + col.name()
                        + " allows NULL, rowqueue's queries rely on NOT NULL", true,
                        "make it NOT NULL, as in: " + ddl.columnDefinition(col)));
            } else if (!notNull && live.nullable() == DatabaseMetaData.columnNoNulls) {
                out.add(new SchemaDifference(t.name(), Kind.COLUMN, col.name(), "column " + col.name()
                        + " is NOT NULL, rowqueue writes NULL into it", true,
                        "let it take NULL, as in: " + ddl.columnDefinition(col)));
            }
        }
        Map<String, LiveIndex> indexes;
        try {
            indexes = indexes(md, located);
        } catch (java.sql.SQLFeatureNotSupportedException e) {
            out.add(new SchemaDifference(t.name(), Kind.INDEX, "*", "the driver's metadata lists no indexes ("
                    + e.getMessage() + "): the indexes of " + t.name() + " were not checked", false,
                    "check them by hand: " + String.join("; ", ddl.createTables(t))));
            indexes = Map.of();
            if (!primaryKey.isEmpty() && primaryKey(md, located).isEmpty()) {
                out.add(pkMissing(ddl, t, Set.of()));
            }
            return out;
        }
        if (!primaryKey.isEmpty()) {
            Set<String> livePk = primaryKey(md, located);
            if (!livePk.equals(primaryKey) && indexes.values().stream()
                    .noneMatch(i -> i.unique() && new LinkedHashSet<>(i.columns()).equals(primaryKey))) {
                out.add(pkMissing(ddl, t, livePk));
            }
        }
        for (Schema.Index i : t.indexes()) {
            List<String> wanted = lower(i.columnNames()).stream().toList();
            // where the index is a UNIQUE constraint (a unique index would allow one NULL only: Derby), the metadata
            // reports the constraint's index as not unique (Derby's unique-with-duplicate-NULLs index): an index on the
            // columns is then all the catalogue can tell
            boolean constraint = i.unique() && i.keyed() && ddl.features().uniqueKeyedAsConstraint();
            boolean found = i.guarantee()
                    ? indexes.values().stream().anyMatch(l -> (l.unique() || constraint)
                            && new LinkedHashSet<>(l.columns()).equals(new LinkedHashSet<>(wanted)))
                    : indexes.containsKey(i.name().toLowerCase(Locale.ROOT))
                            || indexes.values().stream().anyMatch(l -> l.columns().equals(wanted));
            if (!found) {
                out.add(new SchemaDifference(t.name(), Kind.INDEX, i.name(), (i.unique() ? "unique index " : "index ")
                        + i.name() + " on (" + String.join(", ", i.columnNames()) + ") does not exist", i.guarantee(),
                        ddl.createIndex(t, i)));
            }
        }
        return out;
    }

    private static SchemaDifference pkMissing(SchemaDdl ddl, Schema.Table t, Set<String> livePk) {
        return new SchemaDifference(t.name(), Kind.PRIMARY_KEY, String.join(", ", t.primaryKey()),
                livePk.isEmpty() ? "no primary key (" + String.join(", ", t.primaryKey()) + ")"
                        : "the primary key is (" + String.join(", ", livePk) + "), not ("
                        + String.join(", ", t.primaryKey()) + ")", true, ddl.addPrimaryKey(t));
    }

    /** A table found in the metadata: the names to ask for it by, and its columns. */
    private record Located(String catalog, String schema, String table, Map<String, LiveColumn> columns) {
    }

    /**
     * Finds a table by its name as the database stores it (upper or lower case, or as given), in the connection's
     * schema, else in any schema the metadata lists it in.
     */
    private static Located locate(DatabaseMetaData md, String catalog, String schema, String name)
            throws SQLException {
        Set<String> forms = new LinkedHashSet<>();
        if (md.storesUpperCaseIdentifiers()) {
            forms.add(name.toUpperCase(Locale.ROOT));
        } else if (md.storesLowerCaseIdentifiers()) {
            forms.add(name.toLowerCase(Locale.ROOT));
        }
        forms.add(name);
        forms.add(name.toLowerCase(Locale.ROOT));
        forms.add(name.toUpperCase(Locale.ROOT));
        for (String schemaPattern : schema == null ? new String[] {null} : new String[] {schema, null}) {
            for (String form : forms) {
                Map<String, LiveColumn> columns = new TreeMap<>();
                String foundCatalog = null;
                String foundSchema = null;
                String foundTable = null;
                try (ResultSet rs = md.getColumns(catalog, schemaPattern, form, null)) {
                    while (rs.next()) {
                        String table = rs.getString("TABLE_NAME");
                        String s = rs.getString("TABLE_SCHEM");
                        if (table == null || !table.equalsIgnoreCase(name)) {
                            continue; // '_' is a wildcard in the pattern
                        }
                        if (foundTable == null) {
                            foundCatalog = rs.getString("TABLE_CAT");
                            foundSchema = s;
                            foundTable = table;
                        } else if (!java.util.Objects.equals(foundSchema, s)) {
                            continue; // the same name in another schema
                        }
                        String column = rs.getString("COLUMN_NAME");
                        columns.put(column.toLowerCase(Locale.ROOT), new LiveColumn(column, rs.getInt("NULLABLE")));
                    }
                }
                if (foundTable != null) {
                    return new Located(foundCatalog != null ? foundCatalog : catalog, foundSchema, foundTable,
                            columns);
                }
            }
        }
        return null;
    }

    private static Set<String> primaryKey(DatabaseMetaData md, Located t) throws SQLException {
        Map<Integer, String> columns = new TreeMap<>();
        try (ResultSet rs = md.getPrimaryKeys(t.catalog(), t.schema(), t.table())) {
            while (rs.next()) {
                columns.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
            }
        }
        return new LinkedHashSet<>(columns.values());
    }

    /** The table's indexes by lower-case name; statistics rows and expression parts are left out. */
    private static Map<String, LiveIndex> indexes(DatabaseMetaData md, Located t) throws SQLException {
        Map<String, Boolean> unique = new LinkedHashMap<>();
        Map<String, TreeMap<Integer, String>> parts = new LinkedHashMap<>();
        try (ResultSet rs = md.getIndexInfo(t.catalog(), t.schema(), t.table(), false, true)) {
            while (rs.next()) {
                String name = rs.getString("INDEX_NAME");
                String column = rs.getString("COLUMN_NAME");
                if (name == null || column == null || rs.getShort("TYPE") == DatabaseMetaData.tableIndexStatistic) {
                    continue;
                }
                String key = name.toLowerCase(Locale.ROOT);
                unique.put(key, !rs.getBoolean("NON_UNIQUE"));
                parts.computeIfAbsent(key, k -> new TreeMap<>()).put((int) rs.getShort("ORDINAL_POSITION"),
                        unquote(column).toLowerCase(Locale.ROOT));
            }
        }
        Map<String, LiveIndex> out = new LinkedHashMap<>();
        parts.forEach((k, v) -> out.put(k, new LiveIndex(k, unique.get(k), List.copyOf(v.values()))));
        return out;
    }

    /** A column name some drivers report quoted. */
    private static String unquote(String column) {
        String c = column.trim();
        return c.length() > 1 && c.startsWith("\"") && c.endsWith("\"") ? c.substring(1, c.length() - 1) : c;
    }

    private static Set<String> lower(List<String> names) {
        Set<String> out = new LinkedHashSet<>();
        names.forEach(n -> out.add(n.toLowerCase(Locale.ROOT)));
        return out;
    }
}
