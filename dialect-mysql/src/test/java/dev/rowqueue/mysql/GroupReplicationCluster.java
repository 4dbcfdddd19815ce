package dev.rowqueue.mysql;

import dev.rowqueue.testkit.MachineLock;
import org.junit.jupiter.api.Assumptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A MySQL Group Replication group of three members on loopback for tests, each a {@link MySqlServer} from the
 * {@link SidChroot} with its own SQL and group communication (XCOM) ports. Member 1 bootstraps the group, members 2
 * and 3 join it and catch up by distributed recovery with a user of their own ({@code sql_log_bin = 0}, no TLS:
 * {@code group_replication_recovery_get_public_key}). Election weights 90/70/50, so in single-primary mode member 1 is
 * the primary and member 2 follows it, the order of {@link #multiHostUrl}; {@code group_replication_member_expel_timeout
 * = 0}, so a killed primary is expelled and replaced in seconds, not after the default 5 s plus suspicion.
 *
 * <p>{@link #acquire} shares one group per JVM (and mode) between test classes and stops it 30 s after its last
 * {@link #release}; {@link #start} makes a private one (for tests that kill members), stopped by {@link #close}. A
 * group that does not come up within its deadline is torn down and the caller is reported NOT RUN with the members'
 * last log lines; where the chroot cannot be made, NOT RUN with that reason.
 */
final class GroupReplicationCluster implements AutoCloseable {

    /** The group's mode. */
    enum Mode {
        /** One primary takes writes, elected by weight. */
        SINGLE_PRIMARY,
        /** Every member takes writes ({@code enforce_update_everywhere_checks = ON}). */
        MULTI_PRIMARY
    }

    /** How long the group may take to have three ONLINE members. */
    private static final long START_MILLIS = 180_000;
    private static final int[] WEIGHTS = {90, 70, 50};
    private static final long IDLE_MILLIS = 30_000;

    private static GroupReplicationCluster shared;
    private static int users;
    private static ScheduledFuture<?> idleStop;
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "group-replication-idle-stop");
        t.setDaemon(true);
        return t;
    });

    private final Mode mode;
    private final MachineLock addresses;
    private final List<MySqlServer> members = new ArrayList<>();
    private final int[] sqlPorts;
    private long startMillis;

    private GroupReplicationCluster(Mode mode, int[] sqlPorts, MachineLock addresses) {
        this.mode = mode;
        this.addresses = addresses;
        this.sqlPorts = sqlPorts;
    }

    /**
     * @param mode the group's mode
     * @return the group shared by this JVM's tests in that mode (a group of the other mode is stopped first); give it
     *         back with {@link #release}
     */
    static synchronized GroupReplicationCluster acquire(Mode mode) {
        if (idleStop != null) {
            idleStop.cancel(false);
            idleStop = null;
        }
        if (shared != null && shared.mode != mode) {
            shared.close();
            shared = null;
        }
        if (shared == null) {
            shared = start(mode);
            GroupReplicationCluster s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "group-replication-stop"));
        }
        users++;
        return shared;
    }

    /** Gives back a group of {@link #acquire}; the last user's release stops it after {@value #IDLE_MILLIS} ms. */
    static synchronized void release(GroupReplicationCluster cluster) {
        if (cluster != shared) {
            return;
        }
        users = Math.max(0, users - 1);
        if (users == 0) {
            idleStop = TIMER.schedule(() -> {
                synchronized (GroupReplicationCluster.class) {
                    if (users == 0 && shared == cluster) {
                        shared = null;
                        cluster.close();
                    }
                }
            }, IDLE_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Starts a private group.
     *
     * @param mode the group's mode
     * @return the group, three members ONLINE
     */
    static GroupReplicationCluster start(Mode mode) {
        SidChroot.get(); // NOT RUN where the chroot cannot be made
        int[] ports = MySqlServer.freePorts(6);
        GroupReplicationCluster c = new GroupReplicationCluster(mode, new int[] {ports[0], ports[1], ports[2]},
                MachineLock.slot("group-replication-addresses", SLOTS, Duration.ofMinutes(30)));
        try {
            c.boot(new int[] {ports[3], ports[4], ports[5]});
            return c;
        } catch (RuntimeException e) {
            String tails = c.tails(12);
            c.close();
            Assumptions.abort("the Group Replication group did not come up: " + e.getMessage() + "\n" + tails);
            throw e;
        }
    }

    private void boot(int[] xcomPorts) {
        long t0 = System.nanoTime();
        String group = UUID.randomUUID().toString();
        StringBuilder seeds = new StringBuilder();
        for (int i = 0; i < xcomPorts.length; i++) {
            seeds.append(i == 0 ? "" : ",").append(host(i)).append(':').append(xcomPorts[i]);
        }
        boolean single = mode == Mode.SINGLE_PRIMARY;
        for (int i = 0; i < 3; i++) {
            members.add(MySqlServer.start(sqlPorts[i], List.of("--performance-schema=ON",
                    "--server-id=" + (i + 1), "--gtid-mode=ON", "--enforce-gtid-consistency=ON",
                    "--report-host=127.0.0.1",
                    "--report-port=" + sqlPorts[i], "--plugin-load-add=group_replication.so",
                    "--group-replication-group-name=" + group, "--group-replication-start-on-boot=OFF",
                    "--group-replication-local-address=" + host(i) + ":" + xcomPorts[i],
                    "--group-replication-group-seeds=" + seeds, "--group-replication-ip-allowlist=127.0.0.1/8",
                    "--group-replication-member-weight=" + WEIGHTS[i],
                    "--group-replication-member-expel-timeout=0", "--group-replication-autorejoin-tries=0",
                    "--group-replication-recovery-get-public-key=ON",
                    "--group-replication-single-primary-mode=" + (single ? "ON" : "OFF"),
                    "--group-replication-enforce-update-everywhere-checks=" + (single ? "OFF" : "ON"),
                    // a member takes no write until the group makes it writable: one restarted after a crash, before
                    // START GROUP_REPLICATION, would otherwise commit clients' writes that the group never sees
                    // (errant transactions: acknowledged, then absent, and the member can no longer rejoin)
                    "--super-read-only=ON"), OWN_ADDRESSES ? uid(i) : -1));
        }
        for (MySqlServer m : members) {
            m.execute("SET GLOBAL super_read_only = OFF", "SET SESSION sql_log_bin = 0",
                    "CREATE USER 'rowqueue_rpl'@'%' IDENTIFIED BY 'rpl'",
                    "GRANT REPLICATION SLAVE ON *.* TO 'rowqueue_rpl'@'%'", "SET SESSION sql_log_bin = 1",
                    "SET GLOBAL super_read_only = ON");
        }
        bootstrap(0);
        startMillis = (System.nanoTime() - t0) / 1_000_000;
    }

    /** Bootstraps the group on one member, then lets the others join it one by one, each ONLINE before the next. */
    private void bootstrap(int first) {
        bootstrap(first, true);
    }

    /**
     * Bootstraps the group on one member, then lets the others join it one by one.
     *
     * @param first  the member that bootstraps
     * @param online whether each joiner must be ONLINE before the next joins; else only in the group (it may still
     *               be RECOVERING behind a write load)
     */
    private void bootstrap(int first, boolean online) {
        long deadline = System.currentTimeMillis() + START_MILLIS;
        members.get(first).execute("SET GLOBAL group_replication_bootstrap_group = ON", START,
                "SET GLOBAL group_replication_bootstrap_group = OFF");
        awaitOnline(first, 1, deadline);
        int size = 1;
        for (int i = 0; i < 3; i++) {
            if (i != first) {
                members.get(i).execute(START);
                if (online) {
                    awaitOnline(i, ++size, deadline);
                }
            }
        }
    }

    private static final String START = "START GROUP_REPLICATION USER = 'rowqueue_rpl', PASSWORD = 'rpl'";

    /**
     * SIGKILLs a member's server.
     *
     * @param member a member (0-based)
     */
    void kill(int member) {
        members.get(member).kill();
    }

    /**
     * Starts a killed member's server again and lets it rejoin the group.
     *
     * @param member a member (0-based)
     */
    void restart(int member) {
        members.get(member).launch();
        rejoinAll(false);
    }

    /**
     * Lets every member that the group does not count ONLINE (it left, was expelled, stalled, was cut off, or is in
     * ERROR) join again ({@code STOP} and {@code START GROUP_REPLICATION}; one that is RECOVERING is left to finish),
     * until every member sees three ONLINE. The group's view is that of a member that is ONLINE with a majority of
     * members ONLINE or RECOVERING (reachable) in its view: a member that was stalled or cut off still sees the group it had until it learns
     * that it was expelled, and a member that is OFFLINE sees only itself.
     */
    void rejoinAll() {
        rejoinAll(true);
    }

    /**
     * {@link #rejoinAll()}, or, unless {@code whole}, only until every member is ONLINE or RECOVERING in the group's
     * view: a member in its recovery may lag behind a write load for as long as the load lasts.
     *
     * @param whole whether to wait until every member is ONLINE
     */
    void rejoinAll(boolean whole) {
        long deadline = System.currentTimeMillis() + START_MILLIS;
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            int majority = -1;
            for (int o = 0; o < members.size() && majority < 0; o++) {
                // the group's quorum counts every member it can reach, RECOVERING ones too: after the whole group was
                // restarted under load, the joiners may stay RECOVERING behind the writes while the primary serves
                int reachable = 0;
                for (int i = 0; i < members.size(); i++) {
                    String seen = state(o, i);
                    reachable += "ONLINE".equals(seen) || "RECOVERING".equals(seen) ? 1 : 0;
                }
                if ("ONLINE".equals(state(o, o)) && reachable > members.size() / 2) {
                    majority = o;
                }
            }
            boolean done = majority >= 0;
            for (int i = 0; i < members.size() && majority >= 0; i++) {
                String seen = state(majority, i);
                String own = state(i, i);
                if ("ONLINE".equals(seen) && "ONLINE".equals(own)
                        || !whole && "RECOVERING".equals(seen) && "RECOVERING".equals(own)) {
                    continue;
                }
                done = false;
                last = "member " + (i + 1) + " is " + own + " in its own view and " + seen + " in member "
                        + (majority + 1) + "'s";
                if (!"RECOVERING".equals(own) && !"RECOVERING".equals(seen) && !"ONLINE".equals(seen)) {
                    try {
                        members.get(i).execute("STOP GROUP_REPLICATION", START);
                    } catch (IllegalStateException e) {
                        last += "; " + e.getMessage();
                    }
                }
            }
            if (majority < 0) {
                last = "no member is ONLINE with a majority of members ONLINE or RECOVERING in its view";
            }
            if (done) {
                return;
            }
            MySqlServer.sleep(1_000);
        }
        throw new IllegalStateException("the group did not become whole again: " + last + "\n" + tails(10));
    }

    /**
     * @param observer a member (0-based) whose view is asked
     * @param member   a member (0-based)
     * @return the member's state in the observer's view, {@code ABSENT} if it is not in it, {@code UNANSWERED} if the
     *         observer does not answer
     */
    private String state(int observer, int member) {
        try {
            for (String[] row : states(observer)) {
                if (String.valueOf(sqlPorts[member]).equals(row[1])) {
                    return row[2];
                }
            }
            return "ABSENT";
        } catch (IllegalStateException e) {
            return "UNANSWERED";
        }
    }

    /** Keeps every member's directory (data, logs) when the group is closed: evidence of a failed run. */
    void keep() {
        members.forEach(MySqlServer::keep);
    }

    /** SIGKILLs every member. */
    void killAll() {
        members.forEach(MySqlServer::kill);
    }

    /**
     * Restarts a group whose members were all killed, as an operator must: starts every server, bootstraps the group
     * on the member whose executed transactions include every other's ({@code GTID_SUBSET}), and lets the others
     * join.
     *
     * @return the member (0-based) the group was bootstrapped from
     */
    int bootstrapFromMostAdvanced() {
        members.forEach(MySqlServer::launch);
        List<String> executed = new ArrayList<>();
        for (MySqlServer m : members) {
            executed.add(m.query("SELECT @@GLOBAL.gtid_executed"));
        }
        int best = 0;
        for (int i = 1; i < members.size(); i++) {
            String q = "SELECT GTID_SUBSET('" + executed.get(best) + "', '" + executed.get(i) + "')";
            if ("1".equals(members.get(0).query(q))) {
                best = i;
            }
        }
        bootstrap(best, false);
        return best;
    }

    /**
     * @param member a member (0-based)
     * @return its server's process id, or -1
     */
    long pid(int member) {
        return members.get(member).pid();
    }

    /** @return the member (0-based) that is primary in member 1's (or, if it does not answer, another's) view */
    int primary() {
        for (int i = 0; i < members.size(); i++) {
            try {
                for (String[] row : states(i)) {
                    if ("PRIMARY".equals(row[3]) && "ONLINE".equals(row[2])) {
                        for (int j = 0; j < members.size(); j++) {
                            if (String.valueOf(sqlPorts[j]).equals(row[1])) {
                                return j;
                            }
                        }
                    }
                }
            } catch (IllegalStateException e) {
                // that member does not answer: ask the next
            }
        }
        return -1;
    }

    /**
     * Kills the client sessions that use a database on every running member ({@code KILL CONNECTION}).
     *
     * @param database the database whose sessions die
     * @return how many were killed
     */
    int killClientConnections(String database) {
        int killed = 0;
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).pid() >= 0) {
                killed += ClientSessions.kill(members.get(i).url(""), database);
            }
        }
        return killed;
    }

    /** How many groups this machine may run at once, each on its own three addresses and users. */
    static final int SLOTS = 3;

    /** Whether each member has an address of its own ({@link #host}); else all use 127.0.0.1. */
    private static final boolean OWN_ADDRESSES = java.util.stream.IntStream.range(0, 3 * SLOTS)
            .allMatch(i -> dev.rowqueue.testkit.LoopbackFirewall.assign("127.0.0." + (21 + i)));

    /**
     * @param member a member (0-based)
     * @return the loopback address of its group communication (XCom; 127.0.0.21, .22, .23, or the next three of the
     *         group's {@link MachineLock} slot; made addresses of {@code lo}, which XCom requires), so that a
     *         {@code LoopbackFirewall} can cut one member off from the others while clients still reach its SQL port
     *         on 127.0.0.1; 127.0.0.1 where the addresses cannot be made (not root)
     */
    String host(int member) {
        return OWN_ADDRESSES ? "127.0.0." + (21 + 3 * addresses.slot() + member) : "127.0.0.1";
    }

    /**
     * @param member a member (0-based)
     * @return the user id its server runs as (XCom does not bind its outgoing connections to its local address, so a
     *         packet filter tells members apart by the user that sends: {@code iptables -m owner --uid-owner})
     */
    int uid(int member) {
        return 40_021 + 3 * addresses.slot() + member;
    }

    /** @return whether the members have addresses of their own, so that one can be cut off from the others */
    static boolean ownAddresses() {
        return OWN_ADDRESSES;
    }

    /**
     * Waits until a member sees {@code size} members ONLINE.
     *
     * @param member   a member (0-based)
     * @param size     the number of ONLINE members
     * @param deadline epoch millis
     */
    void awaitOnline(int member, int size, long deadline) {
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            try {
                List<String[]> rows = states(member);
                last = rows.stream().map(r -> r[0] + ":" + r[1] + "=" + r[2] + "/" + r[3]).toList().toString();
                if (rows.stream().filter(r -> "ONLINE".equals(r[2])).count() == size) {
                    return;
                }
            } catch (IllegalStateException e) {
                last = e.getMessage();
            }
            if (members.get(member).pid() < 0) {
                throw new IllegalStateException("member " + (member + 1) + " exited");
            }
            MySqlServer.sleep(200);
        }
        throw new IllegalStateException("member " + (member + 1) + " did not see " + size + " members ONLINE: " + last);
    }

    /**
     * @param member a member (0-based)
     * @return the member's view: host, port, state, role of each member
     */
    List<String[]> states(int member) {
        List<String[]> rows = new ArrayList<>();
        try (Connection c = connect(member, ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT MEMBER_HOST, MEMBER_PORT, MEMBER_STATE, MEMBER_ROLE"
                     + " FROM performance_schema.replication_group_members")) {
            while (rs.next()) {
                rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
            }
        } catch (SQLException e) {
            throw new IllegalStateException("member " + (member + 1) + ": " + e.getMessage(), e);
        }
        return rows;
    }

    /**
     * @param member   a member (0-based)
     * @param database a database, or ""
     * @return a new connection to the member (MySQL Connector/J)
     * @throws SQLException if it cannot be reached
     */
    Connection connect(int member, String database) throws SQLException {
        return DriverManager.getConnection(members.get(member).url(database), "root", "");
    }

    /** @return the group's mode */
    Mode mode() {
        return mode;
    }

    /** @return the members, member 1 first */
    List<MySqlServer> members() {
        return List.copyOf(members);
    }

    /**
     * @param member   a member (0-based)
     * @param database a database
     * @return the member's MySQL Connector/J URL
     */
    String url(int member, String database) {
        return members.get(member).url(database);
    }

    /**
     * @param database a database
     * @return one MySQL Connector/J URL naming the three members in election order (Connector/J connects to the first
     *         that answers, so after a failover to the member that is primary now)
     */
    String multiHostUrl(String database) {
        return "jdbc:mysql://127.0.0.1:" + sqlPorts[0] + ",127.0.0.1:" + sqlPorts[1] + ",127.0.0.1:" + sqlPorts[2] + "/"
                + database + "?allowPublicKeyRetrieval=true&useSSL=false";
    }

    /** @return the version the members state */
    String version() {
        return members.get(0).version();
    }

    /** @return how long the group took to three ONLINE members */
    long startMillis() {
        return startMillis;
    }

    /**
     * Creates a database on member 1 and waits until every live member has it.
     *
     * @param name the database
     */
    void createDatabase(String name) {
        members.get(0).execute("CREATE DATABASE IF NOT EXISTS " + name);
        for (int i = 0; i < members.size(); i++) {
            long deadline = System.currentTimeMillis() + 30_000;
            while (true) {
                try (Connection c = connect(i, name)) {
                    break;
                } catch (SQLException e) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException("database " + name + " did not reach member " + (i + 1), e);
                    }
                    MySqlServer.sleep(100);
                }
            }
        }
    }

    /**
     * @param n lines per member
     * @return the members' error logs' last lines
     */
    String tails(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < members.size(); i++) {
            b.append("member ").append(i + 1).append(' ').append(members.get(i).tail(n)).append('\n');
        }
        return b.toString();
    }

    /** Stops every member and deletes their directories. */
    @Override
    public void close() {
        for (int i = members.size() - 1; i >= 0; i--) {
            members.get(i).close();
        }
        addresses.close(); // the members are gone: their addresses and users are free
    }
}
