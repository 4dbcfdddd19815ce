package dev.rowqueue.console;

import dev.rowqueue.QueueActivity;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * A work queue's last hour as bar charts with labelled axes (inline SVG: numbers and classes only, colours from the
 * stylesheet), and the same figures in a table for readers who do not see the charts.
 */
final class Charts {
    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
    private static final int WIDTH = 360;
    private static final int HEIGHT = 140;
    /** Room for the y axis' labels on the left and the x axis' labels below. */
    private static final int LEFT = 52;
    private static final int BOTTOM = 22;
    private static final int TOP = 8;
    private static final int RIGHT = 8;

    private Charts() {
    }

    /** One chart: a title, its unit, the value of each minute ({@code -1}: no value that minute). */
    private record Series(String id, String title, String cls, IntFunction<Long> value, boolean millis) {
    }

    /**
     * The "last hour" section: enqueued, finished and failed per minute, and the mean wait from enqueue to start, then
     * a table of every minute's figures.
     */
    static void lastHour(Html c, QueueActivity a) {
        List<Series> all = List.of(
                new Series("enqueued", "Enqueued per minute", "bar-enqueued", i -> a.enqueued().get(i), false),
                new Series("finished", "Finished per minute", "bar-finished", i -> a.finished().get(i), false),
                new Series("failed", "Failed attempts per minute", "bar-failed", i -> a.failed().get(i), false),
                new Series("wait", "Mean wait from enqueue to start", "bar-wait", a::meanWaitMillis, true));
        int n = a.enqueued().size();
        Instant last = a.start().plus(QueueActivity.MINUTE.multipliedBy(Math.max(0, n - 1)));
        c.open("section", "class", "activity", "aria-labelledby", "last-hour");
        c.el("h2", "Last hour", "id", "last-hour");
        c.el("p", "Per minute, " + MINUTE.format(a.start()) + " to " + MINUTE.format(last) + " UTC, as every process"
                + " that records activity counted it (other processes' current minute arrives within a minute)."
                + " The wait is of first attempts, from enqueue to claim; a delayed job's includes its delay.", "class",
                "sub");
        c.open("div", "class", "charts");
        for (Series s : all) {
            chart(c, a, s, n);
        }
        c.close("div");
        table(c, a, n);
        c.close("section");
    }

    private static void chart(Html c, QueueActivity a, Series s, int n) {
        long max = 0;
        long total = 0;
        int minutes = 0;
        for (int i = 0; i < n; i++) {
            long v = s.value().apply(i);
            if (v >= 0) {
                max = Math.max(max, v);
                total += v;
                minutes++;
            }
        }
        long top = niceCeiling(max);
        String summary = s.millis()
                ? (minutes == 0 ? "no job started" : "longest mean " + waitText(max))
                : Pages.grouped(total) + " in all, at most " + Pages.grouped(max) + " in a minute";
        c.open("figure", "class", "chart", "id", "chart-" + s.id(), "data-max", String.valueOf(max),
                "data-total", String.valueOf(total));
        c.open("figcaption").el("strong", s.title()).text(" · " + summary).close("figcaption");
        c.open("svg", "viewBox", "0 0 " + WIDTH + " " + HEIGHT, "width", String.valueOf(WIDTH), "height",
                String.valueOf(HEIGHT), "role", "img", "aria-label", s.title() + " over the last " + n + " minutes: "
                        + summary + "; the table below gives every minute");
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        int baseY = TOP + plotH;
        // y axis: 0, half and the top, with grid lines
        for (long tick : new long[] {0, top / 2, top}) {
            double y = baseY - (double) tick * plotH / top;
            String yy = fmt(y);
            c.open("line", "class", "grid-line", "x1", String.valueOf(LEFT), "x2", String.valueOf(WIDTH - RIGHT),
                    "y1", yy, "y2", yy).close("line");
            c.el("text", s.millis() ? waitText(tick) : Pages.grouped(tick), "class", "tick y-tick", "x",
                    String.valueOf(LEFT - 4), "y", fmt(y + 4), "text-anchor", "end");
        }
        c.open("line", "class", "axis", "x1", String.valueOf(LEFT), "x2", String.valueOf(LEFT), "y1",
                String.valueOf(TOP), "y2", String.valueOf(baseY)).close("line");
        c.open("line", "class", "axis", "x1", String.valueOf(LEFT), "x2", String.valueOf(WIDTH - RIGHT), "y1",
                String.valueOf(baseY), "y2", String.valueOf(baseY)).close("line");
        // x axis: a label every quarter hour, in UTC
        double slot = (double) plotW / Math.max(1, n);
        for (int i = 0; i < n; i += 15) {
            c.el("text", MINUTE.format(a.start().plus(QueueActivity.MINUTE.multipliedBy(i))), "class", "tick x-tick",
                    "x", fmt(LEFT + i * slot), "y", String.valueOf(HEIGHT - 6), "text-anchor", "start");
        }
        c.el("text", "UTC", "class", "tick x-tick", "x", String.valueOf(WIDTH - RIGHT), "y",
                String.valueOf(HEIGHT - 6), "text-anchor", "end");
        for (int i = 0; i < n; i++) {
            long v = s.value().apply(i);
            if (v <= 0) {
                continue;
            }
            double h = Math.max(1, (double) v * plotH / top);
            Instant at = a.start().plus(QueueActivity.MINUTE.multipliedBy(i));
            c.open("rect", "class", s.cls(), "x", fmt(LEFT + i * slot + 0.5), "y", fmt(baseY - h), "width",
                    fmt(Math.max(1, slot - 1)), "height", fmt(h), "data-minute", MINUTE.format(at),
                    "data-value", String.valueOf(v));
            c.el("title", MINUTE.format(at) + " UTC: " + (s.millis() ? waitText(v) : Pages.grouped(v)));
            c.close("rect");
        }
        c.close("svg").close("figure");
    }

    /** Every minute with something in it, newest first; quiet minutes are summed up in one line. */
    private static void table(Html c, QueueActivity a, int n) {
        List<Integer> rows = new ArrayList<>();
        for (int i = n - 1; i >= 0; i--) {
            if (a.enqueued().get(i) + a.finished().get(i) + a.failed().get(i) + a.started().get(i) > 0) {
                rows.add(i);
            }
        }
        c.open("details", "class", "figures", "open", "");
        c.el("summary", "Figures per minute (" + rows.size() + " of " + n + " minutes had activity)");
        if (rows.isEmpty()) {
            c.el("p", "Nothing was enqueued, started, finished or failed in the last hour.", "class", "empty");
            c.close("details");
            return;
        }
        c.open("table", "class", "grid narrow activity-figures").open("thead").open("tr").el("th", "Minute (UTC)");
        for (String h : List.of("Enqueued", "Finished", "Failed", "Started", "Mean wait", "Longest wait")) {
            c.el("th", h, "class", "num");
        }
        c.close("tr").close("thead").open("tbody");
        for (int i : rows) {
            Instant at = a.start().plus(QueueActivity.MINUTE.multipliedBy(i));
            c.open("tr", "data-minute", MINUTE.format(at)).el("td", MINUTE.format(at));
            for (long v : new long[] {a.enqueued().get(i), a.finished().get(i), a.failed().get(i),
                    a.started().get(i)}) {
                c.el("td", Pages.grouped(v), "class", "num" + (v == 0 ? " muted" : ""));
            }
            long mean = a.meanWaitMillis(i);
            c.el("td", mean < 0 ? "—" : waitText(mean), "class", "num" + (mean < 0 ? " muted" : ""));
            c.el("td", mean < 0 ? "—" : waitText(a.waitMaxMillis().get(i)), "class", "num" + (mean < 0 ? " muted" : ""));
            c.close("tr");
        }
        c.close("tbody").close("table").close("details");
    }

    /** @return the smallest of 1, 2, 5 times a power of ten that is at least {@code max} (at least 1) */
    static long niceCeiling(long max) {
        long step = 1;
        while (true) {
            for (long m : new long[] {1, 2, 5}) {
                if (m * step >= max) {
                    return Math.max(1, m * step);
                }
            }
            if (step > Long.MAX_VALUE / 100) {
                return max;
            }
            step *= 10;
        }
    }

    /** @return a wait as a person reads it: {@code 850 ms}, {@code 3.2 s}, {@code 4.5 min} */
    static String waitText(long ms) {
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        if (ms < 3_600_000) {
            return String.format(Locale.ROOT, "%.1f min", ms / 60_000.0);
        }
        return String.format(Locale.ROOT, "%.1f h", ms / 3_600_000.0);
    }

    private static String fmt(double v) {
        return String.valueOf(Math.round(v * 10) / 10.0);
    }
}
