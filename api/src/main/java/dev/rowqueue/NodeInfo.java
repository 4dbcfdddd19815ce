package dev.rowqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A process that uses rowqueue on this database: a {@link RowQueues} instance that claimed jobs or runs workers or a
 * scheduler registers itself in the table {@code rowqueue_nodes} and beats every {@link #HEARTBEAT}
 * ({@link RowQueues#nodes()}). Each lease token it makes carries its id in the high {@value #ID_BITS} bits
 * ({@link #idOf(long)}), so a leased job's holder is found without a column in the jobs table and without a statement
 * per claim. Rows not seen for {@link #EXPIRES_AFTER} are deleted; a clean close deletes its own.
 *
 * @param id        the node's id (also in its lease tokens)
 * @param name      the name it was given ({@link RowQueues.Builder#nodeName(String)}), by default its main class
 * @param host      the host it runs on
 * @param pid       its process id
 * @param started   when it registered
 * @param lastSeen  its last heartbeat (by the database's clock where the dialect reads it)
 * @param silentFor how long ago that was, when it was read
 * @param scheduler whether it runs a scheduler
 * @param runs      what it runs, in words: its workers per queue (with their threads) and its scheduler
 */
public record NodeInfo(long id, String name, String host, long pid, Instant started, Instant lastSeen,
                       Duration silentFor, boolean scheduler, String runs) {

    /** How often a node beats. */
    public static final Duration HEARTBEAT = Duration.ofSeconds(10);
    /** A node silent for longer than this is taken for dead: three heartbeats. */
    public static final Duration ALIVE_WITHIN = HEARTBEAT.multipliedBy(3);
    /** A node silent for longer than this has its row deleted by the next beat of any node. */
    public static final Duration EXPIRES_AFTER = Duration.ofMinutes(10);
    /** The bits of a lease token that carry the node's id: the high ones. */
    public static final int ID_BITS = 20;

    /** Validates. */
    public NodeInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(lastSeen, "lastSeen");
        Objects.requireNonNull(silentFor, "silentFor");
        Objects.requireNonNull(runs, "runs");
    }

    /**
     * @param leaseToken a leased job's token ({@link JobInfo#leaseToken()})
     * @return the id of the node that claimed it: the token's high {@value #ID_BITS} bits ({@code 0} for a token of a
     *         rowqueue before nodes)
     */
    public static long idOf(long leaseToken) {
        return leaseToken >>> (Long.SIZE - ID_BITS);
    }

    /** @return whether its last heartbeat is at most {@link #ALIVE_WITHIN} old */
    public boolean alive() {
        return silentFor.compareTo(ALIVE_WITHIN) <= 0;
    }

    /** @return "name on host, process pid" */
    public String describe() {
        return name + " on " + host + ", process " + pid;
    }
}
