package dev.rowqueue.support;

import dev.rowqueue.spi.KeyCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An SQL statement with named parameters ({@code :name}), turned into JDBC's positional {@code ?} once and cached.
 * Every value reaches the database as a bind parameter; a parameter left unbound is a programming error caught
 * before execution. Quoted strings, quoted identifiers, comments and PostgreSQL's {@code ::} casts are left alone.
 *
 * <pre>{@code
 * Sql sql = Sql.of("UPDATE t SET v = v + :d WHERE k = :k");
 * try (PreparedStatement ps = sql.prepare(connection)) {
 *     sql.bind(ps).set("d", 1L).set("k", "Bulldozer").done();
 *     ps.executeUpdate();
 * }
 * }</pre>
 */
public final class Sql {

    private static final Map<String, Sql> CACHE = new ConcurrentHashMap<>();
    private static final int CACHE_LIMIT = 4096;

    private final String text;
    private final String jdbc;
    private final String[] params;

    private Sql(String text, String jdbc, String[] params) {
        this.text = text;
        this.jdbc = jdbc;
        this.params = params;
    }

    /**
     * @param text SQL with {@code :name} parameters
     * @return the parsed statement (cached)
     */
    public static Sql of(String text) {
        Sql cached = CACHE.get(text);
        if (cached != null) {
            return cached;
        }
        Sql parsed = parse(text);
        if (CACHE.size() < CACHE_LIMIT) {
            CACHE.putIfAbsent(text, parsed);
        }
        return parsed;
    }

    /** @return the statement as written */
    public String text() {
        return text;
    }

    /** @return the statement with {@code ?} placeholders */
    public String jdbc() {
        return jdbc;
    }

    /** @return parameter names by position (a name may repeat) */
    public List<String> parameters() {
        return List.of(params);
    }

    /**
     * @param name a parameter name
     * @return whether the statement uses it
     */
    public boolean has(String name) {
        for (String p : params) {
            if (p.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param connection where to prepare
     * @return a prepared statement for {@link #jdbc()}
     * @throws SQLException from the driver
     */
    public PreparedStatement prepare(Connection connection) throws SQLException {
        return connection.prepareStatement(jdbc);
    }

    /**
     * @param connection   where to prepare
     * @param generatedKey the generated key column to return, or {@code null} for the driver's choice
     *                     ({@link java.sql.Statement#RETURN_GENERATED_KEYS})
     * @return a prepared statement returning that key
     * @throws SQLException from the driver
     */
    public PreparedStatement prepare(Connection connection, String generatedKey) throws SQLException {
        return generatedKey == null ? connection.prepareStatement(jdbc, java.sql.Statement.RETURN_GENERATED_KEYS)
                : connection.prepareStatement(jdbc, new String[] {generatedKey});
    }

    /**
     * @param statement a statement prepared from this SQL
     * @return a binder that sets parameters by name
     */
    public Binder bind(PreparedStatement statement) {
        return new Binder(statement, KeyCodec.TEXT);
    }

    /**
     * @param statement a statement prepared from this SQL
     * @param keys      how the text of parameters named in {@link KeyCodec#PARAMETERS} is bound
     * @return a binder that sets parameters by name
     */
    public Binder bind(PreparedStatement statement, KeyCodec keys) {
        return new Binder(statement, keys);
    }

    @Override
    public String toString() {
        return text;
    }

    /** Sets named parameters on a prepared statement. */
    public final class Binder {
        private final PreparedStatement ps;
        private final KeyCodec keys;
        private final BitSet bound = new BitSet(params.length);

        private Binder(PreparedStatement ps, KeyCodec keys) {
            this.ps = ps;
            this.keys = keys;
        }

        private interface Setter {
            void set(int index) throws SQLException;
        }

        private Binder each(String name, Setter setter) throws SQLException {
            boolean found = false;
            for (int i = 0; i < params.length; i++) {
                if (params[i].equals(name)) {
                    setter.set(i + 1);
                    bound.set(i);
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalArgumentException("no parameter :" + name + " in " + text);
            }
            return this;
        }

        /**
         * @param name  the parameter
         * @param value a 64-bit value
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder set(String name, long value) throws SQLException {
            return each(name, i -> ps.setLong(i, value));
        }

        /**
         * @param name  the parameter
         * @param value a 64-bit value, or {@code null} for SQL NULL
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder setNullable(String name, Long value) throws SQLException {
            return value == null ? each(name, i -> ps.setNull(i, Types.BIGINT)) : set(name, value.longValue());
        }

        /**
         * @param name  the parameter
         * @param value a 32-bit value
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder setInt(String name, int value) throws SQLException {
            return each(name, i -> ps.setInt(i, value));
        }

        /**
         * @param name  the parameter
         * @param value text, or {@code null} for SQL NULL
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder set(String name, String value) throws SQLException {
            if (KeyCodec.PARAMETERS.contains(name)) {
                return each(name, i -> keys.bind(ps, i, value));
            }
            return each(name, i -> {
                if (value == null) {
                    ps.setNull(i, Types.VARCHAR);
                } else {
                    ps.setString(i, value);
                }
            });
        }

        /**
         * @param name  the parameter
         * @param value an array made with {@link java.sql.Connection#createArrayOf}
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder setArray(String name, java.sql.Array value) throws SQLException {
            return each(name, i -> ps.setArray(i, value));
        }

        /**
         * Limits a query's rows: binds {@code name} where the statement has the parameter (a row limit clause of the
         * dialect's), else sets the cursor's fetch size and maximum rows, so that only {@code rows} rows are fetched
         * (and, under {@code FOR UPDATE SKIP LOCKED}, locked).
         *
         * @param name the row limit parameter
         * @param rows the most rows wanted
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder limit(String name, int rows) throws SQLException {
            if (has(name)) {
                return setInt(name, rows);
            }
            ps.setFetchSize(rows);
            ps.setMaxRows(rows);
            return this;
        }

        /**
         * Binds {@code name} only if the statement uses it (for example {@code :now} in dialects that take time from
         * the application clock).
         *
         * @param name  the parameter
         * @param value its value
         * @return this binder
         * @throws SQLException from the driver
         */
        public Binder setIfPresent(String name, long value) throws SQLException {
            return has(name) ? set(name, value) : this;
        }

        /**
         * Checks that every parameter is bound.
         *
         * @return the statement, ready to execute
         */
        public PreparedStatement done() {
            if (bound.cardinality() != params.length) {
                List<String> missing = new ArrayList<>();
                for (int i = bound.nextClearBit(0); i < params.length; i = bound.nextClearBit(i + 1)) {
                    missing.add(params[i]);
                }
                throw new IllegalStateException("unbound parameters " + missing + " in " + text);
            }
            return ps;
        }

        /**
         * Checks every parameter is bound, adds the row to the batch and starts a new one.
         *
         * @return this binder, cleared for the next row
         * @throws SQLException from the driver
         */
        public Binder addBatch() throws SQLException {
            done().addBatch();
            bound.clear();
            return this;
        }
    }

    static Sql parse(String text) {
        StringBuilder out = new StringBuilder(text.length());
        List<String> names = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"') {
                int end = text.indexOf(c, i + 1);
                while (end > 0 && end + 1 < n && text.charAt(end + 1) == c) {
                    end = text.indexOf(c, end + 2);
                }
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated quote in " + text);
                }
                out.append(text, i, end + 1);
                i = end + 1;
            } else if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                int end = text.indexOf('\n', i);
                end = end < 0 ? n : end;
                out.append(text, i, end);
                i = end;
            } else if (c == ':' && i + 1 < n && text.charAt(i + 1) == ':') {
                out.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < n && Character.isJavaIdentifierStart(text.charAt(i + 1))) {
                int j = i + 1;
                while (j < n && Character.isJavaIdentifierPart(text.charAt(j))) {
                    j++;
                }
                names.add(text.substring(i + 1, j));
                out.append('?');
                i = j;
            } else if (c == '?') {
                throw new IllegalArgumentException("use named parameters, not '?', in " + text);
            } else {
                out.append(c);
                i++;
            }
        }
        return new Sql(text, out.toString(), names.toArray(new String[0]));
    }
}
