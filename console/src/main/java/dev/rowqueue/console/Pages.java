package dev.rowqueue.console;

import dev.rowqueue.CronSchedule;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobState;
import dev.rowqueue.MissedSlots;
import dev.rowqueue.NodeInfo;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RateWindow;
import dev.rowqueue.RingEntry;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.console.Console.View;
import dev.rowqueue.console.Routes.Notice;
import dev.rowqueue.console.Routes.ScheduleNotice;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * The console's pages, rendered on the server. Every piece of data goes through {@link Html#text} or an attribute
 * value of {@link Html#open}; no page has inline script or style (the Content-Security-Policy forbids both), so the
 * only script is {@code assets/console.js}, which refreshes pages and does nothing else.
 */
final class Pages {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);
    /** Payloads longer than this are folded into a {@code <details>}. */
    static final int PREVIEW = 100;
    /** The most characters of one payload a page shows; the JSON API gives the whole of it. */
    static final int SHOWN = 20_000;

    private Pages() {
    }

    // ---- the frame

    private static Html head(Html h, String mount, String title) {
        return h.raw("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .open("title").text(title).text(" · rowqueue console").close("title")
                .open("link", "rel", "stylesheet", "href", mount + "/assets/console.css")
                .open("link", "rel", "icon", "type", "image/svg+xml", "href", mount + "/assets/icon.svg")
                .open("script", "src", mount + "/assets/console.js", "defer", "").close("script")
                .raw("</head>");
    }

    /**
     * A page of the console for a signed-in operator.
     *
     * @param refresh whether the page refreshes itself while visible
     */
    private static ConsoleResponse page(View v, int status, String title, boolean refresh, Html crumbs, Html content) {
        Console c = v.console();
        String mount = v.mount();
        Html h = head(new Html(), mount, title);
        h.open("body", "data-refresh", refresh ? String.valueOf(c.refresh().toSeconds()) : null);
        h.open("header", "class", "bar").open("div", "class", "wrap");
        h.open("a", "class", "brand", "href", mount + "/").raw("<span class=\"logo\" aria-hidden=\"true\"></span>")
                .raw("rowqueue <b>console</b>").close("a");
        h.open("nav", "class", "sections", "aria-label", "sections").el("a", "Queues", "href", mount + "/")
                .el("a", "Schedules", "href", mount + "/schedules").close("nav");
        DatabaseInfo db = c.data().database();
        h.el("span", db.productName() + " " + db.productVersion() + " · dialect " + db.dialect(), "class", "db");
        if (c.readOnly()) {
            h.el("span", "read-only", "class", "badge ro", "title", "This console changes nothing.");
        }
        h.open("span", "class", "who").text(v.operator().id());
        if (c.tokenAuth() != null && v.operator().ambient()) {
            postForm(h, v, mount + "/sign-out", "link", "Sign out");
        }
        h.close("span").close("div").close("header");
        h.open("main", "class", "wrap");
        if (crumbs != null) {
            h.open("nav", "class", "crumbs", "aria-label", "breadcrumbs").open("a", "href", mount + "/").text("Queues")
                    .close("a").raw(crumbs.toString()).close("nav");
        }
        h.raw(content.toString()).close("main");
        long seconds = c.refresh().toSeconds();
        h.open("footer", "class", "wrap").text("Shown at " + TIME.format(Instant.now()) + " · figures read at most "
                + seconds + " s before");
        if (refresh) {
            h.open("span", "class", "refresh-note", "hidden", "")
                    .text(" · refreshes every " + seconds + " s while this tab is visible").close("span");
        }
        h.close("footer").raw("</body></html>\n");
        return ConsoleResponse.html(status, h.toString());
    }

    /** A page without the operator's frame: for sign-in and errors before a credential. */
    static ConsoleResponse plain(ConsoleRequest r, int status, String title, String message) {
        Html h = head(new Html(), r.mount(), title).raw("<body class=\"plain\"><main class=\"panel\">");
        h.open("a", "class", "brand", "href", r.mount() + "/").raw("<span class=\"logo\" aria-hidden=\"true\"></span>")
                .raw("rowqueue <b>console</b>").close("a");
        h.el("h1", title).el("p", message);
        h.raw("</main></body></html>\n");
        return ConsoleResponse.html(status, h.toString());
    }

    /** Reloads the same URL from this page itself, so that a SameSite=Strict cookie goes along. */
    static ConsoleResponse bounce(ConsoleRequest r) {
        Html h = head(new Html(), r.mount(), "Opening").raw("<meta http-equiv=\"refresh\" content=\"0\">");
        h.raw("<body class=\"plain\"><main class=\"panel\"><p>Opening the console…</p></main></body></html>\n");
        return ConsoleResponse.html(200, h.toString());
    }

    static ConsoleResponse signIn(ConsoleRequest r, int status, String next, String error) {
        Html h = head(new Html(), r.mount(), "Sign in").raw("<body class=\"plain\"><main class=\"panel\">");
        h.open("a", "class", "brand", "href", r.mount() + "/").raw("<span class=\"logo\" aria-hidden=\"true\"></span>")
                .raw("rowqueue <b>console</b>").close("a");
        h.el("h1", "Sign in");
        h.el("p", "Give the console's token: the one printed when it started, or the value of ROWQUEUE_CONSOLE_TOKEN.");
        if (error != null) {
            h.el("p", error, "class", "notice warn", "role", "alert");
        }
        h.open("form", "method", "post", "action", r.mount() + "/sign-in", "class", "stack");
        h.hidden("next", next);
        h.el("label", "Token", "for", "token");
        h.open("input", "id", "token", "name", "token", "type", "password", "autocomplete", "current-password",
                "required", "", "autofocus", "");
        h.el("button", "Sign in", "type", "submit", "class", "button primary");
        h.close("form").raw("</main></body></html>\n");
        return ConsoleResponse.html(status, h.toString());
    }

    static ConsoleResponse error(View v, int status, String message) {
        Html content = new Html().el("h1", title(status)).el("p", message, "class", "notice warn");
        return page(v, status, title(status), false, new Html(), content);
    }

    static String title(int status) {
        return switch (status) {
            case 400 -> "Bad request";
            case 401 -> "Sign in first";
            case 403 -> "Refused";
            case 404 -> "Not found";
            case 405 -> "Not allowed";
            default -> "Something went wrong";
        };
    }

    // ---- overview

    static ConsoleResponse overview(View v, List<QueueSummary> queues) {
        Html c = new Html();
        c.open("div", "class", "heading").el("h1", "Queues")
                .el("p", queues.size() + (queues.size() == 1 ? " queue" : " queues") + " in this database", "class",
                        "sub").close("div");
        if (queues.isEmpty()) {
            c.el("p", "No rowqueue queues in this database yet.", "class", "empty");
            return page(v, 200, "Queues", true, null, c);
        }
        boolean ages = queues.stream().anyMatch(q -> q.oldestReady() != null);
        boolean activity = queues.stream().anyMatch(q -> q.activity() != null);
        c.open("table", "class", "grid").open("thead").open("tr");
        c.el("th", "Queue").el("th", "Kind");
        for (String state : List.of("Ready", "Scheduled", "Leased", "Dead", "Total")) {
            c.el("th", state, "class", "num");
        }
        if (ages) {
            c.el("th", "Oldest ready", "class", "num");
        }
        if (activity) {
            c.el("th", "Last hour");
        }
        c.el("th", "Details").close("tr").close("thead").open("tbody");
        for (QueueSummary s : queues) {
            QueueInfo q = s.info();
            c.open("tr").open("td").open("a", "href", v.mount() + "/queues/" + Routes.segment(q.name()))
                    .text(q.name()).close("a").close("td");
            c.open("td").raw(kindBadge(q.kind())).close("td");
            QueueStats st = s.stats();
            if (st != null) {
                count(c, st.ready(), "ready");
                count(c, st.scheduled(), "scheduled");
                count(c, st.leased(), "leased");
                count(c, st.dead(), "dead");
                count(c, st.total(), "total");
            } else {
                for (int i = 0; i < 5; i++) {
                    c.el("td", "—", "class", "num muted");
                }
            }
            if (ages) {
                c.el("td", s.oldestReady() == null ? "—" : duration(s.oldestReady()), "class", "num");
            }
            if (activity) {
                c.open("td");
                if (s.activity() != null) {
                    sparkline(c, s.activity());
                }
                c.close("td");
            }
            c.el("td", details(q), "class", "muted");
            c.close("tr");
        }
        c.close("tbody").close("table");
        return page(v, 200, "Queues", true, null, c);
    }

    // ---- schedules

    static ConsoleResponse schedules(View v, List<ScheduleInfo> schedules, Map<String, Instant> lastFires,
                                     List<NodeInfo> nodes, ScheduleNotice notice) {
        boolean changes = !v.console().readOnly();
        String mount = v.mount();
        Html c = new Html();
        c.open("div", "class", "heading").el("h1", "Schedules")
                .el("p", schedules.size() + (schedules.size() == 1 ? " recurring schedule" : " recurring schedules")
                        + " in this database", "class", "sub").close("div");
        if (notice != null) {
            c.el("p", notice.text(), "class", "notice" + (notice.warning() ? " warn" : " ok"), "role", "status");
        }
        if (schedules.isEmpty()) {
            c.el("p", "No schedules in this database yet.", "class", "empty");
            return page(v, 200, "Schedules", true, null, c);
        }
        schedulers(c, nodes);
        c.open("table", "class", "grid").open("thead").open("tr").el("th", "Schedule").el("th", "When")
                .el("th", "Zone").el("th", "Work queue").el("th", "State").el("th", "Missed slots")
                .el("th", "Next fire times").el("th", "Last fire").el("th", "Payload").el("th", "Key");
        if (changes) {
            c.el("th", "Actions");
        }
        c.close("tr").close("thead").open("tbody");
        for (ScheduleInfo s : schedules) {
            String base = mount + "/schedules/" + Routes.segment(s.name());
            String queue = mount + "/queues/" + Routes.segment(s.options().queue());
            c.open("tr", "class", s.paused() ? "paused" : null).el("td", s.name(), "class", "key");
            if (s.schedule() instanceof CronSchedule cron) {
                c.open("td").el("code", cron.expression()).close("td").el("td", zoneName(cron.zone()));
            } else {
                c.open("td").el("code", s.schedule().toString()).close("td").el("td", "—", "class", "muted");
            }
            c.open("td").el("a", s.options().queue(), "href", queue).close("td");
            c.el("td", s.paused() ? "paused" : "active", "class", "state" + (s.paused() ? " dead" : ""));
            c.el("td", missed(s.options().missed()));
            c.open("td", "class", s.paused() ? "muted" : null);
            if (s.paused()) {
                c.text("none while paused"); // a paused schedule fires at no time; its slots come anew on resume
            } else {
                boolean first = true;
                for (Instant t : Routes.nextFires(s)) {
                    c.raw(first ? "" : "<br>").raw(time(t));
                    first = false;
                }
            }
            if (s.waitingFor() >= 0) {
                c.raw("<br>").text("waiting for ").el("a", "job " + s.waitingFor(), "href", queue + "/jobs/"
                        + s.waitingFor());
            }
            c.close("td");
            Instant last = lastFires.get(s.name());
            c.open("td", "class", last == null ? "muted last-fire" : "last-fire").raw(last == null ? "never"
                    : time(last)).close("td");
            c.open("td", "class", "payload");
            text(c, s.options().payload(), "payload");
            c.close("td").open("td", "class", "key");
            text(c, s.options().key(), "key");
            c.close("td");
            if (changes) {
                c.open("td").open("div", "class", "actions");
                if (s.paused()) {
                    postForm(c, v, base + "/resume", "button", "Resume");
                } else {
                    postForm(c, v, base + "/pause", "button", "Pause");
                }
                postForm(c, v, base + "/trigger", "button", "Trigger now");
                c.close("div").close("td");
            }
            c.close("tr");
        }
        c.close("tbody").close("table");
        c.el("p", "Next fire times are the stored next slot and the schedule's following ones. Trigger now enqueues"
                + " one job at once and leaves the slots as they are.", "class", "sub");
        return page(v, 200, "Schedules", true, null, c);
    }

    /** Whether any scheduler process is alive (its node's heartbeat), and which; a warning when none is. */
    private static void schedulers(Html c, List<NodeInfo> nodes) {
        List<NodeInfo> alive = nodes.stream().filter(n -> n.scheduler() && n.alive()).toList();
        if (alive.isEmpty()) {
            c.el("p", "No scheduler seen in the last " + NodeInfo.ALIVE_WITHIN.toSeconds() + " s: due schedules do not"
                    + " fire until a process runs one (RowQueues.schedules() with its scheduler on).", "class",
                    "notice warn schedulers", "role", "status");
            return;
        }
        c.open("p", "class", "notice ok schedulers", "role", "status")
                .text(alive.size() == 1 ? "1 scheduler alive: " : alive.size() + " schedulers alive: ");
        boolean first = true;
        for (NodeInfo n : alive) {
            c.text(first ? "" : "; ").el("span", n.describe(), "class", "key")
                    .text(" (last seen " + duration(n.silentFor()) + " ago)");
            first = false;
        }
        c.close("p");
    }

    /**
     * @param zone a zone
     * @return its name as a person writes it: {@code UTC} for the zero offset (whose id is {@code Z})
     */
    static String zoneName(java.time.ZoneId zone) {
        return zone.normalized().equals(ZoneOffset.UTC) ? "UTC" : zone.getId();
    }

    private static String missed(MissedSlots m) {
        if (m.equals(MissedSlots.SKIP)) {
            return "skip";
        }
        if (m.equals(MissedSlots.ONCE)) {
            return "once for all";
        }
        return "each, up to " + m.cap();
    }

    private static void count(Html c, long n, String state) {
        String cls = "num" + (n == 0 ? " muted" : state.equals("dead") ? " dead" : "");
        c.el("td", grouped(n), "class", cls);
    }

    /** @return a count with thousands separators: 1,205 */
    static String grouped(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
    }

    private static String details(QueueInfo q) {
        return switch (q.kind()) {
            case RING -> "capacity " + q.capacity() + " per group · " + q.strategy();
            case WORK -> "since " + TIME.format(q.createdAt());
            case COUNTERS -> "since " + TIME.format(q.createdAt());
        };
    }

    /**
     * Draws an activity series as an inline SVG sparkline: finished jobs per minute, failed attempts over them. Only
     * numbers go into the markup; the colours come from the stylesheet.
     */
    static void sparkline(Html c, QueueActivity a) {
        int n = a.finished().size();
        long max = 1;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, Math.max(a.finished().get(i), Math.max(a.failed().get(i), a.enqueued().get(i))));
        }
        int width = 120;
        int height = 24;
        long total = a.finished().stream().mapToLong(Long::longValue).sum();
        long failed = a.failed().stream().mapToLong(Long::longValue).sum();
        c.open("svg", "class", "spark", "viewBox", "0 0 " + width + " " + height, "width", String.valueOf(width),
                "height", String.valueOf(height), "role", "img", "aria-label",
                total + " finished, " + failed + " failed in the last " + n + " minutes");
        c.open("polyline", "class", "spark-finished", "points", points(a.finished(), max, width, height))
                .close("polyline");
        c.open("polyline", "class", "spark-failed", "points", points(a.failed(), max, width, height))
                .close("polyline");
        c.close("svg");
    }

    private static String points(List<Long> values, long max, int width, int height) {
        StringBuilder b = new StringBuilder();
        int n = values.size();
        for (int i = 0; i < n; i++) {
            double x = n == 1 ? 0 : (double) i * width / (n - 1);
            double y = height - 1 - (double) values.get(i) * (height - 2) / max;
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(Math.round(x * 10) / 10.0).append(',').append(Math.round(y * 10) / 10.0);
        }
        return b.toString();
    }

    // ---- a work queue

    static ConsoleResponse workQueue(View v, QueueInfo q, QueueStats s, QueueActivity activity, RateWindow rate,
                                     List<Job> dead, int limit, Notice notice) {
        boolean changes = !v.console().readOnly();
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        Html c = new Html();
        c.open("div", "class", "heading").open("h1").text(q.name()).raw(" ").raw(kindBadge(q.kind())).close("h1")
                .el("p", "created " + TIME.format(q.createdAt()), "class", "sub").close("div");
        if (notice != null) {
            c.el("p", notice.text(), "class", "notice" + (notice.warning() ? " warn" : " ok"), "role", "status");
        }
        c.open("section", "class", "cards", "aria-label", "jobs by state");
        card(c, "Ready", s.ready(), "ready", "claimable now");
        card(c, "Scheduled", s.scheduled(), "scheduled", "waiting for a delay or retry");
        card(c, "Leased", s.leased(), "leased", "held by a consumer");
        card(c, "Dead", s.dead(), "dead", "out of attempts");
        card(c, "Total", s.total(), "total", "jobs in the queue");
        c.close("section");
        if (rate != null) {
            rateWindow(c, rate);
        }
        jobNav(c, base, null);
        if (activity != null) {
            Charts.lastHour(c, activity);
        }

        c.open("section").open("div", "class", "section-head").el("h2", "Dead letters");
        if (changes && s.dead() > 0) {
            c.open("div", "class", "actions");
            postForm(c, v, base + "/dead/revive-all", "button", "Revive all " + grouped(s.dead()));
            c.el("a", "Purge dead letters…", "class", "button danger", "href", base + "/dead/purge");
            c.close("div");
        }
        c.close("div");
        if (dead.isEmpty()) {
            c.el("p", "No dead letters.", "class", "empty");
        } else {
            c.el("p", "Oldest first; " + (dead.size() < s.dead() ? "the oldest " + dead.size() + " of " + s.dead()
                    + " (add ?limit=" + Math.min(Routes.DEAD_MAX, Math.max(limit * 2, 200)) + " for more)"
                    : "all " + dead.size()) + ". A revived job is ready again with its attempts reset.", "class", "sub");
            c.open("table", "class", "grid jobs").open("thead").open("tr");
            c.el("th", "Job", "class", "num").el("th", "Attempts", "class", "num").el("th", "Priority", "class", "num")
                    .el("th", "Key").el("th", "Enqueued").el("th", "Last error").el("th", "Payload");
            if (changes) {
                c.el("th", "", "aria-label", "actions");
            }
            c.close("tr").close("thead").open("tbody");
            for (Job j : dead) {
                c.open("tr", "id", "job-" + j.id());
                c.open("td", "class", "num").num(j.id()).close("td");
                c.open("td", "class", "num").num(j.failures()).close("td");
                c.open("td", "class", "num").num(j.priority()).close("td");
                c.el("td", j.key() == null ? "—" : j.key(), "class", j.key() == null ? "muted" : "key");
                c.open("td").raw(time(j.enqueuedAt())).close("td");
                c.open("td", "class", "error");
                text(c, j.lastError(), "error");
                c.close("td");
                c.open("td", "class", "payload");
                text(c, j.payload(), "payload");
                c.close("td");
                if (changes) {
                    c.open("td", "class", "row-actions");
                    postForm(c, v, base + "/dead/" + j.id() + "/revive", "button small", "Revive");
                    c.close("td");
                }
                c.close("tr");
            }
            c.close("tbody").close("table");
        }
        c.close("section");
        return page(v, 200, q.name(), true, crumb(q.name()), c);
    }

    /** A rate-limited queue's window: how full it is, as the claims that last started jobs counted. */
    private static void rateWindow(Html c, RateWindow w) {
        c.open("section", "class", "rate", "aria-label", "rate limit");
        c.el("h2", "Rate limit");
        c.el("p", grouped(w.started()) + " of " + grouped(w.limit()) + " started in the last " + window(w.window())
                + (w.remaining() == 0 ? ": the window is full" : "; " + grouped(w.remaining()) + " more may start now")
                + ". " + grouped(w.total()) + " started under the limit in all; the latest at "
                + TIME.format(w.lastStart()) + ".", "class", "rate-window");
        c.close("section");
    }

    /** Links to the job lists by state, and the search by id or key. */
    private static void jobNav(Html c, String base, JobQuery current) {
        c.open("div", "class", "section-head");
        c.open("nav", "class", "pager states", "aria-label", "jobs by state").el("span", "Jobs:");
        for (String state : List.of("ready", "scheduled", "leased", "dead", "all")) {
            boolean here = current != null && stateKey(current).equals(state) && current.key() == null;
            c.el("a", state, "href", base + "/jobs?state=" + state, "class", here ? "current" : null,
                    "aria-current", here ? "page" : null);
        }
        c.close("nav");
        c.open("form", "method", "get", "action", base + "/jobs", "class", "lookup");
        c.el("label", "Find", "for", "q");
        c.open("input", "id", "q", "name", "q", "type", "search", "maxlength", "200", "placeholder", "a job id or key",
                "value", current == null || current.key() == null ? "" : current.key());
        c.el("button", "Find", "type", "submit", "class", "button");
        c.close("form").close("div");
    }

    private static String stateKey(JobQuery q) {
        return q.state() == null ? "all" : q.state().name().toLowerCase(java.util.Locale.ROOT);
    }

    // ---- a work queue's jobs

    static ConsoleResponse jobs(View v, QueueInfo q, QueueStats s, JobPage page) {
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        JobQuery query = page.query();
        String state = stateKey(query);
        Html c = new Html();
        c.open("div", "class", "heading").open("h1").text(q.name()).raw(" ").raw(kindBadge(q.kind())).close("h1")
                .el("p", (state.equals("all") ? "jobs of every state" : state + " jobs")
                        + (query.key() == null ? "" : " of key " + query.key()) + ", "
                        + (query.descending() ? "newest" : "oldest") + " first", "class", "sub").close("div");
        jobNav(c, base, query);
        String keep = "state=" + state + (query.key() == null ? "" : "&key=" + Routes.encode(query.key()));
        c.open("p", "class", "sub");
        c.el("a", query.descending() ? "oldest first" : "newest first", "href", base + "/jobs?" + keep + "&order="
                + (query.descending() ? "oldest" : "newest"));
        long total = switch (state) {
            case "ready" -> s.ready();
            case "scheduled" -> s.scheduled();
            case "leased" -> s.leased();
            case "dead" -> s.dead();
            default -> s.total();
        };
        if (query.key() == null) {
            c.text(" · " + grouped(total) + (total == 1 ? " job" : " jobs") + " in all");
        }
        c.text(query.after() > 0 ? " · after job " + query.after() : "");
        c.close("p");
        if (page.jobs().isEmpty()) {
            c.el("p", query.after() > 0 ? "No more jobs." : "No jobs.", "class", "empty");
        } else {
            c.open("table", "class", "grid jobs").open("thead").open("tr");
            c.el("th", "Job", "class", "num").el("th", "State").el("th", "Attempts", "class", "num")
                    .el("th", "Priority", "class", "num").el("th", "Key").el("th", "Due or lease end")
                    .el("th", "Last error").el("th", "Payload");
            c.close("tr").close("thead").open("tbody");
            for (JobInfo j : page.jobs()) {
                c.open("tr", "id", "job-" + j.id());
                c.open("td", "class", "num").open("a", "href", base + "/jobs/" + j.id()).num(j.id()).close("a")
                        .close("td");
                c.el("td", j.state().name().toLowerCase(java.util.Locale.ROOT), "class", "state");
                c.open("td", "class", "num").num(j.failures()).close("td");
                c.open("td", "class", "num").num(j.priority()).close("td");
                c.el("td", j.key() == null ? "—" : j.key(), "class", j.key() == null ? "muted" : "key");
                Instant when = j.leaseUntil() != null ? j.leaseUntil() : j.dueAt();
                c.open("td").raw(when == null ? "" : time(when)).close("td");
                c.open("td", "class", "error");
                text(c, j.lastError(), "error");
                c.close("td");
                c.open("td", "class", "payload");
                text(c, j.payload(), "payload");
                c.close("td");
                c.close("tr");
            }
            c.close("tbody").close("table");
        }
        String order = "&order=" + (query.descending() ? "newest" : "oldest");
        if (query.after() > 0 || page.more()) {
            c.open("nav", "class", "pager", "aria-label", "pages");
            if (query.after() > 0) {
                c.el("a", "← first page", "href", base + "/jobs?" + keep + order);
            }
            c.el("span", grouped(page.jobs().size()) + " shown");
            if (page.more()) {
                c.el("a", "next →", "href", base + "/jobs?" + keep + order + "&after="
                        + page.nextCursor().getAsLong(), "rel", "next");
            }
            c.close("nav");
        }
        return page(v, 200, q.name() + " · " + state + " jobs", false, crumb(q.name(), base, "jobs"), c);
    }

    static ConsoleResponse job(View v, QueueInfo q, JobInfo j, List<NodeInfo> nodes, Notice notice) {
        boolean changes = !v.console().readOnly();
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        String state = j.state().name().toLowerCase(java.util.Locale.ROOT);
        Html c = new Html();
        c.open("div", "class", "heading").open("h1").text("Job ").num(j.id()).close("h1")
                .el("p", state + " · work queue " + q.name(), "class", "sub").close("div");
        if (notice != null) {
            c.el("p", notice.text(), "class", "notice" + (notice.warning() ? " warn" : " ok"), "role", "status");
        }
        c.open("dl", "class", "fields");
        c.el("dt", "State").el("dd", state, "class", "state");
        c.el("dt", "Attempts").open("dd").num(j.failures()).close("dd");
        c.el("dt", "Priority").open("dd").num(j.priority()).close("dd");
        c.el("dt", "Enqueued").open("dd").raw(time(j.enqueuedAt())).close("dd");
        if (j.dueAt() != null) {
            c.el("dt", j.state() == JobState.DEAD ? "Last due" : "Due").open("dd").raw(time(j.dueAt())).close("dd");
        }
        if (j.leaseUntil() != null) {
            c.el("dt", "Lease ends").open("dd").raw(time(j.leaseUntil())).close("dd");
            c.el("dt", "Lease holder").open("dd", "class", "holder");
            holder(c, j.leaseToken(), nodes);
            c.close("dd");
        }
        c.el("dt", "Key").el("dd", j.key() == null ? "—" : j.key(), "class", j.key() == null ? "muted" : "key");
        c.el("dt", "Unique key").el("dd", j.uniqueKey() == null ? "—" : j.uniqueKey(),
                "class", j.uniqueKey() == null ? "muted" : "key");
        c.close("dl");
        if (changes && (j.state() == JobState.READY || j.state() == JobState.SCHEDULED)) {
            c.open("div", "class", "actions");
            c.el("a", "Cancel job " + j.id() + "…", "class", "button danger", "href",
                    base + "/jobs/" + j.id() + "/cancel");
            c.close("div");
        } else if (changes && j.state() == JobState.DEAD) {
            c.open("div", "class", "actions");
            postForm(c, v, base + "/dead/" + j.id() + "/revive", "button", "Revive");
            c.close("div");
        } else if (j.state() == JobState.LEASED) {
            c.el("p", "A consumer holds this job and may be running it: it cannot be cancelled until it is ready or"
                    + " scheduled again.", "class", "sub");
        }
        c.open("section").el("h2", "Last error");
        whole(c, j.lastError(), "error");
        c.close("section");
        c.open("section").el("h2", "Payload");
        whole(c, j.payload(), "payload");
        c.close("section");
        return page(v, 200, "Job " + j.id() + " · " + q.name(), false, crumb(q.name(), base, "job " + j.id()), c);
    }

    /**
     * The process that holds a lease: the node whose id the lease token carries, as a person finds it (name, host,
     * process id), with what it runs and when it was last seen; or why it is not known.
     */
    private static void holder(Html c, long token, List<NodeInfo> nodes) {
        long id = NodeInfo.idOf(token);
        NodeInfo n = nodes.stream().filter(x -> x.id() == id).findFirst().orElse(null);
        if (n == null) {
            c.el("span", "node " + id + ", not registered", "class", "who-unknown");
            c.el("p", "No row in rowqueue_nodes for it: a process that claims without a worker or scheduler, one built"
                    + " with registerNode(false), or one silent for longer than "
                    + NodeInfo.EXPIRES_AFTER.toMinutes() + " min. Claim token " + token + ".", "class", "sub");
            return;
        }
        c.el("span", n.describe(), "class", "key who");
        c.el("p", "node " + n.id() + " · " + n.runs() + " · last seen " + duration(n.silentFor()) + " ago"
                + (n.alive() ? "" : ": silent, the process may be gone (its lease ends by itself)")
                + " · claim token " + token, "class", n.alive() ? "sub" : "sub warn-text");
    }

    /** A payload or error in full (up to {@link #SHOWN} characters), as text. */
    private static void whole(Html c, String s, String cls) {
        if (s == null) {
            c.el("p", "—", "class", "muted");
            return;
        }
        if (s.isEmpty()) {
            c.el("p", "(empty)", "class", "muted");
            return;
        }
        c.open("pre", "class", cls).text(s.length() > SHOWN ? s.substring(0, SHOWN) : s).close("pre");
        if (s.length() > SHOWN) {
            c.el("p", (s.length() - SHOWN) + " more characters: the JSON API gives the whole text.", "class", "muted");
        }
    }

    private static void card(Html c, String label, long n, String cls, String hint) {
        c.open("div", "class", "card " + cls + (n == 0 ? " zero" : ""), "title", hint)
                .el("span", label, "class", "label").el("span", grouped(n), "class", "value").close("div");
    }

    /** Asks before a cancel, as before a purge: a cancelled job is deleted and cannot be revived. */
    static ConsoleResponse confirmCancel(View v, QueueInfo q, JobInfo j) {
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        String job = base + "/jobs/" + j.id();
        Html c = new Html();
        c.el("h1", "Cancel job " + j.id() + " of " + q.name() + "?");
        c.open("div", "class", "confirm");
        if (j.state() != JobState.READY && j.state() != JobState.SCHEDULED) {
            c.el("p", "Job " + j.id() + " is " + j.state().name().toLowerCase(java.util.Locale.ROOT)
                    + ": only a ready or scheduled job can be cancelled.");
            c.el("a", "Back to job " + j.id(), "class", "button", "href", job);
        } else {
            c.open("p").text("This deletes ").el("strong", "job " + j.id()).text(" (")
                    .text(j.state().name().toLowerCase(java.util.Locale.ROOT)).text(") of work queue ")
                    .el("strong", q.name()).text(": no consumer will get it, and it cannot be revived.").close("p");
            c.open("div", "class", "actions");
            postForm(c, v, job + "/cancel", "button danger", "Cancel job " + j.id());
            c.el("a", "Keep it", "class", "button", "href", job);
            c.close("div");
        }
        c.close("div");
        return page(v, 200, "Cancel job " + j.id(), false, crumb(q.name(), base, "cancel job " + j.id()), c);
    }

    static ConsoleResponse confirmPurge(View v, QueueInfo q, long dead) {
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        Html c = new Html();
        c.el("h1", "Purge the dead letters of " + q.name() + "?");
        c.open("div", "class", "confirm");
        if (dead == 0) {
            c.el("p", "Work queue " + q.name() + " has no dead letters: there is nothing to purge.");
            c.el("a", "Back to " + q.name(), "class", "button", "href", base);
        } else {
            c.open("p").text("This deletes the ").el("strong", grouped(dead))
                    .text(dead == 1 ? " dead letter" : " dead letters").text(" of work queue ")
                    .el("strong", q.name()).text(". Deleted jobs cannot be revived.").close("p");
            c.open("div", "class", "actions");
            postForm(c, v, base + "/dead/purge", "button danger",
                    "Delete " + grouped(dead) + (dead == 1 ? " dead letter" : " dead letters"), "confirm", q.name());
            c.el("a", "Cancel", "class", "button", "href", base);
            c.close("div");
        }
        c.close("div");
        return page(v, 200, "Purge " + q.name(), false, crumb(q.name(), base, "purge dead letters"), c);
    }

    // ---- a ring

    static ConsoleResponse ring(View v, QueueInfo q, int groupCount, int page, int pages, Map<String, RingEntry> newest,
                                String group, List<RingEntry> entries) {
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        Html c = new Html();
        c.open("div", "class", "heading").open("h1").text(q.name()).raw(" ").raw(kindBadge(q.kind())).close("h1")
                .el("p", "capacity " + q.capacity() + " per group · strategy " + q.strategy() + " · " + groupCount
                        + (groupCount == 1 ? " group" : " groups"), "class", "sub").close("div");
        c.open("form", "method", "get", "action", base, "class", "lookup");
        c.el("label", "Group", "for", "group");
        c.open("input", "id", "group", "name", "group", "type", "search", "value", group == null ? "" : group,
                "maxlength", "200", "placeholder", "a group's name");
        c.el("button", "Show", "type", "submit", "class", "button");
        c.close("form");
        if (entries != null) {
            c.open("section").open("h2").text("Group ").el("span", group, "class", "key")
                    .text(", newest first").close("h2");
            if (entries.isEmpty()) {
                c.el("p", "This group holds no entries.", "class", "empty");
            } else {
                entries(c, entries);
            }
            c.close("section");
        }
        c.open("section").el("h2", "Groups");
        if (newest.isEmpty()) {
            c.el("p", "No group holds an entry.", "class", "empty");
        } else {
            c.open("table", "class", "grid").open("thead").open("tr").el("th", "Group").el("th", "Newest", "class", "num")
                    .el("th", "Pushed").el("th", "Newest payload").close("tr").close("thead").open("tbody");
            for (Map.Entry<String, RingEntry> e : newest.entrySet()) {
                c.open("tr").open("td", "class", "key").open("a", "href", base + "?group=" + Routes.encode(e.getKey()))
                        .text(e.getKey()).close("a").close("td");
                RingEntry r = e.getValue();
                if (r == null) {
                    c.el("td", "—", "class", "num muted").el("td", "").el("td", "");
                } else {
                    c.open("td", "class", "num").num(r.seq()).close("td");
                    c.open("td").raw(time(r.pushedAt())).close("td");
                    c.open("td", "class", "payload");
                    text(c, r.payload(), "payload");
                    c.close("td");
                }
                c.close("tr");
            }
            c.close("tbody").close("table");
            pager(c, base, page, pages, group == null ? "" : "group=" + Routes.encode(group) + "&");
        }
        c.close("section");
        return page(v, 200, q.name(), false, crumb(q.name()), c);
    }

    private static void entries(Html c, List<RingEntry> entries) {
        c.open("table", "class", "grid").open("thead").open("tr").el("th", "Seq", "class", "num").el("th", "Pushed")
                .el("th", "Payload").close("tr").close("thead").open("tbody");
        for (RingEntry e : entries) {
            c.open("tr").open("td", "class", "num").num(e.seq()).close("td").open("td").raw(time(e.pushedAt()))
                    .close("td").open("td", "class", "payload");
            text(c, e.payload(), "payload");
            c.close("td").close("tr");
        }
        c.close("tbody").close("table");
    }

    // ---- counters

    static ConsoleResponse counters(View v, QueueInfo q, int count, int page, int pages,
                                    List<Map.Entry<String, Long>> shown, String key, Long value) {
        String base = v.mount() + "/queues/" + Routes.segment(q.name());
        Html c = new Html();
        c.open("div", "class", "heading").open("h1").text(q.name()).raw(" ").raw(kindBadge(q.kind())).close("h1")
                .el("p", grouped(count) + (count == 1 ? " counter" : " counters"), "class", "sub").close("div");
        c.open("form", "method", "get", "action", base, "class", "lookup");
        c.el("label", "Counter", "for", "key");
        c.open("input", "id", "key", "name", "key", "type", "search", "value", key == null ? "" : key, "maxlength",
                "200", "placeholder", "a counter's key");
        c.el("button", "Look up", "type", "submit", "class", "button");
        c.close("form");
        if (value != null) {
            c.open("p", "class", "notice ok", "role", "status").el("span", key, "class", "key").text(" = ")
                    .open("strong").num(value).close("strong")
                    .text(value == 0 ? " (0 is also what a counter never used reads)" : "").close("p");
        }
        if (shown.isEmpty()) {
            c.el("p", "No counters yet.", "class", "empty");
        } else {
            c.open("table", "class", "grid narrow").open("thead").open("tr").el("th", "Counter")
                    .el("th", "Value", "class", "num").close("tr").close("thead").open("tbody");
            for (Map.Entry<String, Long> e : shown) {
                c.open("tr").el("td", e.getKey(), "class", "key").el("td", grouped(e.getValue()), "class", "num")
                        .close("tr");
            }
            c.close("tbody").close("table");
            pager(c, base, page, pages, "");
        }
        return page(v, 200, q.name(), false, crumb(q.name()), c);
    }

    // ---- pieces

    private static void pager(Html c, String base, int page, int pages, String keep) {
        if (pages <= 1) {
            return;
        }
        c.open("nav", "class", "pager", "aria-label", "pages");
        if (page > 1) {
            c.el("a", "← previous", "href", base + "?" + keep + "page=" + (page - 1));
        }
        c.el("span", "page " + page + " of " + pages);
        if (page < pages) {
            c.el("a", "next →", "href", base + "?" + keep + "page=" + (page + 1));
        }
        c.close("nav");
    }

    /** A form that POSTs to {@code action}: carries the CSRF token of a browser session and the container's fields. */
    private static void postForm(Html h, View v, String action, String buttonClass, String label, String... hidden) {
        h.open("form", "method", "post", "action", action, "class", "inline");
        if (v.operator().ambient()) {
            h.hidden("csrf", v.operator().csrfToken());
        }
        v.request().formFields().forEach(h::hidden);
        for (int i = 0; i + 1 < hidden.length; i += 2) {
            h.hidden(hidden[i], hidden[i + 1]);
        }
        h.el("button", label, "type", "submit", "class", buttonClass);
        h.close("form");
    }

    /** Payloads and errors: short ones inline, long or multi-line ones folded, very long ones cut (the API has all). */
    private static void text(Html c, String s, String cls) {
        if (s == null) {
            c.el("span", "—", "class", "muted");
            return;
        }
        if (s.isEmpty()) {
            c.el("span", "(empty)", "class", "muted");
            return;
        }
        if (s.length() <= PREVIEW && s.indexOf('\n') < 0) {
            c.el("code", s, "class", cls);
            return;
        }
        int cut = s.indexOf('\n');
        String preview = s.substring(0, Math.min(PREVIEW, cut < 0 ? s.length() : cut));
        c.open("details", "class", cls).open("summary").el("code", preview + "…").close("summary");
        c.open("pre").text(s.length() > SHOWN ? s.substring(0, SHOWN) : s).close("pre");
        if (s.length() > SHOWN) {
            c.el("p", (s.length() - SHOWN) + " more characters: the JSON API gives the whole text.", "class", "muted");
        }
        c.close("details");
    }

    private static String time(Instant t) {
        return new Html().el("time", TIME.format(t), "datetime", t.toString()).toString();
    }

    private static Html crumb(String name) {
        return new Html().el("span", "/", "class", "sep").el("span", name);
    }

    private static Html crumb(String name, String href, String last) {
        return new Html().el("span", "/", "class", "sep").el("a", name, "href", href).el("span", "/", "class", "sep")
                .el("span", last);
    }

    /** A rate limit's window: in milliseconds unless it is whole seconds. */
    private static String window(Duration d) {
        return d.toMillis() % 1000 == 0 ? duration(d) : grouped(d.toMillis()) + " ms";
    }

    static String duration(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return (s / 60) + " min";
        }
        if (s < 86_400) {
            return (s / 3600) + " h " + (s % 3600 / 60) + " min";
        }
        return (s / 86_400) + " d " + (s % 86_400 / 3600) + " h";
    }

    static String kindName(QueueKind kind) {
        return switch (kind) {
            case WORK -> "work queue";
            case RING -> "ring";
            case COUNTERS -> "counters table";
        };
    }

    static String kindKey(QueueKind kind) {
        return switch (kind) {
            case WORK -> "work";
            case RING -> "ring";
            case COUNTERS -> "counters";
        };
    }

    private static String kindBadge(QueueKind kind) {
        return new Html().el("span", kindName(kind), "class", "kind kind-" + kindKey(kind)).toString();
    }
}
