package dev.rowqueue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Cron syntax and semantics in UTC, against expectations worked out from the calendar. */
class CronScheduleTest {

    static List<Instant> fires(String expression, String after, int n) {
        return Schedule.cron(expression).next(Instant.parse(after), n);
    }

    static List<Instant> at(String... instants) {
        return Arrays.stream(instants).map(Instant::parse).toList();
    }

    @Test
    void five_fields_fire_at_whole_minutes_strictly_after_the_given_instant() {
        assertThat(fires("0 9 * * *", "2026-03-10T08:59:59.999Z", 2))
                .isEqualTo(at("2026-03-10T09:00:00Z", "2026-03-11T09:00:00Z"));
        assertThat(fires("0 9 * * *", "2026-03-10T09:00:00Z", 1)).isEqualTo(at("2026-03-11T09:00:00Z"));
        assertThat(fires("0 9 * * *", "2026-03-10T09:00:00.000001Z", 1)).isEqualTo(at("2026-03-11T09:00:00Z"));
    }

    @Test
    void a_sixth_field_in_front_is_seconds() {
        assertThat(fires("30 0 9 * * *", "2026-03-10T00:00:00Z", 2))
                .isEqualTo(at("2026-03-10T09:00:30Z", "2026-03-11T09:00:30Z"));
        assertThat(fires("*/20 * * * * *", "2026-03-10T10:00:00Z", 4)).isEqualTo(at("2026-03-10T10:00:20Z",
                "2026-03-10T10:00:40Z", "2026-03-10T10:01:00Z", "2026-03-10T10:01:20Z"));
    }

    @Test
    void lists_ranges_and_steps() {
        assertThat(fires("*/15 * * * *", "2026-03-10T10:07:00Z", 5)).isEqualTo(at("2026-03-10T10:15:00Z",
                "2026-03-10T10:30:00Z", "2026-03-10T10:45:00Z", "2026-03-10T11:00:00Z", "2026-03-10T11:15:00Z"));
        assertThat(fires("10-40/10 * * * *", "2026-03-10T10:00:00Z", 5)).isEqualTo(at("2026-03-10T10:10:00Z",
                "2026-03-10T10:20:00Z", "2026-03-10T10:30:00Z", "2026-03-10T10:40:00Z", "2026-03-10T11:10:00Z"));
        assertThat(fires("5/20 * * * *", "2026-03-10T10:00:00Z", 4)).isEqualTo(at("2026-03-10T10:05:00Z",
                "2026-03-10T10:25:00Z", "2026-03-10T10:45:00Z", "2026-03-10T11:05:00Z"));
        assertThat(fires("0 9,17 * * *", "2026-03-10T10:00:00Z", 2))
                .isEqualTo(at("2026-03-10T17:00:00Z", "2026-03-11T09:00:00Z"));
        assertThat(fires("0 9-11 * * *", "2026-03-10T10:00:00Z", 3))
                .isEqualTo(at("2026-03-10T11:00:00Z", "2026-03-11T09:00:00Z", "2026-03-11T10:00:00Z"));
        assertThat(fires("0 0 1-5/2,20 * *", "2026-03-10T00:00:00Z", 4)).isEqualTo(at("2026-03-20T00:00:00Z",
                "2026-04-01T00:00:00Z", "2026-04-03T00:00:00Z", "2026-04-05T00:00:00Z"));
    }

    @Test
    void month_and_weekday_names_are_case_insensitive() {
        assertThat(fires("0 0 1 jan,Jul *", "2026-03-10T00:00:00Z", 2))
                .isEqualTo(at("2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"));
        assertThat(fires("0 0 * * Mon", "2026-03-10T00:00:00Z", 1)).isEqualTo(at("2026-03-16T00:00:00Z"));
    }

    @Test
    void sunday_is_0_or_7_and_may_end_a_range() {
        for (String sunday : List.of("0", "7", "SUN", "sun")) {
            assertThat(fires("0 0 * * " + sunday, "2026-03-10T00:00:00Z", 2)).as(sunday)
                    .isEqualTo(at("2026-03-15T00:00:00Z", "2026-03-22T00:00:00Z"));
        }
        assertThat(Schedule.cron("0 0 * * 7")).isEqualTo(Schedule.cron("0 0 * * 0"));
        assertThat(fires("0 0 * * FRI-SUN", "2026-03-10T00:00:00Z", 4)).isEqualTo(at("2026-03-13T00:00:00Z",
                "2026-03-14T00:00:00Z", "2026-03-15T00:00:00Z", "2026-03-20T00:00:00Z"));
        assertThat(fires("0 0 * * 5-7", "2026-03-10T00:00:00Z", 4)).isEqualTo(fires("0 0 * * FRI-SUN",
                "2026-03-10T00:00:00Z", 4));
        assertThat(Schedule.cron("0 0 * * MON-SUN").expression()).isEqualTo("0 0 * * *");
    }

    @Test
    void macros() {
        String after = "2026-03-10T10:07:00Z";
        assertThat(fires("@yearly", after, 3))
                .isEqualTo(at("2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z", "2029-01-01T00:00:00Z"));
        assertThat(fires("@ANNUALLY", after, 1)).isEqualTo(at("2027-01-01T00:00:00Z"));
        assertThat(fires("@monthly", after, 1)).isEqualTo(at("2026-04-01T00:00:00Z"));
        assertThat(fires("@weekly", after, 1)).isEqualTo(at("2026-03-15T00:00:00Z"));
        assertThat(fires("@daily", after, 1)).isEqualTo(at("2026-03-11T00:00:00Z"));
        assertThat(fires("@midnight", after, 1)).isEqualTo(at("2026-03-11T00:00:00Z"));
        assertThat(fires("@hourly", after, 1)).isEqualTo(at("2026-03-10T11:00:00Z"));
    }

    @Test
    void a_yearly_schedule_steps_field_by_field_and_reaches_far_years() {
        List<Instant> years = fires("@yearly", "2026-03-10T00:00:00Z", Schedule.MAX_NEXT);
        assertThat(years.get(Schedule.MAX_NEXT - 1)).isEqualTo(Instant.parse("3026-01-01T00:00:00Z"));
        assertThat(fires("0 0 29 2 *", "2026-03-10T00:00:00Z", 3))
                .isEqualTo(at("2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z"));
        // 2100 is not a leap year
        assertThat(fires("0 0 29 2 *", "2096-03-01T00:00:00Z", 1)).isEqualTo(at("2104-02-29T00:00:00Z"));
    }

    @Test
    void when_both_day_fields_are_restricted_either_matches() {
        // March 2026: the 1st is a Sunday, Mondays are the 2nd, 9th, 16th, 23rd and 30th
        assertThat(fires("0 0 1,15 * MON", "2026-03-01T00:00:00Z", 7)).isEqualTo(at("2026-03-02T00:00:00Z",
                "2026-03-09T00:00:00Z", "2026-03-15T00:00:00Z", "2026-03-16T00:00:00Z", "2026-03-23T00:00:00Z",
                "2026-03-30T00:00:00Z", "2026-04-01T00:00:00Z"));
        assertThat(fires("0 0 1-31/2 * MON", "2026-03-01T00:00:00Z", 4)).isEqualTo(at("2026-03-02T00:00:00Z",
                "2026-03-03T00:00:00Z", "2026-03-05T00:00:00Z", "2026-03-07T00:00:00Z"));
    }

    @Test
    void a_day_field_that_starts_with_a_star_is_unrestricted_so_both_must_match() {
        // odd days that are Mondays: March 9 and 23, April 13 and 27
        assertThat(fires("0 0 */2 * MON", "2026-03-01T00:00:00Z", 4)).isEqualTo(at("2026-03-09T00:00:00Z",
                "2026-03-23T00:00:00Z", "2026-04-13T00:00:00Z", "2026-04-27T00:00:00Z"));
        assertThat(fires("0 0 ? * MON", "2026-03-01T00:00:00Z", 2))
                .isEqualTo(at("2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z"));
        assertThat(fires("0 0 1 * *", "2026-03-01T00:00:00Z", 1)).isEqualTo(at("2026-04-01T00:00:00Z"));
    }

    @Test
    void quartz_last_day_forms() {
        assertThat(fires("0 0 L * ?", "2026-01-01T00:00:00Z", 3))
                .isEqualTo(at("2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z"));
        assertThat(fires("0 0 L-3 * *", "2026-02-01T00:00:00Z", 2))
                .isEqualTo(at("2026-02-25T00:00:00Z", "2026-03-28T00:00:00Z"));
        // Jan 31 2026 is a Saturday, Feb 28 a Saturday, May 31 a Sunday
        assertThat(fires("0 0 LW * *", "2026-01-01T00:00:00Z", 5)).isEqualTo(at("2026-01-30T00:00:00Z",
                "2026-02-27T00:00:00Z", "2026-03-31T00:00:00Z", "2026-04-30T00:00:00Z", "2026-05-29T00:00:00Z"));
    }

    @Test
    void quartz_nearest_weekday_never_leaves_the_month() {
        // March 15 2026 is a Sunday (-> Monday 16th), August 15 a Saturday (-> Friday 14th)
        assertThat(fires("0 0 15W 3,8 *", "2026-01-01T00:00:00Z", 2))
                .isEqualTo(at("2026-03-16T00:00:00Z", "2026-08-14T00:00:00Z"));
        // August 1 2026 is a Saturday: Monday the 3rd, not Friday July 31
        assertThat(fires("0 0 1W 8 *", "2026-01-01T00:00:00Z", 1)).isEqualTo(at("2026-08-03T00:00:00Z"));
        // Jan 31 2026 is a Saturday (-> 30th), May 31 a Sunday (-> Friday 29th, not June 1); 30-day months skip
        assertThat(fires("0 0 31W * *", "2026-01-01T00:00:00Z", 5)).isEqualTo(at("2026-01-30T00:00:00Z",
                "2026-03-31T00:00:00Z", "2026-05-29T00:00:00Z", "2026-07-31T00:00:00Z", "2026-08-31T00:00:00Z"));
    }

    @Test
    void quartz_weekday_of_the_month_forms() {
        assertThat(fires("0 0 ? * FRIL", "2026-01-01T00:00:00Z", 3))
                .isEqualTo(at("2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z", "2026-03-27T00:00:00Z"));
        assertThat(fires("0 0 * * fri#3", "2026-01-01T00:00:00Z", 3))
                .isEqualTo(at("2026-01-16T00:00:00Z", "2026-02-20T00:00:00Z", "2026-03-20T00:00:00Z"));
        // only January and May 2026 have five Fridays before June
        assertThat(fires("0 0 * * FRI#5", "2026-01-01T00:00:00Z", 2))
                .isEqualTo(at("2026-01-30T00:00:00Z", "2026-05-29T00:00:00Z"));
        // with a restricted day-of-month, either matches: the 10th, or the last Friday
        assertThat(fires("0 0 10 * FRIL", "2026-01-01T00:00:00Z", 3))
                .isEqualTo(at("2026-01-10T00:00:00Z", "2026-01-30T00:00:00Z", "2026-02-10T00:00:00Z"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "@daily                | 0 0 * * *",
            "0 0 0 * * *           | 0 0 * * *",
            "0 9 * * 1-5           | 0 9 * * MON-FRI",
            "0 0 * * 7             | 0 0 * * SUN",
            "5 4 * * sun,sat       | 5 4 * * SUN,SAT",
            "0 0 1 1,2,3,7 *       | 0 0 1 JAN-MAR,JUL *",
            "0,15,30,45 * * * *    | */15 * * * *",
            "0-59/15 0-23 * * *    | */15 * * * *",
            "0 0 1,3,5,7 * *       | 0 0 1-7/2 * *",
            "0 0 1,2 * *           | 0 0 1,2 * *",
            "0 0 1,15 * MON        | 0 0 1,15 * MON",
            "0 0 1-31 * MON        | 0 0 * * *",
            "0 0 */2 * MON         | 0 0 */2 * MON",
            "0 0 1-15 * */2        | 0 0 1-15 * */2",
            "0 0 * jan-dec sun-sat | 0 0 * * *",
            "0 0 ? * fri#3         | 0 0 * * FRI#3",
            "0 0 l * ?             | 0 0 L * *",
            "0 0 l-2 * ?           | 0 0 L-2 * *",
            "0 0 lw * ?            | 0 0 LW * *",
            "0 0 15w * ?           | 0 0 15W * *",
            "0 0 ? * fril           | 0 0 * * FRIL",
            "*/10 * * * * *        | */10 * * * * *",
    })
    void the_canonical_expression(String input, String canonical) {
        CronSchedule schedule = Schedule.cron(input);
        assertThat(schedule.expression()).isEqualTo(canonical);
        assertThat(Schedule.cron(canonical)).isEqualTo(schedule);
        assertThat(schedule.toString()).isEqualTo("cron:" + canonical + "@UTC");
    }

    @Test
    void a_fixed_time_spelled_out_keeps_its_spelling_where_daylight_saving_tells_it_from_a_wildcard() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        assertThat(Schedule.cron("0-59/15 0-23 * * *", berlin).expression()).isEqualTo("0-45/15 0-23 * * *");
        assertThat(Schedule.cron("0-59/15 0-23 * * *", berlin)).isNotEqualTo(Schedule.cron("*/15 * * * *", berlin));
        assertThat(Schedule.cron("0-59/15 0-23 * * *", "UTC")).isEqualTo(Schedule.cron("*/15 * * * *", "UTC"));
        assertThat(Schedule.cron("0,15,30,45 * * * *", berlin)).isEqualTo(Schedule.cron("*/15 * * * *", berlin));
        assertThat(Schedule.cron("0 */2 * * *", berlin).expression()).isEqualTo("0 */2 * * *");
        assertThat(Schedule.cron("0 */12 * * *", berlin).expression()).isEqualTo("0 */12 * * *");
        assertThat(Schedule.cron("0 0 1-15 * */6", berlin).expression()).isEqualTo("0 0 1-15 * */6");
        // a wildcard whose fields are no plain step still prints a field that starts with '*'
        CronSchedule odd = Schedule.cron("*/2,7 0 * * *", berlin);
        assertThat(odd.expression()).endsWith(" */24 * * *");
        assertThat(Schedule.cron(odd.expression(), berlin)).isEqualTo(odd);
        assertThat(odd).isNotEqualTo(Schedule.cron(odd.expression().replace("*/24", "0"), berlin));
    }

    @Test
    void zones_are_normalized_and_links_are_equal() {
        String e = "0 9 * * MON-FRI";
        assertThat(Schedule.cron(e)).isEqualTo(Schedule.cron(e, "UTC")).isEqualTo(Schedule.cron(e, "Etc/UTC"))
                .isEqualTo(Schedule.cron(e, ZoneOffset.UTC)).isEqualTo(Schedule.cron(e, "+00:00"));
        assertThat(Schedule.cron(e, "Etc/UTC").zone()).isEqualTo(ZoneOffset.UTC);
        assertThat(Schedule.cron(e, "US/Eastern")).isEqualTo(Schedule.cron(e, "America/New_York"))
                .hasSameHashCodeAs(Schedule.cron(e, "America/New_York"));
        assertThat(Schedule.cron(e, "Europe/Berlin")).isNotEqualTo(Schedule.cron(e, "America/New_York"));
        assertThat(Schedule.cron(e, "Europe/Berlin")).isNotEqualTo(Schedule.cron("0 10 * * MON-FRI", "Europe/Berlin"));
        assertThat(Schedule.cron(e, "+05:30").toString()).isEqualTo("cron:0 9 * * MON-FRI@+05:30");
        assertThat(fires("0 9 * * *", "2026-03-10T00:00:00Z", 1)).isEqualTo(at("2026-03-10T09:00:00Z"));
        assertThat(Schedule.cron("0 9 * * *", "+05:30").next(Instant.parse("2026-03-10T00:00:00Z")))
                .isEqualTo(Instant.parse("2026-03-10T03:30:00Z"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0 25 * * *        | invalid cron expression '0 25 * * *': hour 25 is out of range 0-23",
            "60 * * * *        | minute 60 is out of range 0-59",
            "-5 * * * *        | minute -5 is out of range 0-59",
            "* * 0 * *         | day-of-month 0 is out of range 1-31",
            "* * * 13 *        | month 13 is out of range 1-12",
            "* * * * 8         | day-of-week 8 is out of range 0-7",
            "60 * * * * *      | second 60 is out of range 0-59",
            "* * * FOO *       | month 'FOO' is neither a number 1-12 nor a name (JAN-DEC)",
            "* * * * MOX       | day-of-week 'MOX' is neither a number 0-7 nor a name (SUN-SAT)",
            "x * * * *         | minute 'x' is not a number 0-59",
            "*/0 * * * *       | minute step 0 in '*/0' is out of range 1-60",
            "*/61 * * * *      | minute step 61 in '*/61' is out of range 1-60",
            "*/x * * * *       | minute step 'x' in '*/x' is not a number",
            "*5 * * * *        | minute '*5' is not valid",
            "5-2 * * * *       | minute range 5-2 runs backwards",
            "* * * * FRI-MON   | day-of-week range FRI-MON runs backwards",
            "1,,2 * * * *      | minute '1,,2' has an empty list item",
            "* * * *           | 4 fields; expected 5",
            "* * * * * * *     | 7 fields: a year field (as Quartz has) is not supported",
            "@reboot           | @reboot has no fire times",
            "@often            | '@often' is not a known macro",
            "? * * * *         | '?' (Quartz's 'no specific value') is only allowed in day-of-month and day-of-week",
            "0 0 L,15 * *      | day-of-month 'L,15' is not valid: Quartz's forms are",
            "0 0 L-31 * *      | the offset 31 is out of range 1-30",
            "0 0 32W * *       | day-of-month 32 in '32W' is out of range 1-31",
            "0 0 * * FRI#6     | the ordinal after '#' must be 1-5",
            "0 0 * * MON,FRIL  | '#' and 'L' take one day, alone in the field",
            "0 0 * * L         | day-of-week 'L' alone is Quartz's Saturday",
            "0 0 ? * 2         | day-of-week 2 is a number in an expression with Quartz syntax ('?')",
            "0 0 L * 5         | write the day's name (FRI in cron's numbering)",
            "0 0 * * 5#3       | day-of-week 5 is a number in an expression with Quartz syntax ('5#3')",
            "0 0 30 2 *        | it can never fire: no day in month '2' matches day-of-month '30'",
            "0 0 31 4,6,9,11 * | it can never fire",
            "0 0 L-29 FEB *    | it can never fire",
    })
    void bad_expressions_are_refused_naming_the_field_and_the_reason(String expression, String message) {
        assertThatThrownBy(() -> Schedule.cron(expression)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message).hasMessageStartingWith("invalid cron expression '" + expression + "': ");
    }

    @Test
    void missing_input_is_refused() {
        assertThatThrownBy(() -> Schedule.cron(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cron expression must not be null");
        assertThatThrownBy(() -> Schedule.cron("  ")).hasMessage("cron expression must not be empty");
        assertThatThrownBy(() -> Schedule.cron("* * * * *", (ZoneId) null)).hasMessage("time zone must not be null");
        assertThatThrownBy(() -> Schedule.cron("* * * * *", "Europe/Berln"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("unknown time zone 'Europe/Berln'");
        assertThatThrownBy(() -> Schedule.cron("* * * * *", "+25:00"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("unknown time zone '+25:00'");
    }
}
