package dev.rowqueue.internal;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Year;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parsed cron expression: the fields as bit sets, the flags that Vixie cron derives from a field's first character,
 * and the search for the next matching local date-time. Time zones and daylight saving are
 * {@link dev.rowqueue.CronSchedule}'s concern; this class knows local date-times only.
 *
 * <p>Bits: seconds and minutes 0-59 at bits 0-59, hours 0-23, days of month 1-31 at bits 0-30, months 1-12 at bits
 * 0-11, days of week Sunday (0) to Saturday (6) at bits 0-6.
 */
public final class CronSpec {

    private static final String[] MONTH_NAMES = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
            "OCT", "NOV", "DEC"};
    private static final String[] DAY_NAMES = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final String MACRO_LIST = "@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly";
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,9}");
    /** How many years {@link #nextLocal} searches: the Gregorian calendar repeats every 400 years. */
    static final int SEARCH_YEARS = 401;

    private enum Field {
        SECOND("second", 0, 59, null),
        MINUTE("minute", 0, 59, null),
        HOUR("hour", 0, 23, null),
        DAY_OF_MONTH("day-of-month", 1, 31, null),
        MONTH("month", 1, 12, MONTH_NAMES),
        /** 0-7 as written, 7 folded onto 0 (Sunday). */
        DAY_OF_WEEK("day-of-week", 0, 7, DAY_NAMES);

        final String label;
        final int min;
        final int max;
        final String[] names;

        Field(String label, int min, int max, String[] names) {
            this.label = label;
            this.min = min;
            this.max = max;
            this.names = names;
        }

        /** The bit of a value: days of month and months from bit 0, day-of-week 7 onto 0. */
        int bit(int value) {
            if (this == DAY_OF_WEEK) {
                return value % 7;
            }
            return value - (this == DAY_OF_MONTH || this == MONTH ? 1 : 0);
        }

        int value(int bit) {
            return bit + (this == DAY_OF_MONTH || this == MONTH ? 1 : 0);
        }

        long full() {
            int n = this == DAY_OF_WEEK ? 7 : max - min + 1;
            return n == 64 ? -1L : (1L << n) - 1;
        }
    }

    /** Day-of-month forms from Quartz. */
    private enum DomKind { SET, LAST, LAST_WEEKDAY, NEAREST_WEEKDAY }

    /** Day-of-week forms from Quartz. */
    private enum DowKind { SET, NTH, LAST }

    private final long seconds;
    private final long minutes;
    private final long hours;
    private final long dom;
    private final long months;
    private final long dow;
    private final boolean minuteStar;
    private final boolean hourStar;
    private final boolean domStar;
    private final boolean dowStar;
    private final DomKind domKind;
    /** LAST: days before the last; NEAREST_WEEKDAY: the day. */
    private final int domArg;
    private final DowKind dowKind;
    /** NTH and LAST: the weekday (0 Sunday). */
    private final int dowDay;
    /** NTH: the ordinal, 1-5. */
    private final int dowNth;
    /** For each weekday of the 1st of a month: the days (bit 0 = the 1st) whose weekday is in {@link #dow}. */
    private final int[] dowByFirstDay = new int[7];

    private CronSpec(Parser p) {
        this.seconds = p.bits[0];
        this.minutes = p.bits[1];
        this.hours = p.bits[2];
        this.dom = p.bits[3];
        this.months = p.bits[4];
        this.dow = p.bits[5];
        this.minuteStar = p.star[1];
        this.hourStar = p.star[2];
        this.domStar = p.star[3];
        this.dowStar = p.star[5];
        this.domKind = p.domKind;
        this.domArg = p.domArg;
        this.dowKind = p.dowKind;
        this.dowDay = p.dowDay;
        this.dowNth = p.dowNth;
        for (int first = 0; first < 7; first++) {
            int mask = 0;
            for (int d = 0; d < 31; d++) {
                if ((dow >> ((first + d) % 7) & 1) != 0) {
                    mask |= 1 << d;
                }
            }
            dowByFirstDay[first] = mask;
        }
    }

    /**
     * Parses a cron expression: five fields (minute hour day-of-month month day-of-week), six with a leading seconds
     * field, or a macro.
     *
     * @param expression the expression
     * @return the parsed expression
     * @throws IllegalArgumentException naming the bad field and why
     */
    public static CronSpec parse(String expression) {
        if (expression == null) {
            throw new IllegalArgumentException("cron expression must not be null");
        }
        String text = expression.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("cron expression must not be empty");
        }
        Parser parser = new Parser(expression);
        if (text.startsWith("@")) {
            String macro = text.toLowerCase(Locale.ROOT);
            if (macro.equals("@reboot")) {
                throw parser.error("@reboot has no fire times (it means 'when cron starts'); a schedule fires at"
                        + " instants: enqueue the job when your application starts instead");
            }
            String expanded = MACROS.get(macro);
            if (expanded == null) {
                throw parser.error("'" + Validation.printable(text) + "' is not a known macro (" + MACRO_LIST + ")");
            }
            text = expanded;
        }
        String[] parts = BLANKS.split(text);
        if (parts.length == 7) {
            throw parser.error("7 fields: a year field (as Quartz has) is not supported; write 5 fields (minute hour"
                    + " day-of-month month day-of-week), or 6 with a seconds field first");
        }
        if (parts.length != 5 && parts.length != 6) {
            throw parser.error(parts.length + " field" + (parts.length == 1 ? "" : "s") + "; expected 5 (minute hour"
                    + " day-of-month month day-of-week) or 6 (a seconds field first)");
        }
        int offset = parts.length == 6 ? 0 : 1;
        if (offset == 1) {
            parser.bits[0] = 1L;
        }
        Field[] fields = Field.values();
        for (int i = 0; i < parts.length; i++) {
            parser.field(fields[i + offset], parts[i]);
        }
        parser.checkQuartzDays();
        CronSpec spec = new CronSpec(parser);
        spec.checkCanFire(parser, parts[parts.length - 3], parts[parts.length - 2], parts[parts.length - 1]);
        return spec;
    }

    /** Whether the minute or hour field starts with {@code *}: Vixie cron's "wildcard" jobs, which follow real time. */
    public boolean wildcard() {
        return minuteStar || hourStar;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Matching

    /**
     * The days of a month that match day-of-month and day-of-week, as bits (bit 0 = the 1st).
     *
     * @param length   the month's length
     * @param firstDay the weekday of the 1st, 0 = Sunday
     */
    int dayMask(int length, int firstDay) {
        int lengthMask = (1 << length) - 1;
        int byDom = switch (domKind) {
            case SET -> (int) dom & lengthMask;
            case LAST -> length - domArg >= 1 ? 1 << (length - domArg - 1) : 0;
            case LAST_WEEKDAY -> {
                int wd = (firstDay + length - 1) % 7;
                int day = wd == 6 ? length - 1 : wd == 0 ? length - 2 : length;
                yield 1 << (day - 1);
            }
            case NEAREST_WEEKDAY -> {
                if (domArg > length) {
                    yield 0;
                }
                int wd = (firstDay + domArg - 1) % 7;
                int day = domArg;
                if (wd == 6) {
                    day = domArg > 1 ? domArg - 1 : domArg + 2;
                } else if (wd == 0) {
                    day = domArg < length ? domArg + 1 : domArg - 2;
                }
                yield 1 << (day - 1);
            }
        };
        int byDow = switch (dowKind) {
            case SET -> dowByFirstDay[firstDay] & lengthMask;
            case NTH -> {
                int day = 1 + (dowDay - firstDay + 7) % 7 + 7 * (dowNth - 1);
                yield day <= length ? 1 << (day - 1) : 0;
            }
            case LAST -> {
                int lastWd = (firstDay + length - 1) % 7;
                yield 1 << (length - (lastWd - dowDay + 7) % 7 - 1);
            }
        };
        return domStar || dowStar ? byDom & byDow : byDom | byDow;
    }

    private int dayMaskOf(int year, int month) {
        LocalDate first = LocalDate.of(year, month, 1);
        return dayMask(first.lengthOfMonth(), first.getDayOfWeek().getValue() % 7);
    }

    /**
     * The first local date-time at or after {@code from} (whole seconds) that matches, searching
     * {@value #SEARCH_YEARS} years: enough for any expression that can fire at all.
     *
     * @param from where to start, inclusive; a fraction of a second is rounded up
     * @return the match, or {@code null} if none lies within the search (or within the years java.time supports)
     */
    public LocalDateTime nextLocal(LocalDateTime from) {
        if (from.getNano() > 0) {
            from = from.withNano(0).plusSeconds(1);
        }
        int year = from.getYear();
        int month = from.getMonthValue();
        int day = from.getDayOfMonth();
        int hour = from.getHour();
        int minute = from.getMinute();
        int second = from.getSecond();
        int lastYear = (int) Math.min(Year.MAX_VALUE, (long) year + SEARCH_YEARS);
        while (year <= lastYear) {
            int m = nextBit(months, month - 1);
            if (m < 0) {
                year++;
                month = 1;
                day = 1;
                hour = minute = second = 0;
                continue;
            }
            if (m + 1 != month) {
                month = m + 1;
                day = 1;
                hour = minute = second = 0;
            }
            int days = day > 31 ? 0 : dayMaskOf(year, month) & (-1 << (day - 1));
            if (days == 0) {
                day = 1;
                hour = minute = second = 0;
                if (++month > 12) {
                    month = 1;
                    year++;
                }
                continue;
            }
            int d = Integer.numberOfTrailingZeros(days) + 1;
            if (d != day) {
                day = d;
                hour = minute = second = 0;
            }
            int h = nextBit(hours, hour);
            if (h < 0) {
                day++;
                hour = minute = second = 0;
                continue;
            }
            if (h != hour) {
                hour = h;
                minute = second = 0;
            }
            int mi = nextBit(minutes, minute);
            if (mi < 0) {
                minute = second = 0;
                if (++hour > 23) {
                    hour = 0;
                    day++;
                }
                continue;
            }
            if (mi != minute) {
                minute = mi;
                second = 0;
            }
            int s = nextBit(seconds, second);
            if (s < 0) {
                second = 0;
                if (++minute > 59) {
                    minute = 0;
                    if (++hour > 23) {
                        hour = 0;
                        day++;
                    }
                }
                continue;
            }
            return LocalDateTime.of(year, month, day, hour, minute, s);
        }
        return null;
    }

    private static int nextBit(long bits, int from) {
        if (from > 63) {
            return -1;
        }
        long rest = bits & (-1L << from);
        return rest == 0 ? -1 : Long.numberOfTrailingZeros(rest);
    }

    private void checkCanFire(Parser parser, String domText, String monthText, String dowText) {
        for (int m = 0; m < 12; m++) {
            if ((months >> m & 1) == 0) {
                continue;
            }
            int month = m + 1;
            int shortest = month == 2 ? 28 : LocalDate.of(2001, month, 1).lengthOfMonth();
            int longest = month == 2 ? 29 : shortest;
            for (int length = shortest; length <= longest; length++) {
                for (int first = 0; first < 7; first++) {
                    if (dayMask(length, first) != 0) {
                        return; // every (length, weekday of the 1st) of a month occurs in every 400 years
                    }
                }
            }
        }
        boolean dowRestricted = dowKind != DowKind.SET || dow != Field.DAY_OF_WEEK.full();
        throw parser.error("it can never fire: no day in month '" + monthText + "' matches day-of-month '" + domText
                + "'" + (dowRestricted ? " and day-of-week '" + dowText + "'" : ""));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The canonical form

    /**
     * The canonical form: equal for expressions that fire at the same local times with the same daylight-saving
     * behaviour; it parses back to an equal expression. Seconds are left out when they are only 0; months and days
     * of week are written by name; macros are expanded.
     *
     * @param zoneHasTransitions whether the time zone has offset changes; without them the wildcard flag does not
     *                           matter and is normalized away
     * @return the canonical expression
     */
    public String canonical(boolean zoneHasTransitions) {
        List<String> out = new ArrayList<>(6);
        if (seconds != 1L) {
            out.add(print(Field.SECOND, seconds, Star.ANY));
        }
        if (!zoneHasTransitions) {
            out.add(print(Field.MINUTE, minutes, Star.ANY));
            out.add(print(Field.HOUR, hours, Star.ANY));
        } else if (!wildcard()) {
            out.add(print(Field.MINUTE, minutes, Star.NEVER));
            out.add(print(Field.HOUR, hours, Star.NEVER));
        } else if (starPreference(Field.MINUTE, minutes) >= starPreference(Field.HOUR, hours)) {
            out.add(print(Field.MINUTE, minutes, Star.ALWAYS));
            out.add(print(Field.HOUR, hours, Star.ANY));
        } else {
            out.add(print(Field.MINUTE, minutes, Star.NEVER));
            out.add(print(Field.HOUR, hours, Star.ALWAYS));
        }
        boolean domFull = domKind == DomKind.SET && dom == Field.DAY_OF_MONTH.full();
        boolean dowFull = dowKind == DowKind.SET && dow == Field.DAY_OF_WEEK.full();
        String domOut;
        String dowOut;
        if (domStar || dowStar) {
            if (domFull || dowFull) {
                domOut = domFull ? "*" : printDom(Star.ANY);
                dowOut = dowFull ? "*" : printDow(Star.ANY);
            } else if (domKind == DomKind.SET && starPreference(Field.DAY_OF_MONTH, dom)
                    >= (dowKind == DowKind.SET ? starPreference(Field.DAY_OF_WEEK, dow) : 0)) {
                domOut = printDom(Star.ALWAYS);
                dowOut = printDow(Star.NEVER);
            } else {
                domOut = printDom(Star.NEVER);
                dowOut = printDow(Star.ALWAYS);
            }
        } else if (domFull || dowFull) {
            domOut = "*";
            dowOut = "*";
        } else {
            domOut = printDom(Star.NEVER);
            dowOut = printDow(Star.NEVER);
        }
        out.add(domOut);
        out.add(print(Field.MONTH, months, Star.ANY));
        out.add(dowOut);
        return String.join(" ", out);
    }

    /** Whether a printed field may, must or must not start with {@code *}. */
    private enum Star { ANY, ALWAYS, NEVER }

    private String printDom(Star star) {
        return switch (domKind) {
            case SET -> print(Field.DAY_OF_MONTH, dom, star);
            case LAST -> domArg == 0 ? "L" : "L-" + domArg;
            case LAST_WEEKDAY -> "LW";
            case NEAREST_WEEKDAY -> domArg + "W";
        };
    }

    private String printDow(Star star) {
        return switch (dowKind) {
            case SET -> print(Field.DAY_OF_WEEK, dow, star);
            case NTH -> DAY_NAMES[dowDay] + "#" + dowNth;
            case LAST -> DAY_NAMES[dowDay] + "L";
        };
    }

    /** @return the smallest k for which the set is exactly {@code *}/k (1 for {@code *}), or -1 */
    private static int starStep(Field f, long bits) {
        for (int step = 1; step <= f.max - f.min + 1; step++) {
            if (stepBits(f, f.min, f.max, step) == bits) {
                return step;
            }
        }
        return -1;
    }

    /** Whether {@code *}/k reads better than a list: {@code *}, or three values or more. */
    private static boolean readsAsStep(long bits, int step) {
        return step == 1 || step > 0 && Long.bitCount(bits) >= 3;
    }

    /**
     * Which of two fields should carry the {@code *} that a wildcard (minute, hour) or an unrestricted day field
     * (day-of-month, day-of-week) needs: a clean {@code *}/k first, then the one with more values, then one that
     * holds the field's first value (with {@code *}/size in front); 0 if it cannot start with {@code *}.
     */
    private static int starPreference(Field f, long bits) {
        int step = starStep(f, bits);
        if (readsAsStep(bits, step)) {
            return 200;
        }
        if (step > 0) {
            return 100 + Long.bitCount(bits);
        }
        return (bits & 1) != 0 ? 1 : 0;
    }

    private static String print(Field f, long bits, Star star) {
        if (star != Star.NEVER) {
            int step = starStep(f, bits);
            if (star == Star.ALWAYS && step > 0 || readsAsStep(bits, step)) {
                return step == 1 ? "*" : "*/" + step;
            }
            if (star == Star.ALWAYS) {
                // a set that starts a '*' field always holds the field's first value: '*/size' is that value alone
                return "*/" + (f.max - f.min + 1) + "," + plain(f, bits & ~1L);
            }
        }
        return plain(f, bits);
    }

    private static String plain(Field f, long bits) {
        List<Integer> values = new ArrayList<>();
        for (int b = 0; b < 64; b++) {
            if ((bits >> b & 1) != 0) {
                values.add(f.value(b));
            }
        }
        int n = values.size();
        if (n >= 3) {
            int step = values.get(1) - values.get(0);
            boolean progression = step > 1;
            for (int i = 2; i < n && progression; i++) {
                progression = values.get(i) - values.get(i - 1) == step;
            }
            if (progression) {
                return name(f, values.get(0)) + "-" + name(f, values.get(n - 1)) + "/" + step;
            }
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; ) {
            int j = i;
            while (j + 1 < n && values.get(j + 1) == values.get(j) + 1) {
                j++;
            }
            if (b.length() > 0) {
                b.append(',');
            }
            if (j - i >= 2) {
                b.append(name(f, values.get(i))).append('-').append(name(f, values.get(j)));
                i = j + 1;
            } else {
                b.append(name(f, values.get(i)));
                i++;
            }
        }
        return b.toString();
    }

    private static String name(Field f, int value) {
        return f.names == null ? Integer.toString(value) : f.names[value - (f == Field.MONTH ? 1 : 0)];
    }

    private static long stepBits(Field f, int from, int to, int step) {
        long bits = 0;
        for (int v = from; v <= to; v += step) {
            bits |= 1L << f.bit(v);
        }
        return bits;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Parsing

    private static final class Parser {
        final String expression;
        final long[] bits = new long[6];
        final boolean[] star = new boolean[6];
        DomKind domKind = DomKind.SET;
        int domArg;
        DowKind dowKind = DowKind.SET;
        int dowDay;
        int dowNth;
        /** The first Quartz-only form seen ('?', L, W or #), for messages. */
        String quartzForm;
        /** The first day of week written as a number. */
        String numericDay;

        Parser(String expression) {
            this.expression = expression;
        }

        IllegalArgumentException error(String why) {
            return new IllegalArgumentException("invalid cron expression '" + Validation.printable(expression)
                    + "': " + why);
        }

        void field(Field f, String text) {
            int index = f.ordinal();
            star[index] = text.startsWith("*") || text.equals("?");
            if (text.equals("?")) {
                if (f != Field.DAY_OF_MONTH && f != Field.DAY_OF_WEEK) {
                    throw error("'?' (Quartz's 'no specific value') is only allowed in day-of-month and"
                            + " day-of-week, not in " + f.label);
                }
                quartzForm = "?";
                bits[index] = f.full();
                return;
            }
            String upper = text.toUpperCase(Locale.ROOT);
            if (f == Field.DAY_OF_MONTH && (upper.contains("L") || upper.contains("W"))) {
                quartzDayOfMonth(text, upper);
                return;
            }
            if (f == Field.DAY_OF_WEEK && (upper.contains("#") || upper.endsWith("L"))) {
                quartzDayOfWeek(text, upper);
                return;
            }
            long set = 0;
            for (String item : text.split(",", -1)) {
                set |= item(f, item, text);
            }
            bits[index] = set;
        }

        private long item(Field f, String item, String text) {
            if (item.isEmpty()) {
                throw error(f.label + " '" + text + "' has an empty list item");
            }
            String range = item;
            int step = 1;
            int slash = item.indexOf('/');
            if (slash >= 0) {
                range = item.substring(0, slash);
                String stepText = item.substring(slash + 1);
                int size = f.max - f.min + 1;
                if (!NUMBER.matcher(stepText).matches()) {
                    throw error(f.label + " step '" + stepText + "' in '" + item + "' is not a number");
                }
                step = Integer.parseInt(stepText);
                if (step < 1 || step > size) {
                    throw error(f.label + " step " + step + " in '" + item + "' is out of range 1-" + size);
                }
            }
            int low;
            int high;
            if (range.equals("*")) {
                low = f.min;
                high = f.max;
            } else if (range.isEmpty() || range.startsWith("*")) {
                throw error(f.label + " '" + item + "' is not valid: write '*', '*/step', a value, a range 'a-b',"
                        + " or 'a-b/step'");
            } else {
                int dash = range.indexOf('-', 1);
                if (dash < 0) {
                    low = value(f, range);
                    high = slash >= 0 ? f.max : low;
                } else {
                    low = value(f, range.substring(0, dash));
                    String end = range.substring(dash + 1);
                    high = value(f, end);
                    if (f == Field.DAY_OF_WEEK && end.equalsIgnoreCase("SUN")) {
                        high = 7; // MON-SUN: Sunday ends a range as 7
                    }
                    if (low > high) {
                        throw error(f.label + " range " + range + " runs backwards; ranges do not wrap around:"
                                + " write two (" + (f == Field.DAY_OF_WEEK ? "FRI-SAT,SUN-MON" : "22-23,0-2") + ")");
                    }
                }
            }
            return stepBits(f, low, high, step);
        }

        private int value(Field f, String text) {
            if (NUMBER.matcher(text).matches()) {
                int v = Integer.parseInt(text);
                if (v < f.min || v > f.max) {
                    throw error(f.label + " " + v + " is out of range " + f.min + "-" + f.max);
                }
                if (f == Field.DAY_OF_WEEK && numericDay == null) {
                    numericDay = text;
                }
                return v;
            }
            if (f.names != null) {
                String upper = text.toUpperCase(Locale.ROOT);
                for (int i = 0; i < f.names.length; i++) {
                    if (f.names[i].equals(upper)) {
                        return f == Field.DAY_OF_WEEK ? i : i + 1;
                    }
                }
                throw error(f.label + " '" + Validation.printable(text) + "' is neither a number " + f.min + "-"
                        + f.max + " nor a name (" + f.names[0] + "-" + f.names[f.names.length - 1] + ")");
            }
            if (text.startsWith("-")) {
                throw error(f.label + " " + Validation.printable(text) + " is out of range " + f.min + "-" + f.max);
            }
            throw error(f.label + " '" + Validation.printable(text) + "' is not a number " + f.min + "-" + f.max);
        }

        private void quartzDayOfMonth(String text, String upper) {
            quartzForm = text;
            int index = Field.DAY_OF_MONTH.ordinal();
            if (upper.equals("L")) {
                domKind = DomKind.LAST;
            } else if (upper.equals("LW")) {
                domKind = DomKind.LAST_WEEKDAY;
            } else if (upper.startsWith("L-") && NUMBER.matcher(upper.substring(2)).matches()) {
                domKind = DomKind.LAST;
                domArg = Integer.parseInt(upper.substring(2));
                if (domArg < 1 || domArg > 30) {
                    throw error("day-of-month '" + text + "': the offset " + domArg + " is out of range 1-30");
                }
            } else if (upper.endsWith("W") && NUMBER.matcher(upper.substring(0, upper.length() - 1)).matches()) {
                domKind = DomKind.NEAREST_WEEKDAY;
                domArg = Integer.parseInt(upper.substring(0, upper.length() - 1));
                if (domArg < 1 || domArg > 31) {
                    throw error("day-of-month " + domArg + " in '" + text + "' is out of range 1-31");
                }
            } else {
                throw error("day-of-month '" + Validation.printable(text) + "' is not valid: Quartz's forms are L"
                        + " (the last day), L-n (n days before it), LW (the last weekday) and nW (the weekday"
                        + " nearest the n-th), each alone in the field");
            }
            bits[index] = 0;
        }

        private void quartzDayOfWeek(String text, String upper) {
            quartzForm = text;
            int hash = upper.indexOf('#');
            String day;
            if (upper.equals("L")) {
                throw error("day-of-week 'L' alone is Quartz's Saturday; write SAT, or FRIL for the last Friday of"
                        + " the month");
            }
            if (hash >= 0) {
                day = upper.substring(0, hash);
                String nth = upper.substring(hash + 1);
                if (!(nth.length() == 1 && nth.charAt(0) >= '1' && nth.charAt(0) <= '5')) {
                    throw error("day-of-week '" + Validation.printable(text) + "': the ordinal after '#' must be 1-5"
                            + " (FRI#3: the third Friday of the month)");
                }
                dowKind = DowKind.NTH;
                dowNth = Integer.parseInt(nth);
            } else {
                day = upper.substring(0, upper.length() - 1);
                dowKind = DowKind.LAST;
            }
            if (day.contains(",") || day.contains("-") || day.contains("/") || day.contains("*")) {
                throw error("day-of-week '" + Validation.printable(text) + "': '#' and 'L' take one day, alone in"
                        + " the field (FRI#3, FRIL)");
            }
            dowDay = value(Field.DAY_OF_WEEK, day) % 7;
            bits[Field.DAY_OF_WEEK.ordinal()] = 0;
        }

        /** Quartz numbers days of week from 1 = Sunday, cron from 0 = Sunday: with Quartz syntax, numbers mislead. */
        void checkQuartzDays() {
            if (quartzForm != null && numericDay != null) {
                throw error("day-of-week " + numericDay + " is a number in an expression with Quartz syntax ('"
                        + quartzForm + "'), and Quartz numbers days from 1 = Sunday where cron numbers them from 0 ="
                        + " Sunday; write the day's name (" + DAY_NAMES[Integer.parseInt(numericDay) % 7] + " in"
                        + " cron's numbering)");
            }
        }
    }
}
