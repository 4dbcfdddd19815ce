package dev.rowqueue.internal;

import dev.rowqueue.InvalidNameException;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Argument checks that run before any SQL. Text that goes into the database must be valid Unicode without NUL
 * characters: PostgreSQL rejects NUL in text, MySQL's utf8mb4 rejects unpaired surrogates, and a queue must be able
 * to move to any supported database unchanged.
 */
public final class Validation {

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
    private static final Set<String> RESERVED = loadReserved();
    /** The largest batch of one claim or rotate: Oracle's limit on an IN list. */
    public static final int MAX_BATCH = 1000;
    /**
     * Ends a refused queue name's message: the rule differs from the schedule names' (docs/schedules.md), which a
     * user who named a schedule's queue like the schedule meets here.
     */
    static final String QUEUE_NOT_SCHEDULE = " (a queue name becomes part of table names, so it is stricter than a"
            + " schedule name, which may have up to " + dev.rowqueue.Schedules.MAX_NAME_LENGTH
            + " letters, digits, '_', '.' and '-' and keeps its case; queue names are folded to lower case)";

    private Validation() {
    }

    private static Set<String> loadReserved() {
        Set<String> words = new HashSet<>();
        try (InputStream in = Validation.class.getResourceAsStream("reserved-words.txt")) {
            if (in == null) {
                throw new IllegalStateException("reserved-words.txt missing from the rowqueue-api jar");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = reader.readLine()) != null; ) {
                line = line.strip();
                if (!line.isEmpty() && !line.startsWith("#")) {
                    for (String word : line.split("\\s+")) {
                        words.add(word.toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Set.copyOf(words);
    }

    /**
     * @param name a queue name
     * @return the name in lower case
     * @throws InvalidNameException if it is not a safe identifier on every supported database
     */
    public static String queueName(String name) {
        if (name == null) {
            throw new InvalidNameException("queue name must not be null");
        }
        if (!NAME.matcher(name).matches()) {
            throw new InvalidNameException("queue name '" + printable(name)
                    + "' must start with a letter and contain only letters, digits and '_' ([A-Za-z][A-Za-z0-9_]*)"
                    + QUEUE_NOT_SCHEDULE);
        }
        if (name.length() > RowQueues.MAX_NAME_LENGTH) {
            throw new InvalidNameException("queue name '" + name + "' has " + name.length() + " characters; at most "
                    + RowQueues.MAX_NAME_LENGTH + " fit every supported database with rowqueue's table suffixes"
                    + QUEUE_NOT_SCHEDULE);
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (RESERVED.contains(lower)) {
            throw new InvalidNameException("queue name '" + name + "' is an SQL reserved word on at least one"
                    + " supported database; choose another name");
        }
        if (lower.startsWith("rowqueue_")) {
            throw new InvalidNameException("queue name '" + name + "' uses the prefix 'rowqueue_', kept for rowqueue's"
                    + " own tables");
        }
        return lower;
    }

    /**
     * @param word a word
     * @return whether rowqueue treats it as reserved
     */
    public static boolean isReserved(String word) {
        return RESERVED.contains(word.toLowerCase(Locale.ROOT));
    }

    /**
     * Checks a group, counter key or cursor name.
     *
     * @param what  what the text is, for messages
     * @param value the text
     * @param max   its longest length
     * @return the value
     */
    public static String key(String what, String value, int max) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (value.length() > max) {
            throw new IllegalArgumentException(what + " has " + value.length() + " characters; at most " + max);
        }
        text(what, value);
        return value;
    }

    /**
     * Checks a rotation cursor name: a {@link #key}, not of the prefix rowqueue keeps for its own rows
     * ({@link dev.rowqueue.spi.WorkTables#RESERVED_CURSOR_PREFIX}).
     *
     * @param value the cursor name
     * @param max   its longest length
     * @return the value
     */
    public static String cursor(String value, int max) {
        key("cursor", value, max);
        if (value.startsWith(dev.rowqueue.spi.WorkTables.RESERVED_CURSOR_PREFIX)) {
            throw new IllegalArgumentException("cursor names starting with '"
                    + dev.rowqueue.spi.WorkTables.RESERVED_CURSOR_PREFIX + "' are reserved for rowqueue");
        }
        return value;
    }

    /**
     * Checks a payload.
     *
     * @param value the payload
     * @param max   its longest length
     * @return the value
     */
    public static String payload(String value, int max) {
        if (value == null) {
            throw new IllegalArgumentException("payload must not be null");
        }
        if (value.length() > max) {
            throw new IllegalArgumentException("payload has " + value.length() + " characters; at most " + max
                    + " are accepted (RowQueues.Builder.maxPayloadLength and the dialect's column decide)");
        }
        text("payload", value);
        return value;
    }

    /**
     * Checks a list of payloads before any is written.
     *
     * @param values the payloads
     * @param max    their longest length
     * @return an immutable copy
     */
    public static List<String> payloads(List<String> values, int max) {
        if (values == null) {
            throw new IllegalArgumentException("payload list must not be null");
        }
        if (values.isEmpty()) {
            throw new IllegalArgumentException("payload list must not be empty");
        }
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            try {
                payload(v, max);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("payload #" + i + ": " + e.getMessage() + "; nothing was written");
            }
        }
        return List.copyOf(values);
    }

    private static void text(String what, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\u0000') {
                throw new IllegalArgumentException(what + " contains a NUL character at index " + i
                        + ", which not every database can store");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new IllegalArgumentException(what + " contains an unpaired surrogate at index " + i);
            }
            if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException(what + " contains an unpaired surrogate at index " + i);
            }
        }
    }

    /**
     * @param id a job id
     * @return the id
     * @throws IllegalArgumentException if it is below 1 (no job has such an id)
     */
    public static long jobId(long id) {
        if (id < 1) {
            throw new IllegalArgumentException("a job id is 1 or more, got " + id);
        }
        return id;
    }

    /**
     * @param what  the argument
     * @param value a count
     * @return the value
     */
    public static int batch(String what, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, got " + value);
        }
        if (value > MAX_BATCH) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_BATCH + ", got " + value);
        }
        return value;
    }

    /**
     * @param what  the argument
     * @param value a count
     * @return the value
     */
    public static int positive(String what, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, got " + value);
        }
        return value;
    }

    /**
     * @param what  the argument
     * @param value a duration
     * @return it in milliseconds, rounded up
     */
    public static long notNegative(String what, Duration value) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (value.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + value);
        }
        return millisCeil(value);
    }

    /**
     * @param what  the argument
     * @param value a duration
     * @return it in milliseconds, rounded up
     */
    public static long positive(String what, Duration value) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
        return millisCeil(value);
    }

    /**
     * Checks a duration that must be a positive whole number of milliseconds (schedule intervals: they are stored
     * and compared in milliseconds on every database).
     *
     * @param what  the argument
     * @param value a duration
     * @return it in milliseconds
     */
    public static long positiveWholeMillis(String what, Duration value) {
        long ms = positive(what, value);
        if (!Duration.ofMillis(ms).equals(value)) {
            throw new IllegalArgumentException(what + " " + value + " has a fraction of a millisecond; schedules"
                    + " count whole milliseconds");
        }
        return ms;
    }

    /**
     * Parses a time zone.
     *
     * @param id a region such as {@code Europe/Berlin}, {@code UTC}, or an offset such as {@code +01:00}
     * @return the zone
     * @throws IllegalArgumentException for an unknown region or a malformed id
     */
    public static ZoneId zone(String id) {
        if (id == null) {
            throw new IllegalArgumentException("time zone must not be null");
        }
        try {
            return ZoneId.of(id);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("unknown time zone '" + printable(id) + "': use a region such as"
                    + " Europe/Berlin or America/New_York (ZoneId.getAvailableZoneIds() lists them), UTC, or an"
                    + " offset such as +01:00 (" + e.getMessage() + ")", e);
        }
    }

    private static long millisCeil(Duration d) {
        try {
            long ms = d.toMillis();
            return d.minusMillis(ms).isZero() ? ms : ms + 1;
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration " + d + " is too long");
        }
    }

    /**
     * @param job a job argument
     * @return the job
     */
    public static Job job(Job job) {
        Objects.requireNonNull(job, "job");
        if (job.leaseToken() == 0) {
            throw new IllegalArgumentException("job " + job.id() + " carries no lease (a dead letter?); only claimed"
                    + " jobs can be acked, nacked, released or extended");
        }
        return job;
    }

    /**
     * @param error an error text
     * @param max   its longest kept length
     * @return the text, truncated, or {@code null}
     */
    public static String errorText(String error, int max) {
        if (error == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(Math.min(error.length(), max));
        for (int i = 0; i < error.length() && b.length() < max; i++) {
            char c = error.charAt(i);
            if (c == '\u0000' || (Character.isSurrogate(c) && !(Character.isHighSurrogate(c)
                    && i + 1 < error.length() && Character.isLowSurrogate(error.charAt(i + 1))))) {
                b.append('\uFFFD');
            } else if (Character.isHighSurrogate(c)) {
                if (b.length() + 2 > max) {
                    break;
                }
                b.append(c).append(error.charAt(++i));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(60).forEach(cp -> {
            if (Character.isISOControl(cp)) {
                b.append(String.format("\\u%04x", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return s.length() > 60 ? b + "..." : b.toString();
    }
}
