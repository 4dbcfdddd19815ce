package dev.rowqueue.console;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.console.Console.Call;
import dev.rowqueue.console.Console.HttpError;
import dev.rowqueue.console.Console.Route;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The console's routes and what answers them. Routes that change anything are registered only when the console is
 * not read-only: a read-only console has no code path to a change.
 */
final class Routes {
    /** Dead letters a work queue's page shows by default, and the most it shows. */
    static final int DEAD_DEFAULT = 100;
    static final int DEAD_MAX = 1000;
    /** Ring groups per page, each shown with its newest entry (one statement per group). */
    static final int GROUPS_PER_PAGE = 25;
    /** Counters per page. */
    static final int COUNTERS_PER_PAGE = 100;
    /** The most entries of one ring group shown. */
    static final int ENTRIES_MAX = 100;
    /** Jobs per page of a work queue's job list. */
    static final int JOBS_PER_PAGE = 500;
    /** Fire times the schedules page and API show per schedule. */
    static final int NEXT_FIRES = 3;
    /** A schedule's name, as {@link dev.rowqueue.Schedules} accepts it. */
    private static final Pattern SCHEDULE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,"
            + dev.rowqueue.Schedules.MAX_NAME_LENGTH + "}");

    private final Console console;

    Routes(Console console) {
        this.console = console;
    }

    List<Route> all() {
        List<Route> r = new ArrayList<>();
        r.add(Route.of("GET", "/", this::overview));
        r.add(Route.of("GET", "/queues/{queue}", this::queue));
        r.add(Route.of("GET", "/api/queues", this::apiQueues));
        r.add(Route.of("GET", "/api/queues/{queue}", this::apiQueue));
        r.add(Route.of("GET", "/api/queues/{queue}/dead", this::apiDead));
        r.add(Route.of("GET", "/api/queues/{queue}/entries", this::apiEntries));
        r.add(Route.of("GET", "/api/queues/{queue}/counter", this::apiCounter));
        r.add(Route.of("GET", "/queues/{queue}/jobs", this::jobs));
        r.add(Route.of("GET", "/queues/{queue}/jobs/{id}", this::job));
        r.add(Route.of("GET", "/api/queues/{queue}/jobs", this::apiJobs));
        r.add(Route.of("GET", "/api/queues/{queue}/jobs/{id}", this::apiJob));
        r.add(Route.of("GET", "/schedules", this::schedules));
        r.add(Route.of("GET", "/api/schedules", this::apiSchedules));
        if (console.tokenAuth() != null) {
            r.add(Route.of("POST", "/sign-out", call -> new SignIn(console).signOut(call)));
        }
        if (!console.readOnly()) {
            // every route below changes data: none exists on a read-only console
            r.add(Route.of("POST", "/queues/{queue}/dead/{id}/revive", this::revive));
            r.add(Route.of("POST", "/queues/{queue}/dead/revive-all", this::reviveAll));
            r.add(Route.of("GET", "/queues/{queue}/dead/purge", this::confirmPurge));
            r.add(Route.of("POST", "/queues/{queue}/dead/purge", this::purge));
            r.add(Route.of("POST", "/api/queues/{queue}/dead/{id}/revive", this::revive));
            r.add(Route.of("POST", "/api/queues/{queue}/dead/revive-all", this::reviveAll));
            r.add(Route.of("POST", "/api/queues/{queue}/dead/purge", this::purge));
            r.add(Route.of("GET", "/queues/{queue}/jobs/{id}/cancel", this::confirmCancel));
            r.add(Route.of("POST", "/queues/{queue}/jobs/{id}/cancel", this::cancel));
            r.add(Route.of("POST", "/api/queues/{queue}/jobs/{id}/cancel", this::cancel));
            for (String action : List.of("pause", "resume", "trigger")) {
                r.add(Route.of("POST", "/schedules/{schedule}/" + action, call -> scheduleAction(call, action)));
                r.add(Route.of("POST", "/api/schedules/{schedule}/" + action, call -> scheduleAction(call, action)));
            }
        }
        return r;
    }

    // ---- pages

    private ConsoleResponse overview(Call call) {
        return Pages.overview(call.view(), console.data().overview());
    }

    private ConsoleResponse queue(Call call) {
        QueueInfo q = queue(call, null);
        ConsoleData data = console.data();
        switch (q.kind()) {
            case WORK -> {
                int limit = intParam(call, "limit", DEAD_DEFAULT, 1, DEAD_MAX);
                QueueStats stats = data.stats(q.name());
                List<Job> dead = stats.dead() == 0 ? List.of() : data.deadLetters(q.name(), limit);
                return Pages.workQueue(call.view(), q, stats, data.activity(q.name()),
                        data.rateWindow(q.name()).orElse(null), dead, limit, Notice.of(call.request()));
            }
            case RING -> {
                List<String> groups = data.groups(q.name());
                int pages = Math.max(1, (groups.size() + GROUPS_PER_PAGE - 1) / GROUPS_PER_PAGE);
                int page = intParam(call, "page", 1, 1, pages);
                List<String> shown = groups.subList((page - 1) * GROUPS_PER_PAGE,
                        Math.min(groups.size(), page * GROUPS_PER_PAGE));
                Map<String, RingEntry> newest = new LinkedHashMap<>();
                for (String g : shown) {
                    List<RingEntry> e = data.newestEntries(q.name(), g, 1);
                    newest.put(g, e.isEmpty() ? null : e.get(0));
                }
                String group = call.request().query("group");
                List<RingEntry> entries = group == null || group.isEmpty() ? null
                        : data.newestEntries(q.name(), group, Math.min(q.capacity(), ENTRIES_MAX));
                return Pages.ring(call.view(), q, groups.size(), page, pages, newest, group, entries);
            }
            default -> {
                Map<String, Long> all = data.counters(q.name());
                int pages = Math.max(1, (all.size() + COUNTERS_PER_PAGE - 1) / COUNTERS_PER_PAGE);
                int page = intParam(call, "page", 1, 1, pages);
                List<Map.Entry<String, Long>> shown = all.entrySet().stream().skip((long) (page - 1) * COUNTERS_PER_PAGE)
                        .limit(COUNTERS_PER_PAGE).collect(Collectors.toList());
                String key = call.request().query("key");
                Long value = key == null || key.isEmpty() ? null : data.counter(q.name(), key);
                return Pages.counters(call.view(), q, all.size(), page, pages, shown, key, value);
            }
        }
    }

    /**
     * A work queue's jobs of one state (or all), oldest or newest first, {@value #JOBS_PER_PAGE} per keyset page;
     * {@code q} searches: a number opens that job, other text lists the jobs of that key.
     */
    private ConsoleResponse jobs(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        String search = call.request().query("q");
        if (search != null && !search.isBlank()) {
            String s = search.strip();
            if (s.chars().allMatch(Character::isDigit) && s.length() < 19) {
                return ConsoleResponse.seeOther(call.request().mount() + "/queues/" + segment(q.name()) + "/jobs/" + s);
            }
            return ConsoleResponse.seeOther(call.request().mount() + "/queues/" + segment(q.name())
                    + "/jobs?state=all&key=" + encode(s));
        }
        JobQuery query = jobQuery(call, JOBS_PER_PAGE);
        JobPage page = console.data().jobs(q.name(), query);
        return Pages.jobs(call.view(), q, console.data().stats(q.name()), page);
    }

    private ConsoleResponse job(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        long id = jobId(call.params().get("id"));
        JobInfo job = console.data().job(q.name(), id).orElseThrow(() -> new HttpError(404, "No job " + id
                + " in work queue " + q.name() + ": it may have been acked, cancelled or purged."));
        List<dev.rowqueue.NodeInfo> nodes = job.leaseToken() != 0 ? console.data().nodes() : List.of();
        return Pages.job(call.view(), q, job, nodes, Notice.of(call.request()));
    }

    /** The query of a job list: {@code state}, {@code order}, {@code key}, {@code after} and {@code limit}. */
    private static JobQuery jobQuery(Call call, int defaultLimit) {
        String state = call.request().query("state");
        JobQuery query;
        if (state == null || state.isEmpty()) {
            query = JobQuery.all().withState(JobState.READY);
        } else if (state.equals("all")) {
            query = JobQuery.all();
        } else {
            JobState s = switch (state) {
                case "ready" -> JobState.READY;
                case "scheduled" -> JobState.SCHEDULED;
                case "leased" -> JobState.LEASED;
                case "dead" -> JobState.DEAD;
                default -> throw new HttpError(400, "state is one of ready, scheduled, leased, dead or all.");
            };
            query = JobQuery.all().withState(s);
        }
        String order = call.request().query("order");
        if (order == null || order.isEmpty() || order.equals("oldest")) {
            query = query.oldestFirst();
        } else if (!order.equals("newest")) {
            throw new HttpError(400, "order is oldest or newest.");
        }
        String key = call.request().query("key");
        if (key != null && !key.isEmpty()) {
            if (key.length() > 200) {
                throw new HttpError(400, "A key has at most 200 characters.");
            }
            query = query.withKey(key);
        }
        query = query.withLimit(intParam(call, "limit", defaultLimit, 1, JobQuery.MAX_LIMIT));
        String after = call.request().query("after");
        if (after != null && !after.isEmpty()) {
            long id;
            try {
                id = Long.parseLong(after);
            } catch (NumberFormatException e) {
                throw new HttpError(400, "after is a job id.");
            }
            if (id < 0) {
                throw new HttpError(400, "after is a job id.");
            }
            query = query.withAfter(id);
        }
        return query;
    }

    private ConsoleResponse confirmCancel(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        long id = jobId(call.params().get("id"));
        JobInfo job = console.data().job(q.name(), id).orElseThrow(() -> new HttpError(404, "No job " + id
                + " in work queue " + q.name() + ": it may have been acked, cancelled or purged."));
        return Pages.confirmCancel(call.view(), q, job);
    }

    private ConsoleResponse confirmPurge(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        return Pages.confirmPurge(call.view(), q, console.data().stats(q.name()).dead());
    }

    // ---- changes (HTML and JSON)

    private ConsoleResponse revive(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        long id = longParam(call.params().get("id"));
        boolean revived = console.data().revive(q.name(), id);
        console.audit().change(call, revived ? "revived dead job " + id : "found no dead job " + id + " to revive", q);
        if (call.api()) {
            if (!revived) {
                throw new HttpError(404, "no dead job " + id + " in work queue " + q.name());
            }
            return ConsoleResponse.json(200, Json.object().field("revived", true).field("id", id).endObject()
                    .toString());
        }
        return back(call, q, revived ? "done=revived&id=" + id : "done=not-dead&id=" + id);
    }

    private ConsoleResponse cancel(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        long id = jobId(call.params().get("id"));
        CancelOutcome outcome = console.data().cancel(q.name(), id);
        console.audit().change(call, outcome.cancelled() ? "cancelled job " + id
                : "could not cancel job " + id + " (" + outcome.name().toLowerCase(Locale.ROOT) + ")", q);
        if (call.api()) {
            int status = switch (outcome) {
                case CANCELLED -> 200;
                case NOT_FOUND -> 404;
                default -> 409;
            };
            return ConsoleResponse.json(status, Json.object().field("id", id).field("cancelled", outcome.cancelled())
                    .field("outcome", outcome.name().toLowerCase(Locale.ROOT)).field("reason", outcome.reason())
                    .endObject().toString());
        }
        String base = call.request().mount() + "/queues/" + segment(q.name());
        return switch (outcome) {
            case CANCELLED -> ConsoleResponse.seeOther(base + "?done=cancelled&id=" + id);
            case NOT_FOUND -> ConsoleResponse.seeOther(base + "?done=cancel-missing&id=" + id);
            case LEASED -> ConsoleResponse.seeOther(base + "/jobs/" + id + "?done=cancel-leased&id=" + id);
            case DEAD -> ConsoleResponse.seeOther(base + "/jobs/" + id + "?done=cancel-dead&id=" + id);
        };
    }

    private ConsoleResponse reviveAll(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        int n = console.data().reviveAll(q.name());
        console.audit().change(call, "revived " + n + " dead " + (n == 1 ? "job" : "jobs"), q);
        if (call.api()) {
            return ConsoleResponse.json(200, Json.object().field("revived", n).endObject().toString());
        }
        return back(call, q, "done=revived-all&count=" + n);
    }

    private ConsoleResponse purge(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        String confirm = call.request().form("confirm");
        if (confirm == null) {
            confirm = call.request().query("confirm");
        }
        if (!q.name().equals(confirm)) {
            throw new HttpError(400, "Purging deletes every dead letter: confirm with confirm=" + q.name() + ".");
        }
        int n = console.data().purgeDead(q.name());
        console.audit().change(call, "purged " + n + " dead " + (n == 1 ? "job" : "jobs"), q);
        if (call.api()) {
            return ConsoleResponse.json(200, Json.object().field("purged", n).endObject().toString());
        }
        return back(call, q, "done=purged&count=" + n);
    }

    // ---- schedules

    private ConsoleResponse schedules(Call call) {
        List<ScheduleInfo> all = console.data().schedules();
        // without schedules, nothing more is read (nor any table created)
        return Pages.schedules(call.view(), all, all.isEmpty() ? Map.of() : console.data().lastFires(),
                all.isEmpty() ? List.of() : console.data().nodes(), ScheduleNotice.of(call.request(), all));
    }

    /**
     * The next fire times as {@link dev.rowqueue.Schedules#next} gives them (the stored next slot, then the
     * schedule's following ones), computed from the listed row instead of reading it again.
     */
    static List<java.time.Instant> nextFires(ScheduleInfo s) {
        List<java.time.Instant> out = new ArrayList<>(NEXT_FIRES);
        out.add(s.nextFire());
        out.addAll(s.schedule().next(s.nextFire(), NEXT_FIRES - 1));
        return out;
    }

    private ConsoleResponse apiSchedules(Call call) {
        Json j = Json.object();
        j.name("schedules").beginArray();
        for (ScheduleInfo s : console.data().schedules()) {
            Api.schedule(j, s, nextFires(s));
        }
        return ConsoleResponse.json(200, j.endArray().endObject().toString());
    }

    /** Pause, resume or trigger a schedule: HTML (back to the schedules page) and JSON. */
    private ConsoleResponse scheduleAction(Call call, String action) {
        String name = call.params().get("schedule");
        if (!SCHEDULE_NAME.matcher(name).matches()) {
            throw new HttpError(404, "No schedule of that name: names are 1 to "
                    + dev.rowqueue.Schedules.MAX_NAME_LENGTH + " letters, digits, '_', '.' or '-'.");
        }
        ConsoleData data = console.data();
        boolean found;
        long job = -1;
        switch (action) {
            case "pause" -> found = data.pauseSchedule(name);
            case "resume" -> found = data.resumeSchedule(name);
            default -> {
                OptionalLong id = data.triggerSchedule(name);
                found = id.isPresent();
                job = id.orElse(-1);
            }
        }
        String done = switch (action) {
            case "pause" -> "paused";
            case "resume" -> "resumed";
            default -> "triggered";
        };
        console.audit().scheduleChange(call, !found ? "found no schedule " + name + " to " + action
                : action.equals("trigger") ? "triggered schedule " + name + " (job " + job + ")"
                : done + " schedule " + name);
        if (call.api()) {
            if (!found) {
                throw new HttpError(404, "no schedule named '" + name + "'");
            }
            Json j = Json.object().field("schedule", name);
            if (action.equals("trigger")) {
                j.field("triggered", true).field("job", job);
            } else {
                j.field("paused", action.equals("pause"));
            }
            return ConsoleResponse.json(200, j.endObject().toString());
        }
        String base = call.request().mount() + "/schedules?done=";
        return ConsoleResponse.seeOther(!found ? base + "missing"
                : base + done + "&name=" + encode(name) + (job > 0 ? "&id=" + job : ""));
    }

    /**
     * The message the schedules page shows after a change: fixed sentences, the schedule's name as listed (never as
     * the URL gives it) and a job id.
     *
     * @param text    the sentence
     * @param warning whether it says nothing was done
     */
    record ScheduleNotice(String text, boolean warning) {
        static ScheduleNotice of(ConsoleRequest r, List<ScheduleInfo> listed) {
            String done = r.query("done");
            if (done == null) {
                return null;
            }
            if (done.equals("missing")) {
                return new ScheduleNotice("There is no schedule of that name (any more): nothing was done.", true);
            }
            String name = r.query("name");
            ScheduleInfo s = listed.stream().filter(i -> i.name().equals(name)).findFirst().orElse(null);
            if (s == null) {
                return null;
            }
            return switch (done) {
                case "paused" -> new ScheduleNotice("Schedule " + s.name() + " is paused: it fires no more until it is"
                        + " resumed.", false);
                case "resumed" -> new ScheduleNotice("Schedule " + s.name() + " is resumed.", false);
                case "triggered" -> {
                    long id;
                    try {
                        id = Long.parseLong(r.query("id"));
                    } catch (NumberFormatException e) {
                        yield null;
                    }
                    yield new ScheduleNotice("Schedule " + s.name() + " enqueued job " + id + " into work queue "
                            + s.options().queue() + " now; its slots are unchanged.", false);
                }
                default -> null;
            };
        }
    }

    private static ConsoleResponse back(Call call, QueueInfo q, String query) {
        return ConsoleResponse.seeOther(call.request().mount() + "/queues/" + segment(q.name()) + "?" + query);
    }

    // ---- JSON reads

    private ConsoleResponse apiQueues(Call call) {
        Json j = Json.object();
        Api.database(j.name("database"), console.data().database());
        j.name("queues").beginArray();
        for (QueueSummary s : console.data().overview()) {
            Api.summary(j, s);
        }
        j.endArray().endObject();
        return ConsoleResponse.json(200, j.toString());
    }

    private ConsoleResponse apiQueue(Call call) {
        QueueInfo q = queue(call, null);
        ConsoleData data = console.data();
        Json j = Json.object();
        Api.info(j, q);
        switch (q.kind()) {
            case WORK -> {
                int limit = intParam(call, "limit", DEAD_DEFAULT, 1, DEAD_MAX);
                QueueStats stats = data.stats(q.name());
                Api.stats(j.name("stats"), stats);
                data.rateWindow(q.name()).ifPresent(w -> Api.rateWindow(j.name("rateWindow"), w));
                Api.jobs(j.name("dead"), stats.dead() == 0 ? List.of() : data.deadLetters(q.name(), limit));
            }
            case RING -> {
                j.name("groups").beginArray();
                data.groups(q.name()).forEach(j::value);
                j.endArray();
            }
            default -> {
                j.name("counters").beginObject();
                data.counters(q.name()).forEach((k, v) -> j.field(k, v));
                j.endObject();
            }
        }
        return ConsoleResponse.json(200, j.endObject().toString());
    }

    private ConsoleResponse apiDead(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        int limit = intParam(call, "limit", DEAD_DEFAULT, 1, DEAD_MAX);
        Json j = Json.object().field("queue", q.name()).field("limit", limit);
        Api.jobs(j.name("dead"), console.data().deadLetters(q.name(), limit));
        return ConsoleResponse.json(200, j.endObject().toString());
    }

    private ConsoleResponse apiJobs(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        JobQuery query = jobQuery(call, JobQuery.DEFAULT_LIMIT);
        JobPage page = console.data().jobs(q.name(), query);
        Json j = Json.object().field("queue", q.name())
                .field("state", query.state() == null ? "all" : query.state().name().toLowerCase(Locale.ROOT))
                .field("order", query.descending() ? "newest" : "oldest").field("key", query.key())
                .field("limit", query.limit());
        j.name("jobs").beginArray();
        page.jobs().forEach(job -> Api.job(j, job));
        j.endArray();
        j.name("next");
        if (page.nextCursor().isPresent()) {
            j.value(page.nextCursor().getAsLong());
        } else {
            j.nullValue();
        }
        return ConsoleResponse.json(200, j.endObject().toString());
    }

    private ConsoleResponse apiJob(Call call) {
        QueueInfo q = queue(call, QueueKind.WORK);
        long id = jobId(call.params().get("id"));
        JobInfo job = console.data().job(q.name(), id).orElseThrow(() -> new HttpError(404, "no job " + id
                + " in work queue " + q.name()));
        Json j = new Json();
        Api.job(j, job);
        return ConsoleResponse.json(200, j.toString());
    }

    private ConsoleResponse apiEntries(Call call) {
        QueueInfo q = queue(call, QueueKind.RING);
        String group = call.request().query("group");
        if (group == null || group.isEmpty()) {
            throw new HttpError(400, "give the group: ?group=NAME");
        }
        int limit = intParam(call, "limit", Math.min(q.capacity(), ENTRIES_MAX), 1, Math.max(1, q.capacity()));
        Json j = Json.object().field("queue", q.name()).field("group", group);
        j.name("entries").beginArray();
        for (RingEntry e : console.data().newestEntries(q.name(), group, limit)) {
            Api.entry(j, e);
        }
        return ConsoleResponse.json(200, j.endArray().endObject().toString());
    }

    private ConsoleResponse apiCounter(Call call) {
        QueueInfo q = queue(call, QueueKind.COUNTERS);
        String key = call.request().query("key");
        if (key == null || key.isEmpty()) {
            throw new HttpError(400, "give the counter: ?key=NAME");
        }
        long value = console.data().counter(q.name(), key);
        return ConsoleResponse.json(200, Json.object().field("table", q.name()).field("key", key)
                .field("value", value).endObject().toString());
    }

    // ---- parameters

    private QueueInfo queue(Call call, QueueKind kind) {
        String name = call.params().get("queue");
        QueueInfo q = console.data().queue(name).orElseThrow(() -> new HttpError(404,
                "No queue named '" + name + "' in this database."));
        if (kind != null && q.kind() != kind) {
            throw new HttpError(404, "'" + q.name() + "' is a " + Pages.kindName(q.kind()) + ", not a "
                    + Pages.kindName(kind) + ".");
        }
        return q;
    }

    private static int intParam(Call call, String name, int dflt, int min, int max) {
        String v = call.request().query(name);
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                throw new HttpError(400, name + " must be between " + min + " and " + max + ", got " + n + ".");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new HttpError(400, name + " must be a number.");
        }
    }

    private static long jobId(String v) {
        long id = longParam(v);
        if (id < 1) {
            throw new HttpError(400, "A job id is 1 or more.");
        }
        return id;
    }

    private static long longParam(String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new HttpError(400, "A job id is a number.");
        }
    }

    // ---- URLs

    /**
     * @param s a value
     * @return it encoded for a query parameter
     */
    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /**
     * @param s a value
     * @return it encoded as one path segment
     */
    static String segment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * @param request a request
     * @return its query parameters, encoded again
     */
    static String query(ConsoleRequest request) {
        return request.queryParameters().entrySet().stream()
                .flatMap(e -> e.getValue().stream().map(v -> encode(e.getKey()) + "=" + encode(v)))
                .collect(Collectors.joining("&"));
    }

    /**
     * The message a page shows after a change redirected to it: fixed sentences and numbers, never text from the
     * URL.
     *
     * @param kind  what happened
     * @param value the job id or count
     */
    record Notice(String kind, long value) {
        static Notice of(ConsoleRequest r) {
            String done = r.query("done");
            if (done == null) {
                return null;
            }
            String v = r.query(done.startsWith("revived-all") || done.equals("purged") ? "count" : "id");
            long n;
            try {
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                return null;
            }
            return switch (done) {
                case "revived", "not-dead", "revived-all", "purged", "cancelled", "cancel-missing", "cancel-leased",
                     "cancel-dead" -> new Notice(done, n);
                default -> null;
            };
        }

        String text() {
            return switch (kind) {
                case "revived" -> "Job " + value + " is ready again.";
                case "not-dead" -> "Job " + value + " is not a dead letter (any more): nothing was revived.";
                case "revived-all" -> value + (value == 1 ? " dead job is" : " dead jobs are") + " ready again.";
                case "cancelled" -> "Job " + value + " is cancelled: no consumer will get it.";
                case "cancel-missing" -> "There is no job " + value + " (any more): nothing was cancelled.";
                case "cancel-leased" -> "Job " + value + " was not cancelled: a consumer holds it and may be running"
                        + " it. It can be cancelled once it is ready or scheduled again.";
                case "cancel-dead" -> "Job " + value + " was not cancelled: it is dead. Revive it or purge the dead"
                        + " letters.";
                default -> value + (value == 1 ? " dead letter was" : " dead letters were") + " deleted.";
            };
        }

        boolean warning() {
            return kind.equals("not-dead") || kind.startsWith("cancel-");
        }
    }
}
