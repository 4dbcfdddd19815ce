package dev.rowqueue;

import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronExpression;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.Temporal;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Our cron against Spring Framework's {@link CronExpression} (the reference: well kept, and the cron of Spring's
 * {@code @Scheduled} and of db-scheduler), on random expressions generated from the grammar.
 *
 * <p>Where the two define things differently, the expression is mapped to Spring's dialect, not left out:
 * <ul>
 *   <li>Spring always has a seconds field: five-field expressions get {@code 0} in front.</li>
 *   <li>Spring's day-of-month and day-of-week must both match. When both of ours are restricted (Vixie's rule:
 *       either matches), our next time is the earlier of Spring's for "day-of-month only" and "day-of-week
 *       only".</li>
 *   <li>Spring's {@code *}{@code /k} in day-of-week counts from Monday over 1-7, Vixie's from Sunday over 0-7: it is
 *       handed to Spring as the list of days it means to us. Spring reads a range or step starting at 7 or SUN
 *       ({@code 7-7}, {@code SUN/2}) as starting at 0 and 7 respectively, the other way round from Vixie: not
 *       generated.</li>
 *   <li>Spring's {@code nW} may leave the month, its {@code FRI#5} and {@code L-n} run into neighbouring months:
 *       generated only where Quartz's meaning is Spring's ({@code nW} and {@code L-n} up to 27, {@code #1-#4});
 *       the month-end cases are tested by hand in {@link CronScheduleTest}.</li>
 *   <li>Daylight saving: Spring moves skipped times by the gap and fires repeated ones as its arithmetic falls.
 *       Instants are compared in fixed offsets everywhere, and in zones with transitions only where no transition
 *       lies between the start and the results; {@link #daylight_saving_matches_a_brute_force_walk_of_the_clock}
 *       checks our rule near transitions against a minute-by-minute walk that asks Spring which local times
 *       match.</li>
 * </ul>
 * The seed is printed with every failure; rerun one with {@code -Drowqueue.cron.seed=<seed>}, or try new ones with
 * {@code -Drowqueue.cron.seed=random}.
 */
class CronDifferentialTest {

    static final int EXPRESSIONS = 2000;
    /** Fixed, so that every build checks the same cases; {@code -Drowqueue.cron.seed=random} draws a new seed. */
    static final long SEED = seed(System.getProperty("rowqueue.cron.seed", "20261125"));
    static final List<ZoneId> FIXED_ZONES = List.of(ZoneOffset.UTC, ZoneOffset.ofHoursMinutes(5, 30),
            ZoneOffset.ofHours(-9), ZoneOffset.ofHours(14), ZoneOffset.ofHoursMinutes(-3, -30));
    static final List<ZoneId> DST_ZONES = List.of("Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
            "America/Santiago", "Europe/London", "Australia/Sydney", "America/Havana", "Pacific/Chatham",
            "Asia/Tehran", "America/St_Johns").stream().map(ZoneId::of).toList();

    /** A generated expression: our text, and Spring's one or two texts (the earlier of two is ours). */
    record Case(String ours, List<String> spring, boolean sixFields) {
    }

    @Test
    void next_fire_times_match_springs_on_random_expressions_and_instants() {
        Random random = new Random(SEED);
        int localCompared = 0;
        int zonedCompared = 0;
        int zonedSkipped = 0;
        int referenceGaveUp = 0;
        int neverFire = 0;
        for (int i = 0; i < EXPRESSIONS; i++) {
            Case c = generate(random, random.nextInt(8) == 0);
            String context = "seed " + SEED + ", expression #" + i + " '" + c.ours() + "' (Spring: " + c.spring() + ")";
            List<CronExpression> reference = c.spring().stream().map(CronExpression::parse).toList();
            CronSchedule utc;
            try {
                utc = Schedule.cron(c.ours());
            } catch (IllegalArgumentException e) {
                // refused as never firing: Spring finds nothing either
                assertThat(e.getMessage()).as(context).contains("it can never fire");
                for (int k = 0; k < 3; k++) {
                    assertThat(earliest(reference, randomLocal(random))).as(context).isNull();
                }
                neverFire++;
                continue;
            }
            // local date-times: a chain of three fire times from a random start
            LocalDateTime from = randomLocal(random);
            for (int k = 0; k < 3; k++) {
                LocalDateTime expected = earliest(reference, from);
                if (expected == null) {
                    referenceGaveUp++;
                    break;
                }
                Instant actual = utc.next(from.toInstant(ZoneOffset.UTC));
                assertThat(actual).as(context + ", after " + from).isEqualTo(expected.toInstant(ZoneOffset.UTC));
                localCompared++;
                from = expected;
            }
            // instants in a fixed offset, and in a zone with transitions where none lies between start and result
            for (ZoneId zone : List.of(FIXED_ZONES.get(random.nextInt(FIXED_ZONES.size())),
                    DST_ZONES.get(random.nextInt(DST_ZONES.size())))) {
                Instant after = randomLocal(random).toInstant(ZoneOffset.UTC);
                ZonedDateTime expected = earliest(reference, after.atZone(zone));
                if (expected == null) {
                    referenceGaveUp++;
                    continue;
                }
                Instant actual = Schedule.cron(c.ours(), zone).next(after);
                ZoneRules rules = zone.getRules();
                ZoneOffsetTransition before = rules.previousTransition(after);
                ZoneOffsetTransition next = rules.nextTransition(after.minusSeconds(86_400));
                Instant last = actual.isAfter(expected.toInstant()) ? actual : expected.toInstant();
                if (next != null && !next.getInstant().isAfter(last)
                        || before != null && before.getInstant().isAfter(after.minusSeconds(86_400))) {
                    zonedSkipped++;
                    continue;
                }
                assertThat(actual).as(context + " in " + zone + ", after " + after).isEqualTo(expected.toInstant());
                zonedCompared++;
            }
        }
        System.out.printf("cron differential (seed %d): %d expressions, %d local and %d zoned fire times compared,"
                        + " %d zoned left out near a transition, %d where Spring gave up, %d refused as never firing"
                        + " (Spring finds no time for them either)%n", SEED, EXPRESSIONS, localCompared, zonedCompared,
                zonedSkipped, referenceGaveUp, neverFire);
        assertThat(localCompared).as("seed " + SEED).isGreaterThan(EXPRESSIONS * 2);
        assertThat(zonedCompared).as("seed " + SEED).isGreaterThan(EXPRESSIONS);
        assertThat(referenceGaveUp).as("seed " + SEED).isLessThan(EXPRESSIONS / 20);
    }

    @Test
    void the_canonical_form_parses_back_to_an_equal_schedule_that_fires_alike() {
        Random random = new Random(SEED + 1);
        for (int i = 0; i < EXPRESSIONS; i++) {
            Case c = generate(random, random.nextInt(8) == 0);
            ZoneId zone = DST_ZONES.get(random.nextInt(DST_ZONES.size()));
            CronSchedule original;
            try {
                original = Schedule.cron(c.ours(), zone);
            } catch (IllegalArgumentException neverFires) {
                continue;
            }
            String context = "seed " + (SEED + 1) + ", expression #" + i + " '" + c.ours() + "' -> '"
                    + original.expression() + "' in " + zone;
            CronSchedule again = (CronSchedule) Schedule.parse(original.toString());
            assertThat(again).as(context).isEqualTo(original).hasSameHashCodeAs(original);
            assertThat(again.expression()).as(context).isEqualTo(original.expression());
            Instant after = randomLocal(random).toInstant(ZoneOffset.UTC);
            assertThat(again.next(after, 5)).as(context).isEqualTo(original.next(after, 5));
            // across a transition too, where the wildcard flag matters
            ZoneOffsetTransition t = zone.getRules().nextTransition(after);
            if (t != null) {
                Instant near = t.getInstant().minusSeconds(3 * 3600);
                assertThat(again.next(near, 5)).as(context + " near " + t).isEqualTo(original.next(near, 5));
            }
        }
    }

    /**
     * Near transitions, our fire times must be those of the documented rule, computed by walking the clock minute by
     * minute: a wildcard schedule fires at each minute whose local time matches; a fixed-time one only at a local
     * time's first occurrence, plus once at the end of a gap that skipped a match. Whether a local time matches is
     * Spring's answer.
     */
    @Test
    void daylight_saving_matches_a_brute_force_walk_of_the_clock() {
        Random random = new Random(SEED + 2);
        int fires = 0;
        int cases = 400;
        for (int i = 0; i < cases; i++) {
            ZoneId zone = DST_ZONES.get(random.nextInt(DST_ZONES.size()));
            ZoneRules rules = zone.getRules();
            ZoneOffsetTransition t = rules.nextTransition(LocalDateTime.of(2000 + random.nextInt(40),
                    1 + random.nextInt(12), 1, 0, 0).toInstant(ZoneOffset.UTC));
            if (t == null) {
                i--; // a zone that gave up daylight saving (Tehran since 2022)
                continue;
            }
            Case c = generateNearTransition(random, t.getDateTimeBefore(), t.getDateTimeAfter());
            String context = "seed " + (SEED + 2) + ", case #" + i + " '" + c.ours() + "' in " + zone + " around " + t;
            List<CronExpression> reference = c.spring().stream().map(CronExpression::parse).toList();
            CronSchedule schedule = Schedule.cron(c.ours(), zone);
            boolean wildcard = c.ours().split(" ")[0].startsWith("*") || c.ours().split(" ")[1].startsWith("*");
            Instant start = t.getInstant().minusSeconds(4 * 3600);
            Instant end = t.getInstant().plusSeconds(4 * 3600);
            TreeSet<Instant> expected = new TreeSet<>();
            for (Instant m = start.plusSeconds(60); !m.isAfter(end); m = m.plusSeconds(60)) {
                LocalDateTime local = LocalDateTime.ofInstant(m, zone);
                if (matches(reference, local)
                        && (wildcard || rules.getValidOffsets(local).get(0).equals(rules.getOffset(m)))) {
                    expected.add(m);
                }
            }
            for (ZoneOffsetTransition g = rules.nextTransition(start); g != null && !g.getInstant().isAfter(end);
                 g = rules.nextTransition(g.getInstant())) {
                if (g.isGap() && !wildcard) {
                    for (LocalDateTime l = g.getDateTimeBefore(); l.isBefore(g.getDateTimeAfter()); l = l.plusMinutes(1)) {
                        if (matches(reference, l)) {
                            expected.add(g.getInstant());
                            break;
                        }
                    }
                }
            }
            List<Instant> actual = new ArrayList<>();
            for (Instant f = schedule.next(start); !f.isAfter(end); f = schedule.next(f)) {
                actual.add(f);
            }
            assertThat(actual).as(context).containsExactlyElementsOf(expected);
            fires += actual.size();
        }
        System.out.printf("cron daylight saving (seed %d): %d cases around transitions, %d fire times checked%n",
                SEED + 2, cases, fires);
        assertThat(fires).as("seed " + (SEED + 2)).isGreaterThan(cases);
    }

    // ---------------------------------------------------------------------------------------------------------------

    static long seed(String property) {
        return property.equals("random") ? System.nanoTime() : Long.parseLong(property);
    }

    static boolean matches(List<CronExpression> reference, LocalDateTime local) {
        return local.equals(earliest(reference, local.minusSeconds(1)));
    }

    /** The reference's next time: the earlier of two for Vixie's "either day field" rule. */
    static <T extends Temporal & Comparable<? super T>> T earliest(List<CronExpression> reference, T after) {
        T best = null;
        for (CronExpression e : reference) {
            T n = e.next(after);
            if (n != null && (best == null || n.compareTo(best) < 0)) {
                best = n;
            }
        }
        return best;
    }

    static LocalDateTime randomLocal(Random r) {
        return LocalDateTime.of(1971 + r.nextInt(130), 1 + r.nextInt(12), 1 + r.nextInt(28), r.nextInt(24),
                r.nextInt(60), r.nextInt(60));
    }

    static final String[] MONTHS = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
    static final List<String> MACROS = List.of("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
            "@hourly");

    /** An expression from the grammar; with {@code quartz}, a day field takes one of Quartz's forms. */
    static Case generate(Random r, boolean quartz) {
        if (r.nextInt(40) == 0) {
            String macro = MACROS.get(r.nextInt(MACROS.size()));
            String text = r.nextBoolean() ? macro : macro.toUpperCase(Locale.ROOT);
            return new Case(text, List.of(macro), false);
        }
        boolean six = r.nextInt(3) == 0;
        String seconds = six ? field(r, 0, 59, null, 2) : "0";
        String minutes = field(r, 0, 59, null, 3);
        String hours = field(r, 0, 23, null, 3);
        String months = field(r, 1, 12, MONTHS, 1);
        String dom;
        String dow;
        if (quartz) {
            boolean inDom = r.nextBoolean();
            dom = inDom ? quartzDom(r) : r.nextInt(3) == 0 ? "?" : field(r, 1, 31, null, 2);
            dow = inDom ? (r.nextInt(3) == 0 ? "?" : namedDays(r)) : quartzDow(r);
        } else {
            dom = field(r, 1, 31, null, 1);
            dow = dowField(r);
        }
        String ours = (six ? seconds + " " : "") + minutes + " " + hours + " " + dom + " " + months + " " + dow;
        String head = seconds + " " + minutes + " " + hours + " ";
        String springDow = springDow(dow);
        boolean domStar = dom.startsWith("*") || dom.equals("?");
        boolean dowStar = dow.startsWith("*") || dow.equals("?");
        List<String> spring = domStar || dowStar
                ? List.of(head + dom + " " + months + " " + springDow)
                : List.of(head + dom + " " + months + " *", head + "* " + months + " " + springDow);
        return new Case(ours, spring.stream().map(s -> s.toUpperCase(Locale.ROOT)).toList(), six);
    }

    /**
     * A five-field expression that fires near a transition: hours around its local times, any day (or a day
     * field that matches the transition's day, for either day rule).
     */
    static Case generateNearTransition(Random r, LocalDateTime before, LocalDateTime after) {
        int[] hoursNear = {before.getHour(), after.getHour(), (before.getHour() + 23) % 24, (after.getHour() + 1) % 24};
        String minutes = switch (r.nextInt(5)) {
            case 0 -> "*/" + (1 + r.nextInt(30));
            case 1 -> Integer.toString(r.nextInt(60));
            case 2 -> r.nextInt(30) + "-" + (30 + r.nextInt(30)) + "/" + (1 + r.nextInt(20));
            case 3 -> r.nextInt(60) + "," + r.nextInt(60);
            default -> "*";
        };
        String hours = switch (r.nextInt(5)) {
            case 0 -> "*";
            case 1 -> "*/" + (1 + r.nextInt(4));
            case 2 -> Integer.toString(hoursNear[r.nextInt(4)]);
            case 3 -> Math.min(hoursNear[0], hoursNear[1]) + "-" + Math.max(hoursNear[2], hoursNear[3]);
            default -> hoursNear[r.nextInt(4)] + "," + hoursNear[r.nextInt(4)];
        };
        String days = switch (r.nextInt(4)) {
            case 0 -> before.getDayOfMonth() + " * " + DAYS[(before.getDayOfWeek().getValue() + 1) % 7];
            case 1 -> "*/2 * " + DAYS[before.getDayOfWeek().getValue() % 7];
            default -> "* * *";
        };
        String ours = minutes + " " + hours + " " + days;
        String[] d = days.split(" ");
        String head = "0 " + minutes + " " + hours + " ";
        List<String> spring = d[0].startsWith("*") || d[2].startsWith("*")
                ? List.of(head + days)
                : List.of(head + d[0] + " * *", head + "* * " + d[2]);
        return new Case(ours, spring, false);
    }

    /** A field of up to {@code maxItems} items: *, *&#47;k, a, a-b, a-b/k, a/k; names where the field has them. */
    static String field(Random r, int min, int max, String[] names, int maxItems) {
        int kind = r.nextInt(10);
        if (kind < 2) {
            return "*";
        }
        if (kind < 4) {
            return "*/" + (1 + r.nextInt(max - min + 1));
        }
        int items = 1 + r.nextInt(maxItems);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            int a = min + r.nextInt(max - min + 1);
            int b = a + r.nextInt(max - a + 1);
            int step = 1 + r.nextInt(Math.max(1, (max - min + 1) / 2));
            out.add(switch (r.nextInt(4)) {
                case 0 -> value(r, a, names, min);
                case 1 -> value(r, a, names, min) + "-" + value(r, b, names, min);
                case 2 -> value(r, a, names, min) + "-" + value(r, b, names, min) + "/" + step;
                default -> value(r, a, names, min) + "/" + step;
            });
        }
        return String.join(",", out);
    }

    static String value(Random r, int v, String[] names, int min) {
        if (names == null || r.nextBoolean()) {
            return Integer.toString(v);
        }
        String name = names[v - min];
        return switch (r.nextInt(3)) {
            case 0 -> name;
            case 1 -> name.toLowerCase(Locale.ROOT);
            default -> name.charAt(0) + name.substring(1).toLowerCase(Locale.ROOT);
        };
    }

    /** Day-of-week, 0-7, with names; no range starts at 7 (Spring reads 7-x as 0-x). */
    static String dowField(Random r) {
        String f;
        do {
            f = field(r, 0, 7, null, 2);
        } while (f.matches("(.*,)?7[-/].*"));
        if (r.nextBoolean()) {
            StringBuilder b = new StringBuilder();
            for (char ch : f.toCharArray()) {
                b.append(Character.isDigit(ch) && r.nextBoolean() ? DAYS[(ch - '0') % 7].toLowerCase(Locale.ROOT) : ch);
            }
            // a name replaces one digit only: keep the text when a step's or a number's digits were split
            String named = b.toString();
            // and Spring reads SUN as 7, so SUN/k is Sunday alone there, where it is 0/k (0 to 7) for us and Vixie
            if (!named.matches(".*[a-z][0-9].*|.*[0-9][a-z].*|.*/[a-z].*|.*sun/.*")) {
                f = named;
            }
        }
        return f;
    }

    static String namedDays(Random r) {
        int a = 1 + r.nextInt(5);
        return switch (r.nextInt(3)) {
            case 0 -> DAYS[a];
            case 1 -> DAYS[a] + "-" + DAYS[a + 1 + r.nextInt(6 - a)];
            default -> DAYS[a] + "," + DAYS[(a + 2) % 7];
        };
    }

    static String quartzDom(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> "L";
            case 1 -> "L-" + (1 + r.nextInt(27));
            case 2 -> "LW";
            default -> (1 + r.nextInt(27)) + "W";
        };
    }

    static String quartzDow(Random r) {
        String day = DAYS[r.nextInt(7)];
        return r.nextBoolean() ? day + "L" : day + "#" + (1 + r.nextInt(4));
    }

    /** Our day-of-week as Spring reads it: a '*' step written out as the days it means to Vixie cron. */
    static String springDow(String dow) {
        List<String> items = new ArrayList<>();
        for (String item : dow.split(",")) {
            if (item.startsWith("*/")) {
                int step = Integer.parseInt(item.substring(2));
                for (int d = 0; d <= 7; d += step) {
                    items.add(Integer.toString(d));
                }
            } else {
                items.add(item);
            }
        }
        return String.join(",", items);
    }
}
