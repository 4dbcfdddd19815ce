package dev.rowqueue.spi;

import dev.rowqueue.RingEntry;

import java.util.List;

/**
 * A ring queue's database work, made by {@link Dialect#ringStore}. Arguments are already validated.
 */
public interface RingStore {
    /**
     * Appends payloads to a group with consecutive sequence numbers, keeping only the newest {@code capacity}.
     *
     * @param group    the group
     * @param payloads at least one
     * @return the sequence numbers given, in order
     * @throws dev.rowqueue.SequenceExhaustedException (from the operation) if the numbers would pass
     *         {@link Long#MAX_VALUE}
     */
    SqlOp<long[]> push(String group, List<String> payloads);

    /**
     * @param group       the group
     * @param newestFirst the order
     * @param limit       the most entries to return; 0 or less for all
     * @return the entries
     */
    SqlOp<List<RingEntry>> read(String group, boolean newestFirst, int limit);

    /**
     * @param group the group
     * @return its entry count
     */
    SqlOp<Integer> size(String group);

    /**
     * Deletes the group's entries; its next sequence number is unchanged where the strategy keeps one.
     *
     * @param group the group
     * @return nothing
     */
    SqlOp<Void> clear(String group);

    /** @return the groups that hold entries, in any order */
    SqlOp<List<String>> groups();
}
