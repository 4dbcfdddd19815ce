package dev.rowqueue.mysql;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;
import dev.rowqueue.support.SqlForms;
import dev.rowqueue.support.StatementSets;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The MySQL family: MySQL 5.7, 8.x and 9.x, MariaDB 10.x and 11.x (InnoDB), through MySQL Connector/J or MariaDB
 * Connector/J. It needs no driver class: everything goes through plain JDBC.
 *
 * <p>What it does differently from the portable dialect:
 * <ul>
 *   <li><b>Exact keys.</b> Groups, counter keys and cursor names must compare byte for byte ('a', 'A', 'a ' and
 *       ' a' are four keys), but MySQL's default collations ignore case and the {@code PAD SPACE} ones (including
 *       {@code utf8mb4_bin}) ignore trailing spaces. Key columns are {@code VARCHAR(200)} in utf8mb4 with a
 *       {@code NO PAD} binary collation ({@code utf8mb4_nopad_bin} on MariaDB 10.2.2+, {@code utf8mb4_0900_bin}
 *       on MySQL 8.0.17+), or {@code VARBINARY(600)} where the server has none (MySQL 5.7, MariaDB 10.0/10.1):
 *       600 bytes hold any 200 UTF-16 code units in UTF-8.</li>
 *   <li><b>Payloads</b> are {@code MEDIUMTEXT} in utf8mb4, accepted up to {@value #MAX_PAYLOAD} characters
 *       (at most 3,000,000 bytes: inside MEDIUMTEXT's 16 MiB and MySQL 5.7's default 4 MiB packet).</li>
 *   <li><b>Time</b> is epoch milliseconds of {@code UTC_TIMESTAMP(3)}, independent of the session time zone and
 *       free of the daylight-saving ambiguity of {@code UNIX_TIMESTAMP(NOW())}.</li>
 *   <li><b>Ring push</b> (safe strategy): the head row is bumped with
 *       {@code INSERT ... VALUES (:grp, LAST_INSERT_ID(:n)) ON DUPLICATE KEY UPDATE last_seq =
 *       LAST_INSERT_ID(last_seq + :n)}, whose new value arrives as the driver's generated key, then all slots are
 *       written with one multi-row {@code INSERT ... ON DUPLICATE KEY UPDATE}: two statements per push, whatever
 *       its size, in one transaction. On MariaDB 10.5+ a push of at most the capacity is one
 *       {@code INSERT ... RETURNING seq} whose {@code BEFORE INSERT} trigger bumps the head row. The single-writer
 *       strategy is the {@code INSERT ... SELECT MAX(seq) + 1 ... ON DUPLICATE KEY UPDATE} of "How to implement a queue
 *       in SQL" or the {@code REPLACE ... SELECT} of "MySQL Queues, part II — groups of queues" (option
 *       {@value #OPTION_SINGLE_WRITER}).</li>
 *   <li><b>Claim</b>: {@code SELECT ... FOR UPDATE SKIP LOCKED} then {@code UPDATE} by id where the server has
 *       SKIP LOCKED (MySQL 8.0.1+, MariaDB 10.6+), else the claim of the article "mysql 队列 实现并发读" (MySQL queue:
 *       concurrent reads), {@code UPDATE ... SET ..., id = LAST_INSERT_ID(id) ... ORDER BY prio DESC, due_ms, id
 *       LIMIT 1} with the update count (option {@value #OPTION_CLAIM} forces either).</li>
 *   <li><b>Counters</b> in one statement with the {@code LAST_INSERT_ID(expr)} of the MySQL Cookbook's "Using
 *       Single-Row Sequence Generators".</li>
 *   <li><b>Enqueue</b> of a batch in one statement with {@code INSERT ... RETURNING id} on MariaDB 10.5+.</li>
 *   <li><b>Errors</b> by vendor code: 1213 deadlock and MariaDB's 1020 snapshot conflict (rolled back, retried),
 *       1205 lock wait timeout (rolled back, then retried), 1062 duplicate key, 1050/1061 already exists,
 *       1146 missing table, 1690 out of range, 2006/2013/1927 connection lost.</li>
 *   <li><b>Galera</b> ({@code wsrep_on = ON}, asked once at start-up): no push trigger, session settings
 *       {@link #GALERA_SESSION} once per connection, and Galera's errors; see {@link #galera()}.</li>
 *   <li><b>Session settings</b>: {@code sql_mode} is pinned to {@link #SQL_MODE} once per physical connection, so a
 *       server set to {@code sql_mode=ORACLE} (or {@code ANSI_QUOTES}, {@code PIPES_AS_CONCAT}, ...) runs the same
 *       statements; {@code autocommit} is read back at {@code build()} ({@link #sessionSettings()}).</li>
 * </ul>
 *
 * <p>Options (builder {@code dialectOption(key, value)}):
 * <ul>
 *   <li>{@value #OPTION_CLAIM}: {@code skip-locked} or {@code last-insert-id}; default by server version;</li>
 *   <li>{@value #OPTION_SINGLE_WRITER}: {@code upsert} (default) or {@code replace};</li>
 *   <li>{@value #OPTION_KEY_TYPE}: {@code varchar} or {@code varbinary}; default by server version. It decides the
 *       DDL of new tables only.</li>
 * </ul>
 */
public class MySqlDialect extends Dialect {

    /** The MySQL provider's dialect name. */
    public static final String MYSQL = "mysql";
    /** The MariaDB provider's dialect name. */
    public static final String MARIADB = "mariadb";
    /** Option: which claim statement to use. */
    public static final String OPTION_CLAIM = "mysql.claim";
    /** Option: which statement the single-writer ring strategy uses. */
    public static final String OPTION_SINGLE_WRITER = "mysql.singleWriter";
    /** Option: the type of key columns in new tables. */
    public static final String OPTION_KEY_TYPE = "mysql.keyType";
    /** The longest payload, in characters (UTF-16 code units, as {@link String#length()}). */
    public static final int MAX_PAYLOAD = 1_000_000;
    /** Bytes of a {@code VARBINARY} key: UTF-8 needs at most 3 bytes per UTF-16 code unit. */
    static final int KEY_BYTES = 3 * KEY_LENGTH;

    /** How a claim finds and leases jobs. */
    public enum ClaimPath {
        /** {@code SELECT ... FOR UPDATE SKIP LOCKED}, then {@code UPDATE} by id (MySQL 8.0.1+, MariaDB 10.6+). */
        SKIP_LOCKED,
        /**
         * The claim of the concurrent-reads article: {@code UPDATE ... id = LAST_INSERT_ID(id) ... ORDER BY ...
         * LIMIT 1}, once per job.
         */
        LAST_INSERT_ID;

        /** @return the option value */
        public String value() {
            return optionValue(this);
        }
    }

    /** The single statement of {@link RingStrategy#SINGLE_WRITER}. */
    public enum SingleWriterStatement {
        /** "How to implement a queue in SQL": {@code INSERT ... SELECT MAX(seq) + 1 ... ON DUPLICATE KEY UPDATE}. */
        UPSERT,
        /** "Groups of queues": {@code REPLACE ... SELECT MAX(seq) + 1 ...}. */
        REPLACE;

        /** @return the option value */
        public String value() {
            return optionValue(this);
        }
    }

    /**
     * Whether the server is a member of a MySQL Group Replication group (InnoDB Cluster), and in which mode, as the
     * server says ({@link #groupReplication(Connection)}).
     */
    public enum GroupReplication {
        /** Not a group member. */
        NONE,
        /** A member of a single-primary group: one member takes writes, the others refuse them until elected. */
        SINGLE_PRIMARY,
        /** A member of a multi-primary group: every member takes writes; conflicts fail certification at commit. */
        MULTI_PRIMARY
    }

    /** The type of group, counter key and cursor name columns. */
    public enum KeyType {
        /** {@code VARCHAR(200)} in utf8mb4 with a NO PAD binary collation. */
        VARCHAR,
        /** {@code VARBINARY(600)}: bytes, compared exactly on every version. */
        VARBINARY;

        /** @return the option value */
        public String value() {
            return optionValue(this);
        }
    }

    private final String name;
    private final ServerVersion version;
    private final ClaimPath claimPath;
    private final SingleWriterStatement singleWriter;
    private final KeyType keyType;
    private final SchemaDdl ddl;
    private final DialectPolicy policy;
    private final SqlErrors errors = new Errors();
    private final boolean galera;
    private final GroupReplication groupReplication;
    /** The statement {@link #prepareConnection} runs once per physical connection. */
    private final dev.rowqueue.support.SessionPin pin;

    /**
     * The {@code sql_mode} every connection rowqueue uses is pinned to, whatever the server's or the pool's: strict
     * (a value a column cannot hold fails instead of being cut), and nothing that changes how the dialect's SQL
     * parses or what it means. The server's mode may be anything a DBA chose: {@code ORACLE} (MariaDB's Oracle
     * compatibility) makes {@code BEGIN NOT ATOMIC ... DECLARE}, the compound claim and push, a syntax error, and
     * brings {@code ANSI_QUOTES}, {@code PIPES_AS_CONCAT}, {@code IGNORE_SPACE} and
     * {@code SIMULTANEOUS_ASSIGNMENT} (which changes what {@code UPDATE ... SET a = ..., b = a} assigns);
     * {@code EMPTY_STRING_IS_NULL} stores an empty payload as NULL; {@code NO_BACKSLASH_ESCAPES} changes string
     * literals; {@code ONLY_FULL_GROUP_BY} refuses some reads. Valid on MySQL 5.7+ and MariaDB 10.0+.
     */
    static final String SQL_MODE = "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION";

    /** The statement that pins {@link #SQL_MODE} on a connection once ({@link #prepareConnection}). */
    static final String SESSION = "SET SESSION sql_mode = '" + SQL_MODE + "'";

    /**
     * The session settings of every connection rowqueue uses on a Galera node, with {@link #SESSION}'s in the same
     * statement. {@code wsrep_retry_autocommit = 0}:
     * the server must not replay an auto-commit statement that lost certification, since it may already have sent
     * the client the first attempt's rows ({@code INSERT ... RETURNING}); the statement fails with 1213 instead and
     * the core retries it whole. {@code wsrep_sync_wait = 7} (reads, {@code UPDATE}/{@code DELETE},
     * {@code INSERT}/{@code REPLACE}): a statement first waits until the node has applied every write set the cluster
     * had committed when it began, so an operation sees what any node committed before it started (a job pushed,
     * claimed or acknowledged elsewhere, a table created elsewhere).
     */
    static final String GALERA_SESSION = SESSION + ", wsrep_retry_autocommit = 0, wsrep_sync_wait = 7";

    /**
     * The session settings of every connection rowqueue uses on a Group Replication member, with {@link #SESSION}'s
     * in the same statement: a transaction first waits
     * until the member has applied every transaction the group had committed when it began, so an operation sees what
     * any member committed before it started (a job pushed, claimed or acknowledged on another member). At the
     * default ({@code EVENTUAL}), reads on one member right after commits on another can miss those writes; at
     * {@code BEFORE} they cannot (docs/mysql.md, "MySQL Group Replication").
     */
    static final String GROUP_REPLICATION_SESSION = SESSION + ", group_replication_consistency = 'BEFORE'";

    /** {@code sql_mode}, pinned to {@link #SQL_MODE} ({@link #sessionSettings()}). */
    static final dev.rowqueue.spi.SessionSetting SQL_MODE_SETTING = new dev.rowqueue.spi.SessionSetting("sql_mode",
            dev.rowqueue.spi.SessionSetting.Handling.PINNED, SQL_MODE,
            "compound statements (BEGIN NOT ATOMIC, MariaDB), quotes, || and empty strings mean what the dialect's SQL"
                    + " says only without ORACLE, ANSI_QUOTES, PIPES_AS_CONCAT, EMPTY_STRING_IS_NULL,"
                    + " NO_BACKSLASH_ESCAPES and their kin");
    /** {@code autocommit}, set through JDBC and checked against the server's own ({@link #checkSession}). */
    static final dev.rowqueue.spi.SessionSetting AUTOCOMMIT_SETTING = new dev.rowqueue.spi.SessionSetting(
            "autocommit", dev.rowqueue.spi.SessionSetting.Handling.SET_THROUGH_JDBC,
            "what the driver reports (setAutoCommit)",
            "the core runs single statements in auto-commit mode and ends every transaction itself; a session whose"
                    + " @@autocommit differs from what the driver reports would leave statements uncommitted");

    /**
     * @param name         the dialect's name ({@link #MYSQL} or {@link #MARIADB})
     * @param product      the database
     * @param claimPath    the claim statement; must be available on the server
     * @param singleWriter the single-writer statement
     * @param keyType      the key column type; must be available on the server
     */
    public MySqlDialect(String name, DatabaseProduct product, ClaimPath claimPath, SingleWriterStatement singleWriter,
                        KeyType keyType) {
        this(name, product, claimPath, singleWriter, keyType, false);
    }

    /**
     * @param name         the dialect's name ({@link #MYSQL} or {@link #MARIADB})
     * @param product      the database
     * @param claimPath    the claim statement; must be available on the server
     * @param singleWriter the single-writer statement
     * @param keyType      the key column type; must be available on the server
     * @param galera       whether the server is a Galera cluster node ({@code wsrep_on = ON}; see {@link #galera()})
     */
    public MySqlDialect(String name, DatabaseProduct product, ClaimPath claimPath, SingleWriterStatement singleWriter,
                        KeyType keyType, boolean galera) {
        this(name, product, claimPath, singleWriter, keyType, galera, GroupReplication.NONE);
    }

    /**
     * @param name             the dialect's name ({@link #MYSQL} or {@link #MARIADB})
     * @param product          the database
     * @param claimPath        the claim statement; must be available on the server
     * @param singleWriter     the single-writer statement
     * @param keyType          the key column type; must be available on the server
     * @param galera           whether the server is a Galera cluster node
     * @param groupReplication whether the server is a Group Replication member, and in which mode (see
     *                         {@link #groupReplication()})
     */
    public MySqlDialect(String name, DatabaseProduct product, ClaimPath claimPath, SingleWriterStatement singleWriter,
                        KeyType keyType, boolean galera, GroupReplication groupReplication) {
        super(product);
        this.galera = galera;
        this.groupReplication = java.util.Objects.requireNonNull(groupReplication, "groupReplication");
        this.pin = new dev.rowqueue.support.SessionPin(galera ? GALERA_SESSION
                : groupReplication != GroupReplication.NONE ? GROUP_REPLICATION_SESSION : SESSION);
        this.name = name;
        this.version = ServerVersion.of(product);
        this.claimPath = claimPath;
        this.singleWriter = singleWriter;
        this.keyType = keyType;
        if (claimPath == ClaimPath.SKIP_LOCKED && !hasSkipLocked(version)) {
            throw new IllegalArgumentException(OPTION_CLAIM + "=" + claimPath.value() + " needs MySQL 8.0.1+ or"
                    + " MariaDB 10.6+; the server is " + version);
        }
        if (keyType == KeyType.VARCHAR && !hasNoPadBinaryCollation(version)) {
            throw new IllegalArgumentException(OPTION_KEY_TYPE + "=" + keyType.value() + " needs a NO PAD binary"
                    + " collation (MySQL 8.0.17+, MariaDB 10.2.2+); the server is " + version);
        }
        this.ddl = new Ddl();
        RetryPolicy d = RetryPolicy.defaults();
        this.policy = DialectPolicy.DEFAULTS.withClaimConcurrency(DialectPolicy.processorsAtLeastTwo())
                .withMaxPayloadLength(MAX_PAYLOAD)
                .withRetryPolicy(galera || groupReplication == GroupReplication.MULTI_PRIMARY
                        ? new RetryPolicy(GALERA_ATTEMPTS, d.initialBackoff(), d.maxBackoff()) : d)
                .withReissuesExistingSchema(groupReplication == GroupReplication.NONE);
    }

    /**
     * Creates the dialect from builder options, refusing unknown keys and values.
     *
     * @param name    the dialect's name
     * @param product the database
     * @param options {@value #OPTION_CLAIM}, {@value #OPTION_SINGLE_WRITER}, {@value #OPTION_KEY_TYPE}
     * @return the dialect
     * @throws IllegalArgumentException for an unknown option or value, or one the server cannot honour
     */
    public static MySqlDialect create(String name, DatabaseProduct product, Map<String, String> options) {
        return create(name, product, options, false);
    }

    /**
     * Creates the dialect for a server it has asked whether it is a Galera node ({@link #isGalera}).
     *
     * @param name    the dialect's name
     * @param product the database
     * @param options {@value #OPTION_CLAIM}, {@value #OPTION_SINGLE_WRITER}, {@value #OPTION_KEY_TYPE}
     * @param galera  whether the server is a Galera cluster node
     * @return the dialect
     * @throws IllegalArgumentException for an unknown option or value, or one the server cannot honour
     */
    public static MySqlDialect create(String name, DatabaseProduct product, Map<String, String> options,
                                      boolean galera) {
        return create(name, product, options, galera, GroupReplication.NONE);
    }

    /**
     * Creates the dialect for a server it has asked whether it is a Galera node ({@link #isGalera}) or a Group
     * Replication member ({@link #groupReplication(Connection)}).
     *
     * @param name             the dialect's name
     * @param product          the database
     * @param options          {@value #OPTION_CLAIM}, {@value #OPTION_SINGLE_WRITER}, {@value #OPTION_KEY_TYPE}
     * @param galera           whether the server is a Galera cluster node
     * @param groupReplication whether the server is a Group Replication member, and in which mode
     * @return the dialect
     * @throws IllegalArgumentException for an unknown option or value, or one the server cannot honour
     */
    public static MySqlDialect create(String name, DatabaseProduct product, Map<String, String> options,
                                      boolean galera, GroupReplication groupReplication) {
        for (String key : options.keySet()) {
            if (!List.of(OPTION_CLAIM, OPTION_SINGLE_WRITER, OPTION_KEY_TYPE).contains(key)) {
                throw new IllegalArgumentException("unknown option '" + key + "' of dialect " + name + "; known: "
                        + OPTION_CLAIM + ", " + OPTION_SINGLE_WRITER + ", " + OPTION_KEY_TYPE);
            }
        }
        ServerVersion v = ServerVersion.of(product);
        ClaimPath claim = option(options, OPTION_CLAIM, ClaimPath.values(), ClaimPath::value,
                hasSkipLocked(v) ? ClaimPath.SKIP_LOCKED : ClaimPath.LAST_INSERT_ID);
        SingleWriterStatement sw = option(options, OPTION_SINGLE_WRITER, SingleWriterStatement.values(),
                SingleWriterStatement::value, SingleWriterStatement.UPSERT);
        KeyType keys = option(options, OPTION_KEY_TYPE, KeyType.values(), KeyType::value,
                hasNoPadBinaryCollation(v) ? KeyType.VARCHAR : KeyType.VARBINARY);
        return new MySqlDialect(name, product, claim, sw, keys, galera, groupReplication);
    }

    /**
     * Asks the server whether it is a Galera cluster node: {@code wsrep_on} is ON (MariaDB Galera, Percona XtraDB
     * Cluster). Servers without wsrep have no such variable, and {@code SHOW VARIABLES} then returns no row.
     *
     * @param connection a connection in auto-commit mode
     * @return whether replication through Galera is on for the server
     * @throws SQLException from the driver
     */
    static boolean isGalera(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name = 'wsrep_on'")) {
            return rs.next() && "ON".equalsIgnoreCase(rs.getString(2));
        }
    }

    /**
     * Asks the server whether it is a member of a Group Replication group: its own row in
     * {@code performance_schema.replication_group_members} is in a state other than OFFLINE (ONLINE, RECOVERING,
     * UNREACHABLE, ERROR), and then {@code group_replication_single_primary_mode} gives the mode. A server without
     * the plugin, without performance_schema, or MariaDB (no {@code @@server_uuid}) is no member.
     *
     * @param connection a connection in auto-commit mode
     * @return the server's Group Replication mode, {@link GroupReplication#NONE} if it is no member
     * @throws SQLException from the driver, for a connection failure
     */
    static GroupReplication groupReplication(Connection connection) throws SQLException {
        String state;
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT MEMBER_STATE FROM performance_schema.replication_group_members"
                     + " WHERE MEMBER_ID = @@server_uuid")) {
            state = rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw e;
            }
            return GroupReplication.NONE; // no such table or variable: not MySQL with Group Replication
        }
        if (state == null || state.isBlank() || "OFFLINE".equalsIgnoreCase(state)) {
            return GroupReplication.NONE;
        }
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name ="
                     + " 'group_replication_single_primary_mode'")) {
            return rs.next() && "OFF".equalsIgnoreCase(rs.getString(2)) ? GroupReplication.MULTI_PRIMARY
                    : GroupReplication.SINGLE_PRIMARY;
        }
    }

    /**
     * @param constant an option constant
     * @return its option value: the name in lower case with dashes, e.g. {@code last-insert-id}
     */
    static String optionValue(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static <E> E option(Map<String, String> options, String key, E[] values,
                                java.util.function.Function<E, String> text, E fallback) {
        String given = options.get(key);
        if (given == null) {
            return fallback;
        }
        String wanted = given.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values).filter(v -> text.apply(v).equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("option " + key + " must be one of "
                        + Arrays.stream(values).map(text).collect(Collectors.joining(", ")) + "; got '" + given + "'"));
    }

    // ---------------------------------------------------------------- version gates

    /**
     * @param v a server
     * @return whether it has {@code FOR UPDATE SKIP LOCKED} (MySQL 8.0.1, MariaDB 10.6)
     */
    static boolean hasSkipLocked(ServerVersion v) {
        return v.mariaDb() ? v.atLeast(10, 6, 0) : v.atLeast(8, 0, 1);
    }

    /**
     * @param v a server
     * @return whether it has a utf8mb4 NO PAD binary collation ({@code utf8mb4_nopad_bin} since MariaDB 10.2.2,
     *         {@code utf8mb4_0900_bin} since MySQL 8.0.17)
     */
    static boolean hasNoPadBinaryCollation(ServerVersion v) {
        return v.mariaDb() ? v.atLeast(10, 2, 2) : v.atLeast(8, 0, 17);
    }

    /**
     * @param v a server
     * @return whether {@code INSERT ... VALUES ... AS alias ON DUPLICATE KEY UPDATE c = alias.c} is available
     *         (MySQL 8.0.19; MySQL 8.0.20 deprecated {@code VALUES(c)} there); MariaDB has no row alias
     */
    static boolean hasRowAlias(ServerVersion v) {
        return !v.mariaDb() && v.atLeast(8, 0, 19);
    }

    /**
     * @param v a server
     * @return whether {@code INSERT ... RETURNING} is available (MariaDB 10.5; MySQL has none)
     */
    static boolean hasInsertReturning(ServerVersion v) {
        return v.mariaDb() && v.atLeast(10, 5, 0);
    }

    /**
     * @param v a server
     * @return whether compound statements run outside stored programs ({@code BEGIN NOT ATOMIC ... END}, MariaDB
     *         10.1.1; MySQL has none): a transaction of several statements in one round trip ({@link Compound})
     */
    static boolean hasCompoundStatements(ServerVersion v) {
        return v.mariaDb() && v.atLeast(10, 1, 1);
    }

    /**
     * @return whether the hot multi-statement operations (safe ring push, claim) run as one compound statement
     *         ({@link Compound}): on MariaDB 10.1.1+
     */
    boolean compoundStatements() {
        return hasCompoundStatements(version);
    }

    /**
     * @return whether safe rings push with one {@code INSERT ... RETURNING} whose {@code BEFORE INSERT} trigger bumps
     *         the head row ({@link MySqlRing}): on MariaDB 10.5+
     */
    boolean triggerPush() {
        return hasInsertReturning(version) && !galera;
    }

    /**
     * Whether the server is a Galera cluster node, as it said when rowqueue started. Then: no push trigger (safe rings
     * push with the compound statement, so the schema has no {@code CREATE TRIGGER}, which wedges a cluster when two
     * nodes run it at once); every connection rowqueue borrows gets {@link #GALERA_SESSION} once; and Galera's
     * errors are classified: 1213 from a certification failure on any statement, {@code COMMIT} included, is a
     * rolled-back transaction to retry whole, and 1047 (a node not in the primary component) a statement the node
     * refused before running it.
     *
     * @return whether the dialect runs on Galera
     */
    public boolean galera() {
        return galera;
    }

    /**
     * Whether the server is a Group Replication member, as it said when rowqueue started. Then: every connection
     * rowqueue borrows gets {@link #GROUP_REPLICATION_SESSION} once; certification failures (3101 at commit, 1180
     * "error 149 during COMMIT", and 1213 on the statement after, as on Galera) are rolled-back transactions to retry
     * whole; a member that refuses a statement before running it (1290 {@code super_read_only} on a secondary or a
     * member that left, 3032 offline mode, 3100 a refused replication hook, 3796-3799) is a failure before sending,
     * retried on another connection; in multi-primary mode, {@link #GALERA_ATTEMPTS} attempts; and the schema's DDL
     * runs only when the tables are missing ({@link DialectPolicy#reissuesExistingSchema()}).
     *
     * @return the server's Group Replication mode, {@link GroupReplication#NONE} outside a group
     */
    public GroupReplication groupReplication() {
        return groupReplication;
    }

    /**
     * The processors of this JVM, at least 2, claims at once: InnoDB claims that run together wait for each other's
     * page latches on the head of the claim index, where leases and acks leave delete-marked entries until purge
     * removes them, and when more run than there are cores the waits grow faster than the work; claimers that wait
     * run together as one claim. On Galera, and on a multi-primary Group Replication group, {@link #GALERA_ATTEMPTS}
     * attempts instead of 8 (same backoff): a hot row written from several nodes (a ring group's head row, a counter)
     * is not a lock wait there but a certification failure at commit, and each loser starts again. On a Group
     * Replication member, the schema's DDL is issued only when its tables are missing, not on every start: DDL
     * replicates to every member and, run by several members at once, a statement that fails when applied twice puts
     * the whole group into ERROR state.
     */
    @Override
    public DialectPolicy policy() {
        return policy;
    }

    /** Attempts of an operation on Galera ({@link #policy()}). */
    static final int GALERA_ATTEMPTS = 24;

    /**
     * The session settings the dialect's SQL depends on: {@code sql_mode}, pinned to {@link #SQL_MODE};
     * {@code autocommit}, set through JDBC and read back from the server at {@code build()}; on Galera
     * {@code wsrep_retry_autocommit} and {@code wsrep_sync_wait}, on a Group Replication member
     * {@code group_replication_consistency}, pinned with {@code sql_mode} in one statement.
     */
    @Override
    public List<dev.rowqueue.spi.SessionSetting> sessionSettings() {
        List<dev.rowqueue.spi.SessionSetting> settings = new ArrayList<>(List.of(SQL_MODE_SETTING, AUTOCOMMIT_SETTING));
        if (galera) {
            settings.add(new dev.rowqueue.spi.SessionSetting("wsrep_retry_autocommit, wsrep_sync_wait",
                    dev.rowqueue.spi.SessionSetting.Handling.PINNED, "0, 7", "see GALERA_SESSION"));
        } else if (groupReplication != GroupReplication.NONE) {
            settings.add(new dev.rowqueue.spi.SessionSetting("group_replication_consistency",
                    dev.rowqueue.spi.SessionSetting.Handling.PINNED, "BEFORE", "see GROUP_REPLICATION_SESSION"));
        }
        return List.copyOf(settings);
    }

    /**
     * Pins the session's settings with one statement, once per physical connection: {@link #SESSION}, on Galera
     * {@link #GALERA_SESSION}, on a Group Replication member {@link #GROUP_REPLICATION_SESSION}. A server's
     * {@code init_connect} and a pool's init SQL run when the physical connection opens, before this; a borrow of a
     * connection pinned before costs a lookup ({@link Dialect}, "Session settings").
     */
    @Override
    public void prepareConnection(Connection connection) throws SQLException {
        pin.apply(connection);
    }

    /**
     * Reads back what the session has after {@link #prepareConnection}: {@code @@SESSION.sql_mode} must be
     * {@link #SQL_MODE} (a proxy or a server that ignores the pin is refused, naming the mode), and
     * {@code @@SESSION.autocommit} what the driver reports (an {@code init_connect = 'SET autocommit = 0'} that the
     * driver does not see is refused).
     */
    @Override
    public void checkSession(Connection connection) throws SQLException {
        super.checkSession(connection);
        String mode;
        long autocommit;
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@SESSION.sql_mode, @@SESSION.autocommit")) {
            rs.next();
            mode = rs.getString(1);
            autocommit = rs.getLong(2);
        }
        if (!modes(mode).equals(modes(SQL_MODE))) {
            throw SQL_MODE_SETTING.refuse(mode, "'" + SESSION + "' did not take; is a proxy between rowqueue and the"
                    + " server filtering SET statements?");
        }
        boolean driver = connection.getAutoCommit();
        if (driver != (autocommit != 0)) {
            throw AUTOCOMMIT_SETTING.refuse(String.valueOf(autocommit), "the driver reports auto-commit "
                    + (driver ? "on" : "off") + "; an init_connect or the pool's init SQL changed it behind the"
                    + " driver's back: remove it, or set auto-commit through the driver (autocommit=" + autocommit
                    + " in the JDBC URL, the pool's autoCommit)");
        }
    }

    /** @return the flags of an {@code sql_mode} value, in upper case */
    private static Set<String> modes(String mode) {
        return mode == null || mode.isBlank() ? Set.of() : Arrays.stream(mode.split(","))
                .map(m -> m.strip().toUpperCase(Locale.ROOT)).filter(m -> !m.isEmpty()).collect(Collectors.toSet());
    }

    /** @return the server's product and full version */
    public ServerVersion version() {
        return version;
    }

    /** @return the claim path in use */
    public ClaimPath claimPath() {
        return claimPath;
    }

    /** @return the single-writer statement in use */
    public SingleWriterStatement singleWriterStatement() {
        return singleWriter;
    }

    /** @return the key column type of new tables */
    public KeyType keyColumns() {
        return keyType;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<Capability> capabilities() {
        EnumSet<Capability> c = EnumSet.of(Capability.UPSERT, Capability.DATABASE_CLOCK,
                Capability.SINGLE_WRITER_RING);
        if (claimPath == ClaimPath.SKIP_LOCKED) {
            c.add(Capability.SKIP_LOCKED);
        }
        if (hasInsertReturning(version)) {
            c.add(Capability.RETURNING);
        }
        return Collections.unmodifiableSet(c);
    }

    // ---------------------------------------------------------------- time

    /**
     * Epoch milliseconds of {@code UTC_TIMESTAMP(3)}: the difference of two zone-less DATETIME values in UTC, so no
     * session {@code time_zone} and no daylight-saving transition can shift it. Like {@code NOW()}, it is evaluated
     * once per statement.
     */
    @Override
    public SqlForms sqlForms() {
        return claimPath == ClaimPath.SKIP_LOCKED ? SKIP_LOCKED_FORMS : FORMS;
    }

    private static final SqlForms FORMS = SqlForms.STANDARD.withLimit(SqlForms.LIMIT)
            .withNow("(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000)");
    private static final SqlForms SKIP_LOCKED_FORMS = FORMS.withSkipLocked(SqlForms.SKIP_LOCKED);

    // ---------------------------------------------------------------- types and DDL

    /** @return the collation of key columns and of the tables' text columns */
    String binaryCollation() {
        if (keyType == KeyType.VARBINARY) {
            return "utf8mb4_bin";
        }
        return version.mariaDb() ? "utf8mb4_nopad_bin" : "utf8mb4_0900_bin";
    }

    /**
     * Keys in the exact binary collation ({@code VARCHAR}) or as bytes ({@code VARBINARY}); payloads
     * {@code MEDIUMTEXT}; text in utf8mb4 with the exact collation; the job id {@code AUTO_INCREMENT}. Indexes are
     * declared inside CREATE TABLE IF NOT EXISTS (MySQL has no {@code CREATE INDEX IF NOT EXISTS}), so creating the
     * schema twice is harmless everywhere; one added to an existing table (a schema upgrade) is {@code ALTER TABLE ...
     * ADD [UNIQUE] INDEX}, which fails with 1061, "already exists", if it exists. InnoDB explicitly (the queues need
     * row locks and transactions), utf8mb4 with the exact collation, and, for 800-byte VARCHAR keys, the DYNAMIC row
     * format whose index prefixes reach 3072 bytes. The claim index {@code (state, prio DESC, due_ms, id)}: MySQL 8+
     * and MariaDB 10.8+ store the descending part, so a claim walks it in claim order and stops after the batch; older
     * servers parse and ignore {@code DESC} and sort instead. An identity restart sets {@code AUTO_INCREMENT}: InnoDB
     * keeps the counter at least one above the highest id, so this never moves ids backwards.
     *
     * <p>On MariaDB 10.5+ a safe ring also gets its push trigger ({@link MySqlRing#triggerDdl}), and its entries
     * table the check {@code seq >= 0}, which fails a trigger push whose trigger is gone instead of writing the
     * placeholder number, and no {@code (grp, seq)} index: after the first lap every push changes a slot's
     * {@code seq}, and keeping that unique index up to date is a large part of a push's cost. Newest-first reads find
     * their slots through the head row instead ({@link MySqlRing#newestByHead}).
     */
    @Override
    public SchemaDdl ddl() {
        return ddl;
    }

    /** The DDL of {@link #ddl()}: tables and indexes as the features say, and a safe ring's push trigger. */
    private final class Ddl extends SchemaDdl {
        Ddl() {
            super(DdlFeatures.builder(types()).payloadLength(MAX_PAYLOAD).ifNotExists(true).indexesInTable(true)
                    .tableOptions(" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=" + binaryCollation()
                            + (keyType == KeyType.VARCHAR ? " ROW_FORMAT=DYNAMIC" : ""))
                    .ringSeqIndex(!triggerPush())
                    .restartIdentity(List.of("ALTER TABLE " + DdlFeatures.JOBS + " AUTO_INCREMENT = "
                            + DdlFeatures.NEXT))
                    .build());
        }

        @Override
        public List<String> ring(RingTables t, RingOptions options) {
            if (options.strategy() != RingStrategy.SAFE || !triggerPush()) {
                return super.ring(t, options);
            }
            List<String> ddl = new ArrayList<>(create(Schema.ringEntries(t, false).withCheck("seq >= 0"),
                    Schema.ringHeads(t)));
            ddl.add(MySqlRing.triggerDdl(t, options.capacity()));
            return List.copyOf(ddl);
        }
    }

    private ColumnTypes types() {
        String text = " CHARACTER SET utf8mb4 COLLATE " + binaryCollation();
        return ColumnTypes.STANDARD
                .with(Schema.Type.KEY, keyType == KeyType.VARCHAR ? "VARCHAR(%d)" + text
                        : "VARBINARY(" + KEY_BYTES + ")")
                .with(Schema.Type.PAYLOAD, "MEDIUMTEXT" + text)
                .with(Schema.Type.ERROR_TEXT, "VARCHAR(%d)" + text)
                .with(Schema.Type.IDENTITY, "BIGINT NOT NULL AUTO_INCREMENT");
    }

    // ---------------------------------------------------------------- statements


    /**
     * @return the row alias after a multi-row {@code VALUES} list, or "" where {@code VALUES(col)} is used
     */
    String upsertRowAlias() {
        return hasRowAlias(version) ? " AS incoming" : "";
    }

    /**
     * @param column a column of the inserted row
     * @return how {@code ON DUPLICATE KEY UPDATE} refers to it: {@code incoming.col} on MySQL 8.0.19+, where
     *         {@code VALUES(col)} is deprecated, else {@code VALUES(col)}
     */
    String upsertValue(String column) {
        return hasRowAlias(version) ? "incoming." + column : "VALUES(" + column + ")";
    }

    // ---------------------------------------------------------------- stores

    /** Work queues, rings and counters: {@link MySqlStatements}. */
    @Override
    protected StatementSets statements() {
        return new MySqlStatements(this, singleWriter, claimPath, hasInsertReturning(version));
    }

    // ---------------------------------------------------------------- errors

    @Override
    public SqlErrors sqlErrors() {
        return errors;
    }

    /**
     * MySQL and MariaDB vendor codes, then the standard classification. SQLStates alone are too coarse here: 1062
     * shares 23000 with NOT NULL violations, 1205 and 1020 report HY000.
     */
    private final class Errors extends SqlErrors {
        @Override
        protected SqlErrorKind classifyOne(SQLException e) {
            switch (e.getErrorCode()) {
                case 1213: // ER_LOCK_DEADLOCK: the transaction was rolled back
                case 1020: // ER_CHECKREAD: MariaDB innodb_snapshot_isolation conflict (default ON since 11.6.2),
                    // rolled back
                case 1412: // ER_TABLE_DEF_CHANGED: "please retry transaction"
                    return SqlErrorKind.ROLLED_BACK;
                case 1205: // ER_LOCK_WAIT_TIMEOUT: only the statement was undone (innodb_rollback_on_timeout=OFF)
                    return SqlErrorKind.LOCK_TIMEOUT;
                case 1062: // ER_DUP_ENTRY
                case 1586: // ER_DUP_ENTRY_WITH_KEY_NAME
                case 1022: // ER_DUP_KEY
                    return SqlErrorKind.DUPLICATE_KEY;
                case 1050: // ER_TABLE_EXISTS_ERROR
                case 1061: // ER_DUP_KEYNAME: CREATE INDEX of an existing index (MySQL has no IF NOT EXISTS there)
                case 1359: // ER_TRG_ALREADY_EXISTS
                    return SqlErrorKind.ALREADY_EXISTS;
                case 1146: // ER_NO_SUCH_TABLE
                case 1051: // ER_BAD_TABLE_ERROR: DROP TABLE of a missing table
                    return SqlErrorKind.UNDEFINED_TABLE;
                case 1690: // ER_DATA_OUT_OF_RANGE: BIGINT arithmetic overflow
                case 1264: // ER_WARN_DATA_OUT_OF_RANGE: value out of a column's range (strict mode)
                    return SqlErrorKind.NUMERIC_OVERFLOW;
                case 2002: // CR_CONNECTION_ERROR
                case 2003: // CR_CONN_HOST_ERROR
                case 2006: // CR_SERVER_GONE_ERROR
                case 2013: // CR_SERVER_LOST
                case 2055: // CR_SERVER_LOST_EXTENDED
                case 1927: // ER_CONNECTION_KILLED (MariaDB: KILL CONNECTION)
                case 1053: // ER_SERVER_SHUTDOWN
                case 1152: // ER_ABORTING_CONNECTION
                    return SqlErrorKind.CONNECTION;
                case 1047: // ER_UNKNOWN_COM_ERROR, 08S01 on Galera: "WSREP has not yet prepared node for
                    // application use"
                    return SqlErrorKind.CONNECTION;
                case 3101: // ER_TRANSACTION_ROLLBACK_DURING_COMMIT: "Plugin instructed the server to rollback"
                    // (certification)
                    return SqlErrorKind.ROLLED_BACK;
                case 1180: // ER_ERROR_DURING_COMMIT
                    if (galera) {
                        // "Error while appending streaming replication fragment(provider status: Not connected to
                        // Primary Component)": the node lost the cluster while it replicated the write set, which
                        // the others may have received and committed; the node cannot tell (a connection lost at
                        // commit). The fault campaign's stalled and cut-off nodes raise it (docs/reliability.md).
                        return SqlErrorKind.CONNECTION;
                    }
                    // on a group member, "Got error 149 - 'Lock deadlock; Retry transaction'" is a lost
                    // certification, rolled back; elsewhere left as it was
                    return groupReplication != GroupReplication.NONE && String.valueOf(e.getMessage()).contains("149")
                            ? SqlErrorKind.ROLLED_BACK : super.classifyOne(e);
                case 1290: // ER_OPTION_PREVENTS_STATEMENT: --read-only / --super-read-only
                    return refusedByGroupMember(e) ? SqlErrorKind.CONNECTION : SqlErrorKind.READ_ONLY;
                case 3032: // ER_SERVER_OFFLINE_MODE
                case 3100: // ER_RUN_HOOK_ERROR: a replication hook (before_commit) refused the transaction
                case 3796: case 3797: case 3798: case 3799: // Group Replication refusals while a member is not ONLINE
                    return refusedByGroupMember(e) ? SqlErrorKind.CONNECTION : super.classifyOne(e);
                default:
                    return super.classifyOne(e);
            }
        }

        /**
         * A Galera node outside the primary component refuses every statement with 1047 before running it, so the
         * work surely did not run there; the core may retry it (on another connection, which a pool may open on
         * another node).
         */
        @Override
        public boolean failedBeforeSending(SQLException e) {
        return e.getErrorCode() == 1047 || refusedByGroupMember(e) || super.failedBeforeSending(e);
        }
    }

    /** Vendor codes with which a Group Replication member refuses a statement before it runs (or commits) anything. */
    private static final Set<Integer> GROUP_MEMBER_REFUSALS = Set.of(1290, 3032, 3100, 3796, 3797, 3798, 3799);

    /**
     * @param e an error
     * @return whether a Group Replication member refused the statement before running it: then nothing ran, and the
     *         core retries it on another connection, which a multi-host URL may open on the member that is primary now
     */
    private boolean refusedByGroupMember(SQLException e) {
        return groupReplication != GroupReplication.NONE && GROUP_MEMBER_REFUSALS.contains(e.getErrorCode());
    }

    @Override
    public String toString() {
        return name + " on " + version + (galera ? " (Galera)" : "")
                + (groupReplication != GroupReplication.NONE ? " (Group Replication, "
                + optionValue(groupReplication) + ")" : "") + " (claim " + claimPath.value() + ", single-writer " + singleWriter.value()
                + ", keys " + keyType.value() + ")";
    }
}
