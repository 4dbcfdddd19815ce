package dev.rowqueue.postgres;

import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.spi.WorkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes blocking claims with PostgreSQL's {@code LISTEN/NOTIFY}. Each work queue has a channel
 * {@code rowqueue_<queue>}; enqueue, nack, release and revive call {@code pg_notify(channel, <delay ms>)} in the
 * statement that changes the job, so the notification is delivered when (and only if) the change commits.
 *
 * <p>One daemon thread per {@link dev.rowqueue.RowQueues} instance holds one connection of the data source, started on
 * the first blocking claim: it {@code LISTEN}s on the channels of the queues that have blocking claims and turns each
 * notification into a wake-up of that queue's waiters; a delay in the payload becomes a wake-up at the job's due time.
 * A claim takes its ticket after the {@code LISTEN} is active and before it looks for jobs, so a job committed after
 * an empty claim always wakes it. Jobs that become due without a notification (a lease that ran out, a delay announced
 * before this instance listened) are found by a bounded poll ({@code wakeupPollMillis}). While the connection is lost,
 * blocking claims poll at the builder's {@code pollInterval}, and the thread reconnects with a backoff; on reconnect
 * every waiter is woken, since notifications sent meanwhile are lost.
 */
final class PgWakeups implements WakeupSource {

    private static final Logger log = LoggerFactory.getLogger(PgWakeups.class);

    /** The driver interface LISTEN needs. */
    static final String DRIVER_API = "org.postgresql.PGConnection";
    /** How long a queue's first blocking claim waits for its {@code LISTEN} to be active. */
    private static final long SUBSCRIBE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Announced due times kept per channel (the earliest ones); later ones are found by the bounded poll. */
    private static final int MAX_DUE_TIMES = 1024;
    /** Added to an announced due time: the claim must not run before the server's clock reaches it. */
    private static final long DUE_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final DataSource dataSource;
    private final long listenPollNanos;
    private final long degradedPollNanos;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final Object lifecycle = new Object();
    private Thread thread;
    private PgListener listener;
    private volatile boolean closed;

    /**
     * @param dataSource   where the listening connection comes from
     * @param listenPoll   the longest sleep while listening
     * @param degradedPoll the longest sleep while the listening connection is down
     */
    PgWakeups(DataSource dataSource, Duration listenPoll, Duration degradedPoll) {
        this.dataSource = dataSource;
        this.listenPollNanos = listenPoll.toNanos();
        this.degradedPollNanos = degradedPoll.toNanos();
    }

    /**
     * Fails clearly when the driver API that {@code LISTEN} needs is missing.
     *
     * @throws IllegalStateException if {@value #DRIVER_API} cannot be loaded
     */
    static void requireDriver() {
        try {
            Class.forName(DRIVER_API, false, PgWakeups.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("the postgresql dialect wakes blocking claims with LISTEN/NOTIFY, which"
                    + " needs the PostgreSQL JDBC driver (org.postgresql:postgresql, class " + DRIVER_API + ") on the"
                    + " class path; add it, or set dialectOption(\"" + PostgresDialect.OPTION_WAKEUP
                    + "\", \"poll\") to poll instead", e);
        }
    }

    @Override
    public Ticket ticket(WorkTables tables) {
        Channel channel = channels.computeIfAbsent(PostgresDialect.channel(tables), Channel::new);
        PgListener l = start();
        if (l != null && l.usable() && !l.down() && !channel.isListening()) {
            channel.awaitListening(SUBSCRIBE_WAIT_NANOS);
        }
        return channel.ticket();
    }

    private PgListener start() {
        synchronized (lifecycle) {
            if (closed) {
                return null;
            }
            if (thread == null) {
                listener = new PgListener(dataSource, this);
                thread = new Thread(listener, "rowqueue-pg-listener");
                thread.setDaemon(true);
                thread.start();
            }
            return listener;
        }
    }

    /** @return the channels to listen on */
    Collection<Channel> channels() {
        return channels.values();
    }

    /** @return whether the source was closed */
    boolean closed() {
        return closed;
    }

    /**
     * Called by the listener thread for each notification.
     *
     * @param name    the channel
     * @param payload the delay in milliseconds after which the announced work is due
     */
    void deliver(String name, String payload) {
        Channel channel = channels.get(name);
        if (channel != null) {
            long delay;
            try {
                delay = Long.parseLong(payload == null ? "0" : payload.strip());
            } catch (NumberFormatException e) {
                delay = 0;
            }
            channel.signal(delay);
        }
    }

    @Override
    public void close() {
        Thread t;
        synchronized (lifecycle) {
            closed = true;
            t = thread;
        }
        if (t != null) {
            listener.wake();
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        channels.values().forEach(c -> c.setListening(false));
    }

    /** One queue's channel: what its waiters wait on. */
    final class Channel {
        private final String name;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final TreeSet<Long> due = new TreeSet<>();
        private long version;
        private boolean listening;

        Channel(String name) {
            this.name = name;
        }

        String name() {
            return name;
        }

        boolean isListening() {
            lock.lock();
            try {
                return listening;
            } finally {
                lock.unlock();
            }
        }

        /**
         * Records whether {@code LISTEN} is active, and wakes every waiter: after a reconnect they must look again
         * (notifications sent meanwhile are lost), after a disconnect they must switch to polling.
         */
        void setListening(boolean active) {
            lock.lock();
            try {
                listening = active;
                version++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void signal(long delayMs) {
            lock.lock();
            try {
                long now = System.nanoTime();
                if (delayMs <= 0) {
                    version++;
                } else {
                    due.add(now + TimeUnit.MILLISECONDS.toNanos(delayMs) + DUE_SLACK_NANOS);
                    if (due.size() > MAX_DUE_TIMES) {
                        due.pollLast();
                    }
                }
                promoteDue(now);
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Announced due times that have passed count as a signal. Called with the lock held. */
        private void promoteDue(long now) {
            boolean passed = false;
            while (!due.isEmpty() && due.first() - now <= 0) {
                due.pollFirst();
                passed = true;
            }
            if (passed) {
                version++;
                changed.signalAll();
            }
        }

        void awaitListening(long maxNanos) {
            lock.lock();
            try {
                long seen = version;
                long left = maxNanos;
                while (!listening && version == seen && left > 0 && !closed) {
                    left = changed.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        }

        Ticket ticket() {
            lock.lock();
            try {
                return new ChannelTicket(this, version, listening);
            } finally {
                lock.unlock();
            }
        }

        void await(long seen, boolean wasListening, long maxNanos) throws InterruptedException {
            long start = System.nanoTime();
            long end = start + Math.min(maxNanos, wasListening ? listenPollNanos : degradedPollNanos);
            lock.lock();
            try {
                while (true) {
                    long now = System.nanoTime();
                    promoteDue(now);
                    if (version != seen) {
                        return;
                    }
                    long until = end;
                    if (!due.isEmpty() && due.first() - until < 0) {
                        until = due.first();
                    }
                    long wait = until - now;
                    if (wait <= 0) {
                        return;
                    }
                    changed.awaitNanos(wait);
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** A waiting claim's view of its channel. */
    private record ChannelTicket(Channel channel, long version, boolean listening) implements Ticket {
        @Override
        public void await(long maxNanos) throws InterruptedException {
            channel.await(version, listening, maxNanos);
        }
    }

    /** Logs once per outage. */
    static Logger log() {
        return log;
    }
}
