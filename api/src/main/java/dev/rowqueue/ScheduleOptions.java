package dev.rowqueue;

import dev.rowqueue.internal.Validation;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * What a schedule enqueues, and where: the work queue, the payload (a template), the job's key, the zone of cron
 * expressions given as text, and the {@link MissedSlots missed-slot policy}. Immutable; each {@code with} method
 * returns a copy that keeps every other value; {@link #forQueue(String)} is the only way to start a chain.
 *
 * <pre>{@code
 * ScheduleOptions.forQueue("reports")
 *         .withPayload("{\"report\":\"daily\",\"slot\":\"{slot}\"}")   // {slot}: the slot, an ISO-8601 instant
 *         .withKey("reports")                                          // the job's key (keys, limits apply)
 *         .withZone(ZoneId.of("Europe/Berlin"))
 *         .withMissed(MissedSlots.each(3));
 * }</pre>
 *
 * <p>Placeholders in the payload and the key: {@code {slot}} (the slot's instant, such as
 * {@code 2026-11-27T09:00:00Z}), {@code {slot_ms}} (its epoch milliseconds) and {@code {schedule}} (the schedule's
 * name). The default payload is {@value #DEFAULT_PAYLOAD}.
 *
 * @param queue   the work queue the jobs go into; it must exist when the schedule is defined
 * @param payload the payload template
 * @param key     the job key template, or {@code null} for jobs without a key
 * @param zone    the zone of a cron expression given as text (UTC by default)
 * @param missed  the missed-slot policy ({@link MissedSlots#ONCE} by default)
 */
public record ScheduleOptions(String queue, String payload, String key, ZoneId zone, MissedSlots missed) {

    /** The default payload template. */
    public static final String DEFAULT_PAYLOAD = "{\"schedule\":\"{schedule}\",\"slot\":\"{slot}\"}";
    /** How late a slot may be reached before it counts as missed although no later slot is due yet. */
    public static final Duration MISSED_AFTER = Duration.ofMinutes(1);

    /** Validates. */
    public ScheduleOptions {
        queue = Validation.queueName(queue);
        Objects.requireNonNull(payload, "payload");
        if (payload.isEmpty()) {
            throw new IllegalArgumentException("the payload template must not be empty");
        }
        if (key != null && key.isEmpty()) {
            throw new IllegalArgumentException("the key template must not be empty (null for no key)");
        }
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(missed, "missed");
    }

    /**
     * @param queue an existing work queue
     * @return options with the default payload, no key, UTC and {@link MissedSlots#ONCE}
     * @throws IllegalArgumentException for an invalid queue name
     */
    public static ScheduleOptions forQueue(String queue) {
        return new ScheduleOptions(queue, DEFAULT_PAYLOAD, null, ZoneOffset.UTC, MissedSlots.ONCE);
    }

    /**
     * @param queue an existing work queue
     * @return a copy
     * @throws IllegalArgumentException for an invalid queue name
     */
    public ScheduleOptions withQueue(String queue) {
        return new ScheduleOptions(queue, payload, key, zone, missed);
    }

    /**
     * @param template the payload, with placeholders {@code {slot}}, {@code {slot_ms}}, {@code {schedule}}
     * @return a copy
     */
    public ScheduleOptions withPayload(String template) {
        return new ScheduleOptions(queue, template, key, zone, missed);
    }

    /**
     * @param template the job key, with the payload's placeholders, or {@code null} for none
     * @return a copy
     */
    public ScheduleOptions withKey(String template) {
        return new ScheduleOptions(queue, payload, template, zone, missed);
    }

    /**
     * @param zone the zone of a cron expression given as text
     * @return a copy
     */
    public ScheduleOptions withZone(ZoneId zone) {
        return new ScheduleOptions(queue, payload, key, zone, missed);
    }

    /**
     * @param zone a zone id such as {@code Europe/Berlin}
     * @return a copy
     * @throws IllegalArgumentException for an unknown zone
     */
    public ScheduleOptions withZone(String zone) {
        return withZone(Validation.zone(zone));
    }

    /**
     * @param policy the missed-slot policy
     * @return a copy
     */
    public ScheduleOptions withMissed(MissedSlots policy) {
        return new ScheduleOptions(queue, payload, key, zone, policy);
    }

    /**
     * Fills a template's placeholders.
     *
     * @param template a payload or key template
     * @param schedule the schedule's name
     * @param slot     the slot
     * @return the text
     */
    public static String render(String template, String schedule, java.time.Instant slot) {
        return template.replace("{slot_ms}", Long.toString(slot.toEpochMilli()))
                .replace("{slot}", slot.toString()).replace("{schedule}", schedule);
    }
}
