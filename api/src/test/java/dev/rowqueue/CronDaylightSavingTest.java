package dev.rowqueue;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static dev.rowqueue.CronScheduleTest.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Daylight-saving transitions of 2026, with expectations worked out by hand.
 *
 * <p>Europe/Berlin: 2026-03-29 at 01:00Z, 02:00 CET (+01) jumps to 03:00 CEST (+02); 2026-10-25 at 01:00Z, 03:00
 * CEST falls back to 02:00 CET, so 02:00-02:59 occurs twice. America/New_York: 2026-03-08 at 07:00Z, 02:00 EST (-05)
 * jumps to 03:00 EDT (-04); 2026-11-01 at 06:00Z, 02:00 EDT falls back to 01:00 EST, so 01:00-01:59 occurs twice.
 *
 * <p>The rule: fixed-time schedules fire once per matching local time (skipped ones at the end of the gap, repeated
 * ones at their first occurrence); wildcard schedules (minute or hour field starting with '*') follow the clock.
 */
class CronDaylightSavingTest {

    static List<Instant> fires(String expression, String zone, String after, int n) {
        return Schedule.cron(expression, zone).next(Instant.parse(after), n);
    }

    // ---- Europe/Berlin, spring forward

    @Test
    void berlin_spring_a_skipped_fixed_time_fires_once_when_the_gap_ends() {
        assertThat(fires("0 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2))
                .isEqualTo(at("2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"));     // 03:00 CEST, then 02:00 CEST
        assertThat(fires("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2))
                .isEqualTo(at("2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"));
    }

    @Test
    void berlin_spring_several_skipped_times_fire_together_once() {
        assertThat(fires("0,20,40 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2))
                .isEqualTo(at("2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"));
        // 02:00 is skipped and 03:00 exists: both are the instant the gap ends, fired once
        assertThat(fires("0 2,3 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 3))
                .isEqualTo(at("2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z", "2026-03-30T01:00:00Z"));
    }

    @Test
    void berlin_spring_a_fixed_range_catches_up_the_skipped_hour() {
        // 01:30 CET, (02:30 skipped) 03:00 CEST, 03:30 CEST, then 01:30 CEST the next day
        assertThat(fires("30 1-3 * * *", "Europe/Berlin", "2026-03-28T23:00:00Z", 4)).isEqualTo(at(
                "2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z", "2026-03-29T23:30:00Z"));
    }

    @Test
    void berlin_spring_wildcards_follow_the_clock() {
        // every 15 minutes of real time: 01:45 CET, then 03:00 CEST
        assertThat(fires("*/15 * * * *", "Europe/Berlin", "2026-03-29T00:30:00Z", 3))
                .isEqualTo(at("2026-03-29T00:45:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z"));
        // hourly: 01:30 CET, 03:30 CEST; no extra firing at 03:00 for the skipped 02:30
        assertThat(fires("30 * * * *", "Europe/Berlin", "2026-03-29T00:00:00Z", 2))
                .isEqualTo(at("2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z"));
        assertThat(fires("0 * * * *", "Europe/Berlin", "2026-03-28T23:30:00Z", 3))
                .isEqualTo(at("2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"));
        // spelled as fixed times, the skipped quarters fire once, at 03:00 CEST, which matches anyway
        assertThat(fires("0-59/15 0-23 * * *", "Europe/Berlin", "2026-03-29T00:30:00Z", 3))
                .isEqualTo(at("2026-03-29T00:45:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z"));
    }

    // ---- Europe/Berlin, fall back

    @Test
    void berlin_fall_a_repeated_fixed_time_fires_at_its_first_occurrence_only() {
        assertThat(fires("0 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2))
                .isEqualTo(at("2026-10-25T00:00:00Z", "2026-10-26T01:00:00Z"));     // 02:00 CEST, then 02:00 CET
        assertThat(fires("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2))
                .isEqualTo(at("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"));
        // asked from inside the repeated hour (02:10 CET), the next one is tomorrow's
        assertThat(fires("30 2 * * *", "Europe/Berlin", "2026-10-25T01:10:00Z", 1))
                .isEqualTo(at("2026-10-26T01:30:00Z"));
    }

    @Test
    void berlin_fall_a_fixed_range_skips_the_repeat() {
        // 01:30 CEST, 02:30 CEST, (02:30 CET is a repeat) 03:30 CET, then 01:30 CET the next day
        assertThat(fires("30 1-3 * * *", "Europe/Berlin", "2026-10-24T22:00:00Z", 4)).isEqualTo(at(
                "2026-10-24T23:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T02:30:00Z", "2026-10-26T00:30:00Z"));
        // spelled as fixed times, a 15-minute step pauses through the repeated hour
        assertThat(fires("0-59/15 0-23 * * *", "Europe/Berlin", "2026-10-25T00:30:00Z", 3))
                .isEqualTo(at("2026-10-25T00:45:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:15:00Z"));
    }

    @Test
    void berlin_fall_wildcards_fire_through_the_repeated_hour() {
        assertThat(fires("*/15 * * * *", "Europe/Berlin", "2026-10-25T00:30:00Z", 6)).isEqualTo(at(
                "2026-10-25T00:45:00Z", "2026-10-25T01:00:00Z", "2026-10-25T01:15:00Z", "2026-10-25T01:30:00Z",
                "2026-10-25T01:45:00Z", "2026-10-25T02:00:00Z"));
        assertThat(fires("0 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z", 3))
                .isEqualTo(at("2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"));
        // 01:30 CEST, 02:30 CEST, 02:30 CET, 03:30 CET
        assertThat(fires("30 * * * *", "Europe/Berlin", "2026-10-24T23:00:00Z", 4)).isEqualTo(at(
                "2026-10-24T23:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00Z"));
        // asked from the second 02:45 (CET): 03:00 CET comes next
        assertThat(fires("*/15 * * * *", "Europe/Berlin", "2026-10-25T01:45:00Z", 1))
                .isEqualTo(at("2026-10-25T02:00:00Z"));
    }

    // ---- America/New_York

    @Test
    void new_york_spring() {
        assertThat(fires("0 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 2))
                .isEqualTo(at("2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"));     // 03:00 EDT, then 02:00 EDT
        assertThat(fires("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 2))
                .isEqualTo(at("2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"));
        assertThat(fires("30 1-3 * * *", "America/New_York", "2026-03-08T05:00:00Z", 3))
                .isEqualTo(at("2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"));
        assertThat(fires("*/15 * * * *", "America/New_York", "2026-03-08T06:30:00Z", 3))
                .isEqualTo(at("2026-03-08T06:45:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:15:00Z"));
        assertThat(fires("0 * * * *", "America/New_York", "2026-03-08T05:30:00Z", 2))
                .isEqualTo(at("2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z"));             // 01:00 EST, 03:00 EDT
    }

    @Test
    void new_york_fall() {
        // 02:00 occurs once in New York (01:00-01:59 repeats)
        assertThat(fires("0 2 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2))
                .isEqualTo(at("2026-11-01T07:00:00Z", "2026-11-02T07:00:00Z"));
        assertThat(fires("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2))
                .isEqualTo(at("2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"));     // 01:30 EDT, then 01:30 EST
        assertThat(fires("30 1-3 * * *", "America/New_York", "2026-11-01T04:00:00Z", 3))
                .isEqualTo(at("2026-11-01T05:30:00Z", "2026-11-01T07:30:00Z", "2026-11-01T08:30:00Z"));
        assertThat(fires("*/15 * * * *", "America/New_York", "2026-11-01T05:30:00Z", 3))
                .isEqualTo(at("2026-11-01T05:45:00Z", "2026-11-01T06:00:00Z", "2026-11-01T06:15:00Z"));
        assertThat(fires("0 * * * *", "America/New_York", "2026-11-01T04:30:00Z", 3))
                .isEqualTo(at("2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"));
    }

    @Test
    void a_rare_schedule_in_a_zone_with_transitions_steps_over_years_of_them() {
        // leap days at midnight CET: eight transitions lie between two of them
        assertThat(fires("0 0 29 2 *", "Europe/Berlin", "2026-03-10T00:00:00Z", 3))
                .isEqualTo(at("2028-02-28T23:00:00Z", "2032-02-28T23:00:00Z", "2036-02-28T23:00:00Z"));
    }

    @Test
    void a_daily_schedule_fires_every_day_of_a_year_with_both_transitions() {
        for (String zone : List.of("Europe/Berlin", "America/New_York")) {
            for (String time : List.of("0 2", "30 2", "30 1", "0 3")) {
                List<Instant> days = fires(time + " * * *", zone, "2026-01-01T00:00:00Z", 365);
                assertThat(days.get(364)).as(zone + " " + time).isBefore(Instant.parse("2027-01-02T00:00:00Z"));
                assertThat(days.get(0)).as(zone + " " + time).isBefore(Instant.parse("2026-01-02T12:00:00Z"));
            }
        }
    }
}
