package dev.rowqueue.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} or ISO-8601 ({@code PT30S}). */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration; use 500ms, 30s, 5m, 2h,"
                    + " 1d or ISO-8601 such as PT30S");
        }
    }
}
