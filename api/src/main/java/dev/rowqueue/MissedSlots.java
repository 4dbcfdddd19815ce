package dev.rowqueue;

import java.util.Objects;

/**
 * What a schedule does with the slots that went by without a job: every node was down, or the schedule was paused.
 * A due slot is <em>missed</em> when a later slot of the same schedule is due as well, or when the scheduler reaches
 * it more than {@link ScheduleOptions#MISSED_AFTER} after its time.
 *
 * <ul>
 *   <li>{@link #SKIP}: missed slots get no job; the schedule goes on with its next slot;</li>
 *   <li>{@link #ONCE} (the default): one job for all the missed slots together, carrying the latest of them;</li>
 *   <li>{@link #each(int) each(cap)}: one job per missed slot, for the latest {@code cap} of them.</li>
 * </ul>
 *
 * <p>A fixed-delay schedule has no missed slots: its next job is due once the previous one finished.
 */
public final class MissedSlots {

    /** Missed slots get no job. */
    public static final MissedSlots SKIP = new MissedSlots(0, "SKIP");
    /** One job for all missed slots together (the default). */
    public static final MissedSlots ONCE = new MissedSlots(1, "ONCE");

    /** The largest cap of {@link #each(int)}. */
    public static final int MAX_CAP = 1000;

    private final int cap;
    private final String text;

    private MissedSlots(int cap, String text) {
        this.cap = cap;
        this.text = text;
    }

    /**
     * One job per missed slot, for the latest {@code cap} missed slots.
     *
     * @param cap 1 to {@value #MAX_CAP}
     * @return the policy
     * @throws IllegalArgumentException for a cap out of range
     */
    public static MissedSlots each(int cap) {
        if (cap < 1 || cap > MAX_CAP) {
            throw new IllegalArgumentException("the cap of MissedSlots.each must be 1 to " + MAX_CAP + ", got " + cap);
        }
        return new MissedSlots(cap, "EACH:" + cap);
    }

    /**
     * Reads {@link #toString()}'s form: {@code SKIP}, {@code ONCE} or {@code EACH:<cap>} (case-insensitive).
     *
     * @param text the text
     * @return the policy
     * @throws IllegalArgumentException for anything else
     */
    public static MissedSlots parse(String text) {
        String t = Objects.requireNonNull(text, "text").strip().toUpperCase(java.util.Locale.ROOT);
        if (t.equals("SKIP")) {
            return SKIP;
        }
        if (t.equals("ONCE")) {
            return ONCE;
        }
        if (t.startsWith("EACH:") || t.startsWith("EACH(")) {
            String n = t.substring(5).replace(")", "").strip();
            try {
                return each(Integer.parseInt(n));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("missed-slot policy '" + text + "': the cap must be a number", e);
            }
        }
        throw new IllegalArgumentException("missed-slot policy '" + text + "' must be SKIP, ONCE or EACH:<cap>");
    }

    /**
     * @param missed how many slots were missed, at least 1
     * @return how many of the latest of them get a job
     */
    public int jobsFor(long missed) {
        return (int) Math.min(cap, missed);
    }

    /** @return the most jobs for missed slots at once: 0 for SKIP, 1 for ONCE, the cap for EACH */
    public int cap() {
        return cap;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MissedSlots m && m.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** @return {@code SKIP}, {@code ONCE} or {@code EACH:<cap>} */
    @Override
    public String toString() {
        return text;
    }
}
