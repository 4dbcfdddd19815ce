package dev.rowqueue.console;

import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RateWindow;
import dev.rowqueue.RingEntry;
import dev.rowqueue.ScheduleInfo;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** How the JSON API writes the console's data: the same fields the pages show. */
final class Api {
    private Api() {
    }

    static void database(Json j, DatabaseInfo db) {
        j.beginObject().field("product", db.productName()).field("version", db.productVersion())
                .field("dialect", db.dialect()).endObject();
    }

    /** Writes a catalog entry's fields into the open object. */
    static void info(Json j, QueueInfo q) {
        j.field("name", q.name()).field("kind", Pages.kindKey(q.kind()));
        if (q.strategy() != null) {
            j.field("capacity", q.capacity()).field("strategy", q.strategy().name());
        }
        j.field("createdAt", q.createdAt());
        j.name("tables").beginArray();
        q.tables().forEach(j::value);
        j.endArray();
    }

    static void summary(Json j, QueueSummary s) {
        j.beginObject();
        info(j, s.info());
        if (s.stats() != null) {
            stats(j.name("stats"), s.stats());
        }
        if (s.oldestReady() != null) {
            j.field("oldestReadySeconds", s.oldestReady().toSeconds());
        }
        if (s.activity() != null) {
            QueueActivity a = s.activity();
            j.name("activity").beginObject().field("start", a.start());
            series(j.name("enqueued"), a.enqueued());
            series(j.name("finished"), a.finished());
            series(j.name("failed"), a.failed());
            series(j.name("started"), a.started());
            series(j.name("waitTotalMillis"), a.waitTotalMillis());
            series(j.name("waitMaxMillis"), a.waitMaxMillis());
            j.endObject();
        }
        j.endObject();
    }

    private static void series(Json j, List<Long> values) {
        j.beginArray();
        values.forEach(v -> j.value(v));
        j.endArray();
    }

    static void stats(Json j, QueueStats s) {
        j.beginObject().field("ready", s.ready()).field("scheduled", s.scheduled()).field("leased", s.leased())
                .field("dead", s.dead()).field("total", s.total()).endObject();
    }

    static void rateWindow(Json j, RateWindow w) {
        j.beginObject().field("limit", w.limit()).field("windowMillis", w.window().toMillis())
                .field("started", w.started()).field("remaining", w.remaining()).field("total", w.total())
                .field("lastStart", w.lastStart()).endObject();
    }

    static void jobs(Json j, List<Job> jobs) {
        j.beginArray();
        for (Job job : jobs) {
            j.beginObject().field("id", job.id()).field("priority", job.priority()).field("attempts", job.failures())
                    .field("enqueuedAt", job.enqueuedAt()).field("key", job.key()).field("lastError", job.lastError())
                    .field("payload", job.payload()).endObject();
        }
        j.endArray();
    }

    /** Writes a job as an object: every field of {@link JobInfo}, the whole payload and error. */
    static void job(Json j, JobInfo job) {
        j.beginObject().field("id", job.id()).field("state", job.state().name().toLowerCase(Locale.ROOT))
                .field("priority", job.priority()).field("attempts", job.failures())
                .field("enqueuedAt", job.enqueuedAt()).field("dueAt", job.dueAt())
                .field("leaseUntil", job.leaseUntil());
        j.name("leaseToken");
        if (job.leaseToken() != 0) {
            j.value(job.leaseToken());
        } else {
            j.nullValue();
        }
        j.field("key", job.key()).field("uniqueKey", job.uniqueKey()).field("lastError", job.lastError())
                .field("payload", job.payload()).endObject();
    }

    /** Writes a schedule as an object: its definition, state and next fire times. */
    static void schedule(Json j, ScheduleInfo s, List<Instant> next) {
        j.beginObject().field("name", s.name()).field("schedule", s.schedule().toString())
                .field("zone", s.schedule() instanceof dev.rowqueue.CronSchedule c ? Pages.zoneName(c.zone()) : null).field("queue", s.options().queue())
                .field("payload", s.options().payload()).field("key", s.options().key())
                .field("missed", s.options().missed().toString()).field("paused", s.paused());
        j.name("next").beginArray();
        next.forEach(j::value);
        j.endArray();
        j.name("waitingFor");
        if (s.waitingFor() >= 0) {
            j.value(s.waitingFor());
        } else {
            j.nullValue();
        }
        j.field("createdAt", s.created()).endObject();
    }

    static void entry(Json j, RingEntry e) {
        j.beginObject().field("seq", e.seq()).field("pushedAt", e.pushedAt()).field("payload", e.payload()).endObject();
    }
}
