package dev.rowqueue.cli;

import dev.rowqueue.RowQueues;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProviders;
import dev.rowqueue.testkit.DriverManagerDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;

/**
 * A database the command line talks to: URL, credentials and an optional forced dialect.
 *
 * @param url      the JDBC URL
 * @param user     the user, or {@code null}
 * @param password the password, or {@code null}
 * @param dialect  a dialect to force, or {@code null} to detect one
 * @param options  dialect options
 */
public record Endpoint(String url, String user, String password, String dialect, Map<String, String> options) {

    /** Validates and copies. */
    public Endpoint {
        Objects.requireNonNull(url, "url");
        options = Map.copyOf(options == null ? Map.of() : options);
    }

    /**
     * @param env         the environment
     * @param environment variable names to try, in order
     * @return the value of the first of them that is set, or {@code null}
     */
    static String password(CliEnv env, String... environment) {
        for (String name : environment) {
            String value = env.getenv(name);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /**
     * Asks for the password only when it is needed: before connecting when {@code askFirst} ({@code
     * --password-prompt}); otherwise only when no password is known, a terminal is attached, and the database refused
     * a connection without one for its credentials (SQLState class 28, or 08004).
     *
     * @param env      the environment
     * @param askFirst whether to ask before trying (the command's {@code --password-prompt})
     * @return this endpoint, or one with the password typed in
     * @throws CliException with {@link ExitCode#USAGE} when {@code askFirst} and there is no terminal to ask on
     */
    Endpoint authenticated(CliEnv env, boolean askFirst) {
        if (askFirst) {
            char[] typed = env.readPassword(prompt());
            if (typed == null) {
                throw new CliException(ExitCode.USAGE, "--password-prompt needs a terminal to ask on; set the"
                        + " password's environment variable instead");
            }
            return withPassword(new String(typed));
        }
        if (password != null || !env.interactive()) {
            return this;
        }
        try (Connection c = dataSource().getConnection()) {
            return this;
        } catch (SQLException e) {
            if (!authenticationFailure(e)) {
                return this; // check() reports it
            }
            char[] typed = env.readPassword(prompt());
            return typed == null ? this : withPassword(new String(typed));
        }
    }

    /**
     * @param e a failed connection attempt
     * @return whether the database refused the credentials (SQLState class 28 or 08004), along the cause chain
     */
    static boolean authenticationFailure(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("28") || s.getSQLState().equals("08004"))) {
                return true;
            }
        }
        return false;
    }

    private String prompt() {
        return "Password for " + (user == null ? "the default user" : user) + " at " + displayUrl() + ": ";
    }

    private Endpoint withPassword(String typed) {
        return new Endpoint(url, user, typed, dialect, options);
    }

    /** @return the URL without parameters and credentials */
    public String displayUrl() {
        return DriverManagerDataSource.displayUrl(url);
    }

    /** @return connections through {@link DriverManager}, one per request */
    public DataSource dataSource() {
        return new DriverManagerDataSource(url, user, password);
    }

    /**
     * Checks that the database answers, with a clear error when no driver takes the URL.
     *
     * @param dataSource this endpoint's data source
     * @throws CliException with {@link ExitCode#DATABASE}
     */
    void check(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            c.getMetaData();
        } catch (SQLException e) {
            if (!hasDriver()) {
                throw new CliException(ExitCode.DATABASE, "no JDBC driver takes " + displayUrl() + ". The jar"
                        + " bundles H2 (jdbc:h2:), PostgreSQL (jdbc:postgresql:) and MariaDB (jdbc:mariadb:); add"
                        + " others, such as MySQL Connector/J, Oracle's ojdbc, IBM's db2jcc or xerial's"
                        + " sqlite-jdbc, with --driver-jar PATH",
                        e);
            }
            throw new CliException(ExitCode.DATABASE, "cannot connect to " + displayUrl() + ": " + e.getMessage()
                    + (e.getSQLState() == null ? "" : " (SQLState " + e.getSQLState() + ")") + h2UserHint(e), e);
        }
    }

    /**
     * H2 makes the user who creates a database its administrator and refuses any other name with the same error as a
     * wrong password, so a file created by an application with one user and opened here with another looks like a
     * bad password.
     *
     * @param e the refused connection
     * @return a sentence saying so for an H2 URL the database refused the credentials of, otherwise nothing
     */
    private String h2UserHint(SQLException e) {
        if (!url.startsWith("jdbc:h2:") || !authenticationFailure(e)) {
            return "";
        }
        return ". H2 accepts only users the database knows, and a new database knows only the user that created it:"
                + " if it was created with another user than " + (user == null || user.isEmpty() ? "the empty one"
                : "'" + user + "'") + ", give that user with --user (rowqueue's docs use sa)";
    }

    private boolean hasDriver() {
        try {
            return DriverManager.getDriver(url) != null;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Connects and builds a {@link RowQueues}.
     *
     * @param createSchema whether missing queue tables may be created
     * @return the open database
     */
    public Opened open(boolean createSchema) {
        DataSource ds = dataSource();
        check(ds);
        RowQueues.Builder b = RowQueues.builder(ds).createSchema(createSchema).scheduler(false); // fires nothing
        if (dialect != null) {
            b.dialect(dialect);
        }
        options.forEach(b::dialectOption);
        RowQueues rq = b.build();
        return new Opened(this, ds, rq, dialectOf(ds, rq));
    }

    /**
     * The dialect serving a RowQueues, as an instance of its own, for the migration's direct SQL (key columns are
     * read and bound through it: some databases store keys as encoded bytes).
     */
    private Dialect dialectOf(DataSource ds, RowQueues rq) {
        try (Connection c = ds.getConnection()) {
            return DialectProviders.named(rq.database().dialect())
                    .create(DatabaseProduct.of(c.getMetaData()), options, c);
        } catch (SQLException e) {
            throw new CliException(ExitCode.DATABASE, "cannot read the metadata of " + displayUrl() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Hides the password. */
    @Override
    public String toString() {
        return "Endpoint[" + displayUrl() + ", user=" + user + ", dialect=" + dialect + "]";
    }

    /**
     * A connected endpoint.
     *
     * @param endpoint   where
     * @param dataSource its connections
     * @param rq         rowqueue on it
     * @param dialect    the dialect serving it
     */
    public record Opened(Endpoint endpoint, DataSource dataSource, RowQueues rq, Dialect dialect)
            implements AutoCloseable {
        /** @return product, version and dialect, e.g. "H2 2.5.252 (dialect h2)" */
        public String describe() {
            return rq.database().productName() + " " + rq.database().productVersion() + " (dialect "
                    + rq.database().dialect() + ")";
        }

        @Override
        public void close() {
            rq.close();
        }
    }
}
