package dev.rowqueue.postgres;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * The listening thread of {@link PgWakeups}: the only class that uses the PostgreSQL driver's API
 * ({@link PGConnection#getNotifications(int)}). It owns one connection of the data source in auto-commit mode, on which
 * it runs {@code LISTEN} for every channel with waiters, then reads notifications with a short socket timeout, so new
 * channels are subscribed promptly. {@code LISTEN}, the idle check and {@code UNLISTEN} run on the driver's own
 * connection under any pool or proxy, so they never show in statement counts or injected faults of wrappers. A
 * failure closes the connection, marks every channel as not listening (waiters poll) and reconnects with a backoff
 * that resets only once {@code LISTEN} works again: after a failover the pool's new connections reach the new primary
 * and listening resumes there; a pool that reaches a hot standby (where {@code LISTEN} fails) is tried at most every
 * two seconds.
 * On close it runs {@code UNLISTEN *} before handing the connection back.
 */
final class PgListener implements Runnable {

    /** How long one read of notifications blocks, in milliseconds: bounds the delay of a new subscription. */
    private static final int RECEIVE_MILLIS = 50;
    /** An idle connection is checked this often, to notice a server that went away without closing the socket. */
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long MIN_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 2000;
    /** read_only_sql_transaction: what a hot standby answers to LISTEN ("cannot execute LISTEN during recovery"). */
    private static final String READ_ONLY = "25006";

    private final DataSource dataSource;
    private final PgWakeups owner;
    private volatile boolean usable = true;
    private volatile boolean down;
    private Connection connection;
    private PGConnection pg;
    /** The driver's own connection under any pool or proxy: LISTEN and checks bypass wrappers that count or fail. */
    private Connection raw;
    private long lastCheck;

    PgListener(DataSource dataSource, PgWakeups owner) {
        this.dataSource = dataSource;
        this.owner = owner;
    }

    /** @return {@code false} once the data source turned out not to give PostgreSQL driver connections */
    boolean usable() {
        return usable;
    }

    /** @return whether the last connection attempt failed (the thread is backing off) */
    boolean down() {
        return down;
    }

    /** Cuts a backoff sleep short (close). */
    synchronized void wake() {
        notifyAll();
    }

    @Override
    public void run() {
        long backoff = MIN_BACKOFF_MILLIS;
        boolean outage = false;
        try {
            while (!owner.closed() && usable) {
                try {
                    if (connection == null) {
                        connect();
                    }
                    subscribe();
                    // back only once LISTEN works: a server that takes the connection but refuses LISTEN (a hot
                    // standby) must not reset the backoff, or the thread would reconnect every 50 ms for ever
                    if (outage) {
                        PgWakeups.log().info("rowqueue: LISTEN connection is back; blocking claims wake on"
                                + " notifications again");
                    }
                    outage = false;
                    down = false;
                    backoff = MIN_BACKOFF_MILLIS;
                    receive();
                } catch (SQLException | RuntimeException e) {
                    if (owner.closed()) {
                        break;
                    }
                    if (!outage && usable) {
                        if (e instanceof SQLException s && READ_ONLY.equals(s.getSQLState())) {
                            PgWakeups.log().warn("rowqueue: the LISTEN connection reached a read-only server ({}): a"
                                    + " hot standby? Blocking claims poll, and LISTEN is tried again with a backoff;"
                                    + " point the data source at the primary (pgjdbc: targetServerType=primary)",
                                    e.toString());
                        } else {
                            PgWakeups.log().warn("rowqueue: the LISTEN connection failed ({}); blocking claims poll"
                                    + " until it is back", e.toString());
                        }
                    }
                    outage = true;
                    down = true;
                    disconnect();
                    sleep(backoff);
                    backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
                }
            }
        } finally {
            release();
        }
    }

    /**
     * Asks a connection of the data source whether it is pgjdbc's ({@value PgWakeups#DRIVER_API}), which {@code LISTEN}
     * needs to receive notifications.
     *
     * @param dataSource the data source
     * @return what the driver lacks, in words naming the driver and the interface, or {@code null} where it has it or
     *         no connection could be had (the listener asks again when it connects)
     */
    static String driverGap(javax.sql.DataSource dataSource) {
        try (java.sql.Connection c = dataSource.getConnection()) {
            if (c.isWrapperFor(PGConnection.class)) {
                return null;
            }
            java.sql.DatabaseMetaData md = c.getMetaData();
            return "blocking claims poll: the JDBC driver (" + md.getDriverName() + " " + md.getDriverVersion()
                    + ") has no " + PgWakeups.DRIVER_API + ", which LISTEN/NOTIFY wake-ups need";
        } catch (java.sql.SQLException | RuntimeException e) {
            PgWakeups.log().debug("rowqueue: could not ask the driver for {}: {}", PgWakeups.DRIVER_API, e.toString());
            return null;
        }
    }

    private void connect() throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            if (!c.isWrapperFor(PGConnection.class)) {
                usable = false;
                PgWakeups.log().warn("rowqueue: connections of {} are not PostgreSQL JDBC driver connections"
                        + " (org.postgresql.PGConnection), so LISTEN/NOTIFY cannot be used; blocking claims poll",
                        dataSource.getClass().getName());
                c.close();
                return;
            }
            pg = c.unwrap(PGConnection.class);
            raw = pg instanceof Connection driverConnection ? driverConnection : c;
            connection = c;
            lastCheck = System.nanoTime();
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /** LISTENs on every channel that has no active LISTEN on this connection yet. */
    private void subscribe() throws SQLException {
        if (connection == null) {
            return;
        }
        for (PgWakeups.Channel channel : owner.channels()) {
            if (!channel.isListening()) {
                try (Statement s = raw.createStatement()) {
                    s.execute("LISTEN \"" + channel.name() + "\"");
                }
                channel.setListening(true);
            }
        }
    }

    private void receive() throws SQLException {
        if (connection == null) {
            return;
        }
        PGNotification[] notifications = pg.getNotifications(RECEIVE_MILLIS);
        if (notifications != null && notifications.length > 0) {
            for (PGNotification n : notifications) {
                owner.deliver(n.getName(), n.getParameter());
            }
            lastCheck = System.nanoTime();
        } else if (System.nanoTime() - lastCheck > CHECK_NANOS) {
            try (Statement s = raw.createStatement()) {
                s.execute("SELECT 1");
            }
            lastCheck = System.nanoTime();
        }
    }

    private void disconnect() {
        for (PgWakeups.Channel channel : owner.channels()) {
            channel.setListening(false);
        }
        if (connection != null) {
            // Errors read through the driver's own API bypass a pool's connection wrapper; a statement through the
            // wrapper lets the pool see a dead connection and discard it instead of handing it out again.
            try (Statement s = connection.createStatement()) {
                s.execute("SELECT 1");
            } catch (SQLException | RuntimeException expected) {
                PgWakeups.log().debug("rowqueue: the LISTEN connection is gone", expected);
            }
        }
        closeQuietly(connection);
        connection = null;
        pg = null;
        raw = null;
    }

    /** Stops listening and hands the connection back (to a pool, it must not keep receiving notifications). */
    private void release() {
        if (connection != null) {
            try (Statement s = raw.createStatement()) {
                s.execute("UNLISTEN *");
            } catch (SQLException | RuntimeException e) {
                PgWakeups.log().debug("rowqueue: UNLISTEN failed while closing", e);
            }
        }
        disconnect();
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException | RuntimeException e) {
                PgWakeups.log().debug("rowqueue: closing the LISTEN connection failed", e);
            }
        }
    }

    private synchronized void sleep(long millis) {
        if (owner.closed()) {
            return;
        }
        try {
            wait(millis);
        } catch (InterruptedException e) {
            // nobody interrupts this thread but the JVM's shutdown; the loop checks whether to stop
        }
    }
}
