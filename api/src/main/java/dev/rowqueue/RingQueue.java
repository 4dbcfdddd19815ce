package dev.rowqueue;

import java.sql.Connection;
import java.util.List;
import java.util.Optional;

/**
 * A table of capped FIFO queues, one per group: each group grows to {@link #capacity()} entries, then every push
 * evicts that group's oldest entry. "The last 10 viewers of each article" is a ring of capacity 10 with one group
 * per article.
 *
 * <p>Every push gets the group's next sequence number: 1 for the first push into a group, then consecutive,
 * 64-bit, never reused (not even after {@link #clear(String)}), never wrapping. With the default
 * {@link RingStrategy#SAFE} strategy any number of producers may push into the same group concurrently: no push is
 * lost, no sequence number is given twice, and the group always holds exactly its newest {@code capacity} entries.
 *
 * <p>Groups are non-empty strings of at most {@value #MAX_GROUP_LENGTH} characters.
 */
public interface RingQueue {

    /** The longest group name, in characters. */
    int MAX_GROUP_LENGTH = 200;

    /** @return the queue name (lower case) */
    String name();

    /** @return how many entries each group keeps */
    int capacity();

    /** @return how pushes are written */
    RingStrategy strategy();

    /**
     * Appends a payload to a group, evicting the group's oldest entry if it is full.
     *
     * @param group   the group
     * @param payload the entry's text; may be empty, must not be {@code null}
     * @return the entry's sequence number within the group
     * @throws IllegalArgumentException      for a bad group or payload, before any SQL runs
     * @throws SequenceExhaustedException    if the group has used all 2<sup>63</sup>-1 sequence numbers
     */
    long push(String group, String payload);

    /**
     * Appends several payloads to a group atomically, in list order, with consecutive sequence numbers. If the
     * list is longer than the capacity, only its last {@code capacity} payloads remain afterwards.
     *
     * @param group    the group
     * @param payloads at least one payload; every one is validated before any SQL runs
     * @return the sequence numbers, in list order
     */
    List<Long> pushAll(String group, List<String> payloads);

    /**
     * The group's entries, newest first.
     *
     * @param group the group
     * @return at most {@code capacity} entries; empty for an unknown group
     */
    List<RingEntry> newestFirst(String group);

    /**
     * The group's newest entries, newest first.
     *
     * @param group the group
     * @param limit at least 1
     * @return at most {@code limit} entries
     */
    List<RingEntry> newestFirst(String group, int limit);

    /**
     * The group's entries, oldest first (queue order).
     *
     * @param group the group
     * @return at most {@code capacity} entries
     */
    List<RingEntry> oldestFirst(String group);

    /**
     * The group's newest entry.
     *
     * @param group the group
     * @return the entry, or empty if the group has none
     */
    Optional<RingEntry> latest(String group);

    /**
     * @param group the group
     * @return how many entries the group holds, between 0 and {@code capacity}
     */
    int size(String group);

    /**
     * Removes every entry of a group. Its sequence numbers keep counting from where they were.
     *
     * @param group the group
     */
    void clear(String group);

    /** @return the groups that hold at least one entry, in ascending order */
    List<String> groups();

    /**
     * A view of this ring whose operations run on the caller's connection, inside the caller's transaction: they
     * commit or roll back with the caller's own writes and are not retried (a transient failure surfaces as
     * {@link TransientRowQueueException} so the caller can retry its whole transaction). If the connection is in
     * auto-commit mode, each operation runs in a transaction of its own on it.
     *
     * @param connection the caller's connection; never closed by rowqueue
     * @return a handle bound to that connection, as thread-safe as the connection itself
     */
    RingQueue using(Connection connection);
}
