package dev.rowqueue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

import static dev.rowqueue.CronScheduleTest.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Fixed rates, fixed delays, the one-string form and {@code next(after, n)}. */
class ScheduleTest {

    @Test
    void a_fixed_rate_is_aligned_to_the_epoch() {
        Schedule every10s = Schedule.every(Duration.ofSeconds(10));
        assertThat(every10s.next(Instant.parse("2026-03-10T10:00:00Z"), 3))
                .isEqualTo(at("2026-03-10T10:00:10Z", "2026-03-10T10:00:20Z", "2026-03-10T10:00:30Z"));
        assertThat(every10s.next(Instant.parse("2026-03-10T10:00:05.5Z"))).isEqualTo("2026-03-10T10:00:10Z");
        assertThat(every10s.next(Instant.parse("2026-03-10T10:00:09.999999999Z"))).isEqualTo("2026-03-10T10:00:10Z");
        assertThat(every10s.next(Instant.parse("1969-12-31T23:59:55Z"))).isEqualTo("1970-01-01T00:00:00Z");
        assertThat(every10s.next(Instant.parse("1969-12-31T23:59:50Z"))).isEqualTo("1970-01-01T00:00:00Z");
        assertThat(every10s.next(Instant.parse("1969-12-31T23:59:49.5Z"))).isEqualTo("1969-12-31T23:59:50Z");
        assertThat(Schedule.every(Duration.ofMinutes(15)).next(Instant.parse("2026-03-10T10:07:00Z")))
                .isEqualTo("2026-03-10T10:15:00Z");
    }

    @Test
    void a_fixed_rate_with_an_anchor_keeps_its_phase_in_both_directions() {
        FixedRateSchedule daily = Schedule.every(Duration.ofHours(24), Instant.parse("2026-01-05T06:00:00Z"));
        assertThat(daily.next(Instant.parse("2026-03-10T07:00:00Z"))).isEqualTo("2026-03-11T06:00:00Z");
        assertThat(daily.next(Instant.parse("2025-03-10T05:00:00Z"))).isEqualTo("2025-03-10T06:00:00Z");
        assertThat(daily.anchor()).isEqualTo("1970-01-01T06:00:00Z");
        assertThat(daily.interval()).isEqualTo(Duration.ofHours(24));
        assertThat(daily.toString()).isEqualTo("rate:PT24H@1970-01-01T06:00:00Z");
        assertThat(Schedule.every(Duration.ofSeconds(10), Instant.parse("2026-03-10T10:00:20Z")))
                .isEqualTo(Schedule.every(Duration.ofSeconds(10)));
        assertThat(Schedule.every(Duration.ofSeconds(10), Instant.parse("2026-03-10T10:00:25Z")))
                .isNotEqualTo(Schedule.every(Duration.ofSeconds(10)));
        assertThat(Schedule.every(Duration.ofSeconds(10))).isNotEqualTo(Schedule.every(Duration.ofSeconds(20)));
    }

    @Test
    void a_fixed_delay_counts_from_the_completion() {
        FixedDelaySchedule delay = Schedule.fixedDelay(Duration.ofMinutes(1));
        Instant completed = Instant.parse("2026-03-10T10:00:07.250Z");
        assertThat(delay.nextAfterCompletion(completed)).isEqualTo("2026-03-10T10:01:07.250Z");
        assertThat(delay.next(completed)).isEqualTo("2026-03-10T10:01:07.250Z");
        assertThat(delay.next(completed, 2)).isEqualTo(at("2026-03-10T10:01:07.250Z", "2026-03-10T10:02:07.250Z"));
        assertThat(delay.delay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(delay).isEqualTo(Schedule.fixedDelay(Duration.ofSeconds(60)))
                .isNotEqualTo(Schedule.fixedDelay(Duration.ofSeconds(61)))
                .isNotEqualTo(Schedule.every(Duration.ofMinutes(1)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "cron:0 9 * * MON-FRI@Europe/Berlin  | cron:0 9 * * MON-FRI@Europe/Berlin",
            "cron:0 9 * * 1-5@Europe/Berlin      | cron:0 9 * * MON-FRI@Europe/Berlin",
            "cron:@daily                         | cron:0 0 * * *@UTC",
            "cron:@daily@America/New_York        | cron:0 0 * * *@America/New_York",
            "CRON: 0 0 * * * @ Etc/UTC           | cron:0 0 * * *@UTC",
            "cron:30 */5 * * * *@+05:30          | cron:30 */5 * * * *@+05:30",
            "rate:PT10S                          | rate:PT10S",
            "rate:PT1M@2026-03-10T10:00:30Z      | rate:PT1M@1970-01-01T00:00:30Z",
            "rate:P1D                            | rate:PT24H",
            "delay:PT1M                          | delay:PT1M",
            "delay:PT0.5S                        | delay:PT0.5S",
    })
    void one_string_round_trips(String text, String canonical) {
        Schedule schedule = Schedule.parse(text);
        assertThat(schedule).hasToString(canonical);
        assertThat(Schedule.parse(canonical)).isEqualTo(schedule).hasSameHashCodeAs(schedule);
    }

    @Test
    void next_n_is_bounded() {
        Schedule s = Schedule.cron("* * * * *");
        Instant t = Instant.parse("2026-03-10T10:00:00Z");
        assertThat(s.next(t, Schedule.MAX_NEXT)).hasSize(Schedule.MAX_NEXT);
        assertThatThrownBy(() -> s.next(t, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n must be 1 to 1000, got 0");
        assertThatThrownBy(() -> s.next(t, 1001)).hasMessage("n must be 1 to 1000, got 1001");
    }

    @Test
    void no_fire_time_beyond_what_java_time_supports() {
        for (Schedule s : List.of(Schedule.cron("@yearly"), Schedule.cron("@yearly", "Europe/Berlin"),
                Schedule.every(Duration.ofDays(1)), Schedule.fixedDelay(Duration.ofDays(1)))) {
            assertThatThrownBy(() -> s.next(Instant.MAX)).as(s.toString()).isInstanceOf(DateTimeException.class);
        }
        assertThat(Schedule.cron("@yearly").next(Instant.parse("+999999998-06-01T00:00:00Z")))
                .isEqualTo("+999999999-01-01T00:00:00Z");
    }

    @Test
    void bad_intervals_and_delays_are_refused() {
        assertThatThrownBy(() -> Schedule.every(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be positive, got PT0S");
        assertThatThrownBy(() -> Schedule.every(Duration.ofSeconds(-1))).hasMessage("interval must be positive, got PT-1S");
        assertThatThrownBy(() -> Schedule.every(null)).hasMessage("interval must not be null");
        assertThatThrownBy(() -> Schedule.every(Duration.ofNanos(1_500_000)))
                .hasMessage("interval PT0.0015S has a fraction of a millisecond; schedules count whole milliseconds");
        assertThatThrownBy(() -> Schedule.every(Duration.ofSeconds(1), Instant.ofEpochSecond(0, 1)))
                .hasMessageContaining("anchor 1970-01-01T00:00:00.000000001Z has a fraction of a millisecond");
        assertThatThrownBy(() -> Schedule.every(Duration.ofSeconds(1), null)).hasMessage("anchor must not be null");
        assertThatThrownBy(() -> Schedule.fixedDelay(Duration.ZERO)).hasMessage("delay must be positive, got PT0S");
        assertThatThrownBy(() -> Schedule.fixedDelay(Duration.ofMinutes(-1)))
                .hasMessage("delay must be positive, got PT-1M");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0 9 * * *", "every 10s", "", "crontab:* * * * *"})
    void text_without_a_known_kind_is_refused(String text) {
        assertThatThrownBy(() -> Schedule.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("schedule '" + text + "' must start with cron:, rate: or delay: (for example"
                        + " 'cron:0 9 * * MON-FRI@Europe/Berlin', 'rate:PT10S', 'delay:PT1M')");
    }

    @Test
    void bad_parts_of_a_schedule_text_are_named() {
        assertThatThrownBy(() -> Schedule.parse(null)).hasMessage("schedule must not be null");
        assertThatThrownBy(() -> Schedule.parse("rate:10s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval '10s' is not an ISO-8601 duration such as PT10S, PT15M or PT24H");
        assertThatThrownBy(() -> Schedule.parse("rate:PT10S@yesterday"))
                .hasMessage("anchor 'yesterday' is not an ISO-8601 instant such as 2026-01-05T06:00:00Z");
        assertThatThrownBy(() -> Schedule.parse("rate:PT0S")).hasMessage("interval must be positive, got PT0S");
        assertThatThrownBy(() -> Schedule.parse("delay:1m")).hasMessageStartingWith("delay '1m' is not an ISO-8601");
        assertThatThrownBy(() -> Schedule.parse("cron:0 0 * * *@Mars/Olympus"))
                .hasMessageStartingWith("unknown time zone 'Mars/Olympus'");
        assertThatThrownBy(() -> Schedule.parse("cron:0 25 * * *@UTC"))
                .hasMessage("invalid cron expression '0 25 * * *': hour 25 is out of range 0-23");
    }

    @Test
    void schedules_of_different_kinds_are_never_equal() {
        assertThat(Schedule.cron("* * * * *")).isNotEqualTo(Schedule.every(Duration.ofMinutes(1)));
        assertThat(Schedule.every(Duration.ofMinutes(1))).isNotEqualTo(Schedule.fixedDelay(Duration.ofMinutes(1)));
        // Paris and Berlin agree today but not in their history: different rules, different schedules
        assertThat(Schedule.cron("0 9 * * *", ZoneId.of("Europe/Berlin")))
                .isNotEqualTo(Schedule.cron("0 9 * * *", ZoneId.of("Europe/Paris")));
    }
}
