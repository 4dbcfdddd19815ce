package dev.rowqueue;

import dev.rowqueue.internal.Validation;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Parsing the parts of a schedule's text, with messages that say what was expected. */
final class ScheduleText {

    private ScheduleText() {
    }

    static Duration duration(String what, String text) {
        try {
            return Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not an ISO-8601 duration such as PT10S,"
                    + " PT15M or PT24H", e);
        }
    }

    static Instant instant(String text) {
        try {
            return Instant.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("anchor '" + text + "' is not an ISO-8601 instant such as"
                    + " 2026-01-05T06:00:00Z", e);
        }
    }

    /** Checks a fixed rate's interval or a fixed delay: positive, whole milliseconds. */
    static Duration wholeMillis(String what, Duration d) {
        Validation.positiveWholeMillis(what, d);
        return d;
    }
}
