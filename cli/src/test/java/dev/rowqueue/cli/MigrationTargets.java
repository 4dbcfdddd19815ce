package dev.rowqueue.cli;

import dev.rowqueue.tck.TckTargets;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The databases the migration tests move queues between. {@link MigrateMatrixTest} migrates between every ordered
 * pair of them (a database with itself only where each {@link Factory#create()} makes a separate database).
 *
 * <p><b>Adding PostgreSQL, MariaDB or any other database</b> (after the dialect modules are merged and listed in
 * cli/pom.xml):
 * <ul>
 *   <li>an existing server needs no code: every {@code ROWQUEUE_TCK_<DB>_URL} environment variable (with optional
 *       {@code _USER}, {@code _PASSWORD}, {@code _DIALECT}), the variables .ci/run sets for the TCK, becomes a
 *       target, see {@link #fromEnvironment()};</li>
 *   <li>a Testcontainers database is one line in {@link #all()}: a {@link Factory} whose {@code create()} starts (or
 *       reuses) the container and returns its endpoint, and whose {@code close()} stops it.</li>
 * </ul>
 * Server targets are shared by the tests: the tests use fresh queue names and drop them afterwards.
 */
final class MigrationTargets {

    private static final Pattern SERVER_URL = Pattern.compile(Pattern.quote(TckTargets.ENV_PREFIX) + "([A-Z0-9]+)_URL");

    private MigrationTargets() {
    }

    /** Makes endpoints of one kind of database. */
    interface Factory {
        /** @return a name for test reports, e.g. "H2" or "portable on H2" */
        String name();

        /** @return an endpoint; each call to an embedded factory makes a new, empty database */
        Endpoint create();

        /** @return whether two {@link #create()} calls give two separate databases */
        boolean separateDatabases();

        /**
         * Releases an endpoint after a test (shuts an embedded database down).
         *
         * @param endpoint an endpoint of {@link #create()}
         */
        default void release(Endpoint endpoint) {
        }
    }

    /**
     * Every target of this run. Add Testcontainers factories here (see the class comment).
     *
     * @return the factories
     */
    static List<Factory> all() {
        List<Factory> all = new ArrayList<>();
        all.add(h2("H2", null));
        all.add(h2("portable on H2", "portable"));
        all.add(sqlite());
        List<Factory> servers = fromEnvironment();
        all.addAll(servers);
        if (servers.stream().noneMatch(f -> f.name().startsWith("Postgres"))) {
            localServer("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/", "test", "postgres", "DROP DATABASE %s WITH (FORCE)")
                    .ifPresent(all::add);
        }
        if (servers.stream().noneMatch(f -> f.name().startsWith("Mariadb") || f.name().startsWith("Mysql"))) {
            localServer("MariaDB", "jdbc:mariadb://127.0.0.1:3306/", "mysql", "root", "DROP DATABASE %s")
                    .ifPresent(all::add);
        }
        return all;
    }

    /**
     * A new in-memory H2 database per endpoint, optionally with a forced dialect.
     *
     * @param name    the report name
     * @param dialect a dialect to force, or {@code null}
     * @return the factory
     */
    static Factory h2(String name, String dialect) {
        return new Factory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Endpoint create() {
                return new Endpoint("jdbc:h2:mem:migrate_" + UUID.randomUUID().toString().replace("-", "")
                        + ";DB_CLOSE_DELAY=-1", "sa", "", dialect, Map.of());
            }

            @Override
            public boolean separateDatabases() {
                return true;
            }

            @Override
            public void release(Endpoint endpoint) {
                try (Connection c = DriverManager.getConnection(endpoint.url(), "sa", "");
                     Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException ignored) {
                    // already gone
                }
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** @return a new SQLite database file per endpoint (the driver is a test dependency here, as users add it) */
    static Factory sqlite() {
        return new Factory() {
            @Override
            public String name() {
                return "SQLite";
            }

            @Override
            public Endpoint create() {
                try {
                    java.nio.file.Path f = java.nio.file.Files.createTempFile("migrate_", ".db");
                    return new Endpoint("jdbc:sqlite:" + f, null, null, null, Map.of());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }

            @Override
            public boolean separateDatabases() {
                return true;
            }

            @Override
            public void release(Endpoint endpoint) {
                try {
                    java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(endpoint.url().substring(12)));
                } catch (java.io.IOException ignored) {
                    // left in the temporary directory
                }
            }

            @Override
            public String toString() {
                return name();
            }
        };
    }

    /**
     * The machine's local server, if it answers: each endpoint is a database of its own, created for it and dropped
     * afterwards.
     *
     * @param name      the report name
     * @param base      the JDBC URL up to the database name
     * @param adminDb   a database to connect to for CREATE and DROP DATABASE
     * @param user      a user who may create databases (no password)
     * @param dropForm  the DROP DATABASE statement, with %s for the name
     * @return the factory, or empty if the server does not answer
     */
    static java.util.Optional<Factory> localServer(String name, String base, String adminDb, String user,
                                                   String dropForm) {
        try (Connection c = DriverManager.getConnection(base + adminDb, user, "")) {
            if (!c.isValid(5)) {
                return java.util.Optional.empty();
            }
        } catch (SQLException e) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new Factory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Endpoint create() {
                String db = "migrate_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
                admin("CREATE DATABASE " + db);
                return new Endpoint(base + db, user, "", null, Map.of());
            }

            private void admin(String sql) {
                try (Connection c = DriverManager.getConnection(base + adminDb, user, "");
                     Statement s = c.createStatement()) {
                    s.execute(sql);
                } catch (SQLException e) {
                    throw new IllegalStateException(sql + ": " + e.getMessage(), e);
                }
            }

            @Override
            public boolean separateDatabases() {
                return true;
            }

            @Override
            public void release(Endpoint endpoint) {
                admin(String.format(dropForm, endpoint.url().substring(base.length())));
            }

            @Override
            public String toString() {
                return name;
            }
        });
    }

    /**
     * One target per {@code ROWQUEUE_TCK_<DB>_URL} variable, e.g. {@code ROWQUEUE_TCK_POSTGRES_URL}, read by the
     * TCK's own {@link TckTargets#settingsFromEnvironment(String, String)} (with {@code _USER}, {@code _PASSWORD},
     * {@code _DIALECT}).
     *
     * @return the server targets, by name
     */
    static List<Factory> fromEnvironment() {
        List<Factory> servers = new ArrayList<>();
        for (String variable : new TreeSet<>(System.getenv().keySet())) {
            Matcher m = SERVER_URL.matcher(variable);
            if (!m.matches()) {
                continue;
            }
            String db = m.group(1);
            String name = db.charAt(0) + db.substring(1).toLowerCase(Locale.ROOT) + " server";
            TckTargets.settingsFromEnvironment(db, name).ifPresent(s -> servers.add(server(name,
                    new Endpoint(s.url(), s.user(), s.password(), s.dialect(), Map.of()))));
        }
        return servers;
    }

    private static Factory server(String name, Endpoint endpoint) {
        return new Factory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Endpoint create() {
                return endpoint;
            }

            @Override
            public boolean separateDatabases() {
                return false;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
