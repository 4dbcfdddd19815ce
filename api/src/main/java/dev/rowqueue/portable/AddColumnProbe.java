package dev.rowqueue.portable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Asks a database how it adds a column to a table, for schema upgrades (version 1 to 2,
 * {@link PortableDialect#withAddColumn}): on a private scratch table {@code rq_probe_<random>_a}, in auto-commit mode
 * (each statement outside any transaction that used the table), SQL:2003's {@code ALTER TABLE t ADD COLUMN c ...} and
 * then the bare {@code ALTER TABLE t ADD c ...} that some engines require, one column per statement; then, in the
 * form accepted, a column with a default and {@code NOT NULL}. The scratch table has a secondary index, as a jobs
 * table of version 1 has: some engines refuse to add a constrained column to a table that an index depends on, and
 * add it with its default only. Kept per database for the JVM's lifetime; a probe that cannot run answers
 * {@code null}.
 */
final class AddColumnProbe {
    private static final Logger log = LoggerFactory.getLogger(AddColumnProbe.class);
    /** The forms tried, in order: what follows {@code ALTER TABLE t}. */
    static final List<String> FORMS = List.of("ADD COLUMN", "ADD");

    /**
     * @param keyword     what follows {@code ALTER TABLE t} ({@link #FORMS})
     * @param constrained whether a column with a default and {@code NOT NULL} can be added that way
     */
    record Answer(String keyword, boolean constrained) {
        @Override
        public String toString() {
            return "columns are added with ALTER TABLE ... " + keyword + (constrained ? ""
                    : ", with their default only (NOT NULL refused)");
        }
    }

    private static final ConcurrentHashMap<String, Answer> ANSWERS = new ConcurrentHashMap<>();

    private AddColumnProbe() {
    }

    /**
     * @param dataSource the database
     * @param database   its identity
     * @return the answer, or {@code null} if neither form was accepted or the probe could not run
     */
    static Answer of(DataSource dataSource, String database) {
        Answer known = ANSWERS.get(database);
        if (known != null) {
            return known;
        }
        Answer found = ask(dataSource);
        if (found != null) {
            log.debug("rowqueue: {}: {}", database, found);
            ANSWERS.putIfAbsent(database, found);
        }
        return found;
    }

    /** Asks without caching. */
    static Answer ask(DataSource dataSource) {
        String table = "rq_probe_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL) + "_a";
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            HotRowProbe.exec(c, "CREATE TABLE " + table + " (k INTEGER NOT NULL, v BIGINT, PRIMARY KEY (k))");
            try {
                if (!accepts(c, "CREATE INDEX " + table + "_i ON " + table + " (v, k)")) {
                    log.debug("rowqueue: could not index probe table {}; asking without the index", table);
                }
                HotRowProbe.exec(c, "INSERT INTO " + table + " (k) VALUES (1)");
                for (String keyword : FORMS) {
                    if (accepts(c, "ALTER TABLE " + table + " " + keyword + " x BIGINT")) {
                        return new Answer(keyword,
                                accepts(c, "ALTER TABLE " + table + " " + keyword + " y BIGINT DEFAULT 0 NOT NULL"));
                    }
                }
                return null;
            } finally {
                if (!accepts(c, "DROP TABLE " + table)) {
                    log.debug("rowqueue: could not drop probe table {}", table);
                }
            }
        } catch (SQLException e) {
            log.debug("rowqueue: could not ask how columns are added: {}", e.toString());
            return null;
        }
    }

    private static boolean accepts(Connection c, String sql) {
        try {
            HotRowProbe.exec(c, sql);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
