package dev.rowqueue.postgres;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;

import dev.rowqueue.support.SqlForms;
import dev.rowqueue.support.StatementSets;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * PostgreSQL 10 and later. Every hot operation is one statement in auto-commit mode, so one round trip:
 * <ul>
 *   <li>ring push (one payload or many): a CTE bumps the group's head row with {@code INSERT ... ON CONFLICT (grp)
 *       DO UPDATE ... RETURNING} and feeds the slot upsert ({@link PostgresRing});</li>
 *   <li>claim: {@code UPDATE ... FROM (SELECT ... FOR UPDATE SKIP LOCKED) ... RETURNING} over a partial index of live
 *       jobs ({@link PostgresWorkForms});</li>
 *   <li>counters: {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE <range guard> RETURNING}
 *       ({@link PostgresStatements#counters});</li>
 *   <li>enqueue, nack and release also send a {@code NOTIFY} in the same statement, which wakes blocking claims
 *       ({@link PgWakeups}).</li>
 * </ul>
 * It also offers the source articles' single statement as {@link RingStrategy#SINGLE_WRITER} and a trigger-enforced cap
 * as {@link RingStrategy#TRIGGER}. Times come from the server's clock ({@code statement_timestamp()}).
 *
 * <p>Session settings ({@link #sessionSettings()}): {@code statement_timeout} and {@code lock_timeout} are pinned
 * to 0 once per physical connection; the isolation is READ COMMITTED through JDBC; a read-only default, a
 * {@code search_path} without an existing schema and {@code session_replication_role = replica} are refused at
 * {@code build()}.
 *
 * <p>Options ({@code RowQueues.Builder.dialectOption}): {@value #OPTION_WAKEUP} = {@code listen} (default) or
 * {@code poll}; {@value #OPTION_WAKEUP_POLL_MILLIS} = the longest a blocking claim sleeps between claims while
 * listening (default {@value #DEFAULT_WAKEUP_POLL_MILLIS}): it bounds how late a job is seen that became due without a
 * notification (a lease that ran out, a delay announced before the listener started); {@value #OPTION_NOTIFY} =
 * {@code true} (default) or {@code false}: whether this instance's enqueues, nacks, releases and revivals send
 * {@code NOTIFY}. PostgreSQL serializes the commits of all notifying transactions of the server, so concurrent
 * enqueues of one queue share their notifications ({@link Notices}), and a producer that needs the last bit of enqueue
 * throughput can turn them off; listening claims elsewhere then see its jobs through their bounded poll.
 */
public class PostgresDialect extends Dialect {

    /** {@code LIMIT :n}, {@code FOR UPDATE SKIP LOCKED}, and the server's clock. */
    private static final SqlForms FORMS = SqlForms.STANDARD.withLimit(SqlForms.LIMIT)
            .withSkipLocked(SqlForms.SKIP_LOCKED)
            .withNow("CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT)");

    /** The dialect's name. */
    public static final String NAME = "postgresql";
    /** The oldest supported major version: identity columns (10), everything else is older. */
    public static final int OLDEST_MAJOR = 10;
    /** The option choosing how blocking claims wait: {@code listen} or {@code poll}. */
    public static final String OPTION_WAKEUP = "wakeup";
    /** The option bounding a listening blocking claim's sleep, in milliseconds. */
    public static final String OPTION_WAKEUP_POLL_MILLIS = "wakeupPollMillis";
    /** The option choosing whether writes send {@code NOTIFY}: {@code true} or {@code false}. */
    public static final String OPTION_NOTIFY = "notify";
    /** The default of {@link #OPTION_WAKEUP_POLL_MILLIS}. */
    public static final long DEFAULT_WAKEUP_POLL_MILLIS = 1000;
    /**
     * The longest payload accepted: payload columns are {@code TEXT}; this is the limit PostgreSQL itself puts on a
     * declared {@code VARCHAR(n)}, in characters.
     */
    public static final int MAX_PAYLOAD = 10_485_760;

    private final boolean listen;
    private final boolean notify;
    private final long wakeupPollMillis;
    private final SchemaDdl ddl = new Ddl();
    /** The coalesced notifications of each channel, shared by every handle of the queue in this instance. */
    private final java.util.Map<String, Notices> notices = new java.util.concurrent.ConcurrentHashMap<>();
    /** What the data source's driver lacks for {@code LISTEN}, in words, once {@link #wakeupSource} asked; or "". */
    private volatile String driverGap = "";

    /**
     * @param product          a PostgreSQL server, version {@value #OLDEST_MAJOR} or later
     * @param listen           whether blocking claims sleep on {@code LISTEN/NOTIFY}
     * @param notify           whether writes that make jobs claimable send {@code NOTIFY}
     * @param wakeupPollMillis the longest sleep of a listening blocking claim
     */
    public PostgresDialect(DatabaseProduct product, boolean listen, boolean notify, long wakeupPollMillis) {
        super(product);
        this.listen = listen;
        this.notify = notify;
        this.wakeupPollMillis = wakeupPollMillis;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** {@link #PIN}, once per physical connection. */
    private final dev.rowqueue.support.SessionPin pinned = new dev.rowqueue.support.SessionPin(PIN);

    /**
     * The pin of {@link #prepareConnection}: {@code statement_timeout} and {@code lock_timeout} to 0, each only where
     * the session has another value, in one statement. A server-wide or per-database timeout cancels a claim or a
     * push that waits for a hot row's lock (57014), which the core cannot tell from a user's cancel; rowqueue bounds
     * its own waits with the builder's {@code statementTimeout} (the driver's network timeout) instead.
     */
    static final String PIN = "SELECT set_config(name, setting, false) FROM (VALUES ('statement_timeout', '0'),"
            + " ('lock_timeout', '0')) AS pin(name, setting) WHERE current_setting(name) <> setting";

    /** The settings {@link #checkSession} reads, in one statement. */
    static final String SESSION_QUERY = "SELECT current_setting('default_transaction_read_only'),"
            + " current_schema(), current_setting('search_path'), current_setting('session_replication_role')";

    static final dev.rowqueue.spi.SessionSetting TIMEOUTS = new dev.rowqueue.spi.SessionSetting(
            "statement_timeout, lock_timeout", dev.rowqueue.spi.SessionSetting.Handling.PINNED, "0",
            "a claim or push waiting for a hot row's lock must not be cancelled by the server; the builder's"
                    + " statementTimeout bounds rowqueue's waits");
    static final dev.rowqueue.spi.SessionSetting ISOLATION = new dev.rowqueue.spi.SessionSetting(
            "default_transaction_isolation", dev.rowqueue.spi.SessionSetting.Handling.SET_THROUGH_JDBC,
            "read committed", "every operation runs at READ COMMITTED (policy()); at a stricter default the core"
                    + " sets it with setTransactionIsolation and puts the default back");
    static final dev.rowqueue.spi.SessionSetting READ_ONLY = new dev.rowqueue.spi.SessionSetting(
            "default_transaction_read_only", dev.rowqueue.spi.SessionSetting.Handling.REFUSED_OTHERWISE, "off",
            "every queue operation writes");
    static final dev.rowqueue.spi.SessionSetting SEARCH_PATH = new dev.rowqueue.spi.SessionSetting("search_path",
            dev.rowqueue.spi.SessionSetting.Handling.REFUSED_OTHERWISE, "a path whose first existing schema holds"
                    + " the queue tables", "tables are created and found unqualified, in current_schema()");
    static final dev.rowqueue.spi.SessionSetting REPLICATION_ROLE = new dev.rowqueue.spi.SessionSetting(
            "session_replication_role", dev.rowqueue.spi.SessionSetting.Handling.REFUSED_OTHERWISE,
            "origin or local", "the trigger ring strategy's cap is a trigger, which does not fire at replica");

    /**
     * The settings the dialect's SQL depends on. Pinned: {@code statement_timeout} and {@code lock_timeout}
     * ({@link #PIN}). Set through JDBC: the isolation ({@link #policy()}), which is not pinned because a pool's
     * configured isolation is the application's, and a pinned default would change it on a shared connection.
     * Refused ({@link #checkSession}): {@code default_transaction_read_only = on} (pinning it off would undo what a
     * DBA set to stop writes); a {@code search_path} that names
     * no existing schema ({@code current_schema()} is NULL, so nothing can be created); and
     * {@code session_replication_role = replica}. A {@code search_path} that names another existing schema is the
     * user's choice of where the tables live and is kept; {@code pg_catalog} is searched first unless the path names
     * it later. A hot standby ({@code transaction_read_only = on} with the default off) is not refused: behind a
     * failover URL it may be the primary a moment later, and until then each write fails with 25006.
     */
    @Override
    public List<dev.rowqueue.spi.SessionSetting> sessionSettings() {
        return List.of(AUTO_COMMIT, TIMEOUTS, ISOLATION, READ_ONLY, SEARCH_PATH, REPLICATION_ROLE);
    }

    /**
     * Runs {@link #PIN} once per physical connection (one round trip when a pool opens a connection, none on later
     * borrows; see {@link Dialect}, "Session settings"). It changes the session only where a timeout is set.
     */
    @Override
    public void prepareConnection(java.sql.Connection connection) throws SQLException {
        pinned.apply(connection);
    }

    /** Reads {@link #SESSION_QUERY} and refuses what {@link #sessionSettings()} says it refuses. */
    @Override
    public void checkSession(java.sql.Connection connection) throws SQLException {
        try (java.sql.Statement s = connection.createStatement();
             java.sql.ResultSet rs = s.executeQuery(SESSION_QUERY)) {
            rs.next();
            refuseSession(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4));
        }
        super.checkSession(connection);
    }

    /**
     * @param defaultReadOnly {@code default_transaction_read_only}
     * @param schema          {@code current_schema()}, or {@code null}
     * @param searchPath      {@code search_path}
     * @param replicationRole {@code session_replication_role}
     * @throws dev.rowqueue.SessionSettingException for a value the dialect cannot run with
     */
    static void refuseSession(String defaultReadOnly, String schema, String searchPath, String replicationRole) {
        if ("on".equalsIgnoreCase(defaultReadOnly)) {
            throw READ_ONLY.refuse(defaultReadOnly, "it was set for the server, the database or the role"
                    + " (ALTER DATABASE|ROLE ... SET default_transaction_read_only); rowqueue does not override it."
                    + " Reset it for rowqueue's role: ALTER ROLE <role> SET default_transaction_read_only = off");
        }
        if (schema == null) {
            throw SEARCH_PATH.refuse(searchPath, "no schema on it exists, so current_schema() is NULL; create one or"
                    + " set search_path (ALTER ROLE <role> SET search_path = ..., or currentSchema= in the URL)");
        }
        if ("replica".equalsIgnoreCase(replicationRole)) {
            throw REPLICATION_ROLE.refuse(replicationRole, "set it back to origin for rowqueue's role");
        }
    }

    @Override
    public Set<Capability> capabilities() {
        EnumSet<Capability> c = EnumSet.of(Capability.SKIP_LOCKED, Capability.RETURNING, Capability.UPSERT,
                Capability.DATABASE_CLOCK, Capability.SINGLE_WRITER_RING, Capability.TRIGGER_RING);
        if (listen && driverGap.isEmpty()) {
            c.add(Capability.WAKEUP);
        }
        return Collections.unmodifiableSet(c);
    }

    /**
     * Every operation runs at READ COMMITTED, whatever the pool's default, single statements too. At REPEATABLE READ
     * and SERIALIZABLE a statement that meets a row a concurrent transaction changed fails with {@code 40001} instead
     * of waiting and reading the new row: with a pool at REPEATABLE READ, concurrent producers on one ring group see
     * some pushes fail after all their retries (docs/postgresql.md, "Isolation"). pgjdbc answers
     * {@code getTransactionIsolation()} with a round trip, so the core reads the level once per physical connection;
     * at a READ COMMITTED pool an operation stays one round trip, at a stricter one it costs two more
     * ({@code SET SESSION CHARACTERISTICS} to READ COMMITTED and back).
     *
     * <p>Claims: the processors of this JVM, at least 2: more claimers of one queue wait in the JVM and run together
     * as one claim, one statement for many jobs, instead of each skipping the others' locked rows at the head of the
     * claim index. With more consumers than cores this raises throughput, most for one job per claim; with few
     * consumers it makes no difference. The limit pays only because waiting claims run together. Payloads are
     * {@code TEXT}, up to {@link #MAX_PAYLOAD} characters.
     */
    @Override
    public DialectPolicy policy() {
        return POLICY;
    }

    private static final DialectPolicy POLICY = DialectPolicy.DEFAULTS
            .withClaimConcurrency(DialectPolicy.processorsAtLeastTwo()).withMaxPayloadLength(MAX_PAYLOAD)
            .withEnforceReadCommitted(true).withReadCommittedStatements(true);

    /**
     * Payloads are {@code TEXT}. The jobs table's indexes are partial ({@link DdlFeatures#liveJobIndexes()}):
     * {@code (prio DESC, due_ms, id)} over live jobs, which a claim walks in order and leaves after {@code n} rows
     * however many jobs are dead; {@code (id)} over dead jobs; {@code (key_seq, prio DESC, id)} over live jobs for
     * fair claims; and the key indexes over the rows that have a key, so queues without keys pay nothing for them.
     * The safe strategy's entries have no {@code (grp, seq)} index: a push after the first lap overwrites a slot, and
     * with {@code seq} in an index that update must write a new entry into both indexes; without it PostgreSQL
     * updates the row in place on its page (a HOT update) and touches no index. Its reads find the newest entries
     * through the head row instead ({@link PostgresRing#newestByHead}). Trigger rings add their trigger function
     * and trigger.
     */
    @Override
    public SchemaDdl ddl() {
        return ddl;
    }

    private static final DdlFeatures DDL = DdlFeatures.builder(ColumnTypes.STANDARD.with(Schema.Type.PAYLOAD, "TEXT"))
            .payloadLength(MAX_PAYLOAD).ifNotExists(true).partialIndexes(true).liveJobIndexes(true)
            .ringSeqIndex(false).build();

    /** The standard DDL of {@link #DDL}, and a trigger ring's trigger function and trigger. */
    private final class Ddl extends SchemaDdl {
        Ddl() {
            super(DDL);
        }

        @Override
        public List<String> ring(RingTables t, RingOptions options) {
            List<String> ddl = new ArrayList<>(super.ring(t, options));
            if (options.strategy() == RingStrategy.TRIGGER) {
                ddl.addAll(PostgresTriggerRing.ddl(PostgresDialect.this, t, options.capacity()));
            }
            return ddl;
        }
    }

    /**
     * Epoch milliseconds of {@code statement_timestamp()}: the server's clock, fixed for the statement (STABLE, unlike
     * the volatile {@code clock_timestamp()}), so the planner can compare indexed columns with it.
     */
    @Override
    public SqlForms sqlForms() {
        return FORMS;
    }

    /** @return whether {@code WITH ... AS MATERIALIZED} exists (12+; older servers always materialize a CTE) */
    boolean hasMaterializedCte() {
        return product.majorVersion() >= 12;
    }

    /** @return the trigger DDL keyword: {@code EXECUTE FUNCTION} (11+) or the older {@code EXECUTE PROCEDURE} */
    String triggerExecute() {
        return product.majorVersion() >= 11 ? "EXECUTE FUNCTION" : "EXECUTE PROCEDURE";
    }

    /** Work queues, rings and counters: {@link PostgresStatements}. */
    @Override
    protected StatementSets statements() {
        return new PostgresStatements(this, notify);
    }

    /**
     * With {@code wakeup=listen} (the default), a source that {@code LISTEN}s on one dedicated connection of the data
     * source, opened on the first blocking claim. Where the data source's connections are not pgjdbc's
     * ({@value PgWakeups#DRIVER_API}: another driver, such as pgjdbc-ng), none: blocking claims poll, with a WARN, and
     * the dialect's description ({@link #toString}, the TCK report's "Dialect settings") says why, by name.
     */
    @Override
    public Optional<WakeupSource> wakeupSource(DataSource dataSource, Duration pollInterval) {
        if (!listen) {
            return Optional.empty();
        }
        String gap = PgListener.driverGap(dataSource);
        if (gap != null) {
            driverGap = gap;
            PgWakeups.log().warn("rowqueue: {}", gap);
            return Optional.empty();
        }
        return Optional.of(new PgWakeups(dataSource, Duration.ofMillis(wakeupPollMillis), pollInterval));
    }

    /**
     * @param channel a queue's {@code NOTIFY} channel
     * @return the coalescing of its enqueues' notifications in this instance ({@link Notices})
     */
    Notices notices(String channel) {
        return notices.computeIfAbsent(channel, c -> new Notices());
    }

    /**
     * @param t a work queue's tables
     * @return the {@code NOTIFY} channel of the queue
     */
    static String channel(WorkTables t) {
        return "rowqueue_" + t.queue();
    }

    @Override
    public SqlErrors sqlErrors() {
        return ERRORS;
    }

    private static final SqlErrors ERRORS = new Errors();

    /**
     * PostgreSQL's SQLStates: {@code 40001} serialization failure and {@code 40P01} deadlock (rolled back),
     * {@code 55P03} lock not available, {@code 57P01/57P02/57P03} server shut down, crashed or starting up and
     * {@code 53300} too many connections (the connection is gone or was refused), {@code 08xxx} connection errors,
     * {@code 23505} unique violation, {@code 42P07}/{@code 42710}/{@code 42723} relation, object or function already
     * exists, {@code 42P01} undefined table, {@code 22003} numeric value out of range.
     */
    private static final class Errors extends SqlErrors {
        @Override
        protected SqlErrorKind classifyOne(SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            switch (state) {
                case "57P01": // admin_shutdown: terminated by pg_terminate_backend or a fast shutdown
                case "57P02": // crash_shutdown
                case "57P03": // cannot_connect_now: the server is starting up or shutting down
                case "53300": // too_many_connections
                    return SqlErrorKind.CONNECTION;
                case "42710": // duplicate_object (a trigger)
                case "42723": // duplicate_function
                    return SqlErrorKind.ALREADY_EXISTS;
                default:
                    return super.classifyOne(e);
            }
        }

        /**
         * Besides the standard "not connected" states, {@code 57P03} (the server is starting up) and {@code 53300}
         * (too many connections) are only ever raised while connecting, so the work never ran.
         */
        @Override
        public boolean failedBeforeSending(SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            return super.failedBeforeSending(e) || state.equals("57P03") || state.equals("53300");
        }
    }

    /** @return the dialect and database, and what the driver lacks for {@code LISTEN} if {@link #wakeupSource} found so */
    @Override
    public String toString() {
        return super.toString() + (driverGap.isEmpty() ? "" : "; " + driverGap);
    }
}
