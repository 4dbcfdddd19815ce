package dev.rowqueue.cli;

import dev.rowqueue.MissedSlots;
import dev.rowqueue.ScheduleConflictException;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.List;
import java.util.NoSuchElementException;

/** Recurring jobs: {@code schedule list|add|pause|resume|trigger|delete|next}. */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = "Define, list, pause, resume, trigger and delete recurring jobs (schedules).",
        subcommands = {ScheduleCommand.ListSchedules.class, ScheduleCommand.Add.class, ScheduleCommand.Pause.class,
                ScheduleCommand.Resume.class, ScheduleCommand.Trigger.class, ScheduleCommand.Delete.class,
                ScheduleCommand.Next.class})
final class ScheduleCommand extends GroupCommand {

    /** A schedule command; the command line never runs a scheduler itself. */
    abstract static class OnSchedules extends BaseCommand {
        @Mixin
        ConnectionOptions connection;

        /** The open database, while {@link #run(Schedules)} runs. */
        dev.rowqueue.RowQueues rq;

        @Override
        final int run() {
            try (Endpoint.Opened db = connection.endpoint(this).open(true)) {
                rq = db.rq();
                return run(db.rq().schedules());
            } catch (ScheduleConflictException e) {
                // the API's advice names its method; on the command line it is the flag
                throw new CliException(ExitCode.USAGE, e.getMessage().replace("use replace to change it",
                        "add --replace to replace it"), e);
            } catch (NoSuchElementException e) {
                throw new CliException(ExitCode.NOT_FOUND, e.getMessage(), e);
            }
        }

        /**
         * @param schedules the database's schedules
         * @return the exit code
         */
        abstract int run(Schedules schedules);

        static NoSuchElementException unknown(String name) {
            return new NoSuchElementException("no schedule named '" + name + "'");
        }
    }

    /** {@code schedule list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the schedules with their next slot.")
    static final class ListSchedules extends OnSchedules {
        @Override
        int run(Schedules schedules) {
            List<ScheduleInfo> all = schedules.list();
            if (all.isEmpty()) {
                terminal().println("No schedules in this database.");
                return ExitCode.OK;
            }
            java.util.Map<String, Instant> last = schedules.lastFires();
            Table t = new Table("name", "schedule", "queue", "next slot", "last fire", "state", "missed slots");
            for (ScheduleInfo s : all) {
                Instant fired = last.get(s.name());
                t.row(s.name(), s.schedule(), s.options().queue(), s.nextFire(), fired == null ? "never" : fired,
                        s.paused() ? "paused" : "active", s.options().missed());
            }
            terminal().print(t);
            terminal().println(schedulers(rq.nodes()));
            return ExitCode.OK;
        }

        /** @return which scheduler processes are alive (their nodes' heartbeats), or that none was seen */
        static String schedulers(List<dev.rowqueue.NodeInfo> nodes) {
            List<dev.rowqueue.NodeInfo> alive = nodes.stream().filter(n -> n.scheduler() && n.alive()).toList();
            if (alive.isEmpty()) {
                return "No scheduler seen in the last " + dev.rowqueue.NodeInfo.ALIVE_WITHIN.toSeconds() + " s: due"
                        + " schedules do not fire until a process runs one (RowQueues.schedules() with its scheduler"
                        + " on; this command never does).";
            }
            return (alive.size() == 1 ? "1 scheduler alive: " : alive.size() + " schedulers alive: ")
                    + String.join("; ", alive.stream().map(n -> n.describe() + " (last seen "
                            + n.silentFor().toSeconds() + " s ago)").toList());
        }
    }

    /** {@code schedule add}. */
    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Defines a schedule; the same definition again changes nothing, another one is a conflict"
                    + " (exit 2) unless --replace.")
    static final class Add extends OnSchedules {
        @Parameters(index = "0", paramLabel = "NAME", description = "the schedule's name")
        String name;

        @Parameters(index = "1", paramLabel = "SCHEDULE", description = "a cron expression (quoted: '0 9 * * MON-FRI'),"
                + " or rate:PT10S, delay:PT1M, cron:<expression>@<zone>")
        String spec;

        @Option(names = "--queue", required = true, paramLabel = "QUEUE", description = "the existing work queue")
        String queue;

        @Option(names = "--payload", paramLabel = "TEMPLATE", description = "the jobs' payload; {slot}, {slot_ms} and"
                + " {schedule} are replaced (default: " + ScheduleOptions.DEFAULT_PAYLOAD + ")")
        String payload;

        @Option(names = "--key", paramLabel = "TEMPLATE", description = "the jobs' key, with the same placeholders")
        String key;

        @Option(names = "--zone", paramLabel = "ZONE", description = "the cron expression's time zone (default UTC)")
        String zone;

        @Option(names = "--missed", paramLabel = "POLICY", description = "SKIP, ONCE (default) or EACH:<cap>")
        String missed;

        @Option(names = "--replace", description = "replace an existing definition of that name")
        boolean replace;

        @Override
        int run(Schedules schedules) {
            ScheduleOptions o = ScheduleOptions.forQueue(queue);
            Catalog.require(rq, queue, dev.rowqueue.QueueKind.WORK);
            if (payload != null) {
                o = o.withPayload(payload);
            }
            if (key != null) {
                o = o.withKey(key);
            }
            if (zone != null) {
                o = o.withZone(zone);
            }
            if (missed != null) {
                o = o.withMissed(MissedSlots.parse(missed));
            }
            ScheduleInfo info = replace
                    ? schedules.replace(name, spec, o)
                    : schedules.define(name, spec, o);
            terminal().println("schedule " + info.name() + ": " + info.schedule() + " into " + info.options().queue()
                    + ", next slot " + info.nextFire());
            return ExitCode.OK;
        }
    }

    /** A command on one schedule, named by the first parameter. */
    abstract static class OnOneSchedule extends OnSchedules {
        @Parameters(index = "0", paramLabel = "NAME", description = "the schedule")
        String name;
    }

    /** A change of one schedule that reports whether the schedule existed: pause, resume, delete. */
    abstract static class Change extends OnOneSchedule {
        private final String done;
        private final java.util.function.BiPredicate<Schedules, String> change;

        /**
         * @param done   the past participle printed after the change, such as "paused"
         * @param change the change; false if there was no schedule of that name
         */
        Change(String done, java.util.function.BiPredicate<Schedules, String> change) {
            this.done = done;
            this.change = change;
        }

        @Override
        final int run(Schedules schedules) {
            if (!change.test(schedules, name)) {
                throw unknown(name);
            }
            terminal().println(done + " schedule " + name);
            return ExitCode.OK;
        }
    }

    /** {@code schedule pause}. */
    @Command(name = "pause", mixinStandardHelpOptions = true, description = "Pauses a schedule.")
    static final class Pause extends Change {
        Pause() {
            super("paused", Schedules::pause);
        }
    }

    /** {@code schedule resume}. */
    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = "Resumes a schedule; the slots that went by are missed slots (its policy applies).")
    static final class Resume extends Change {
        Resume() {
            super("resumed", Schedules::resume);
        }
    }

    /** {@code schedule trigger}. */
    @Command(name = "trigger", mixinStandardHelpOptions = true,
            description = "Enqueues the schedule's job now, without moving its slots.")
    static final class Trigger extends OnOneSchedule {
        @Override
        int run(Schedules schedules) {
            long id = schedules.triggerNow(name);
            terminal().println("enqueued job " + id + " of schedule " + name);
            return ExitCode.OK;
        }
    }

    /** {@code schedule delete}. */
    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Deletes a schedule; the jobs it enqueued stay.")
    static final class Delete extends Change {
        Delete() {
            super("deleted", Schedules::delete);
        }
    }

    /** {@code schedule next}. */
    @Command(name = "next", mixinStandardHelpOptions = true, description = "Prints a schedule's next slots.")
    static final class Next extends OnOneSchedule {
        @Option(names = {"-n", "--count"}, paramLabel = "N", defaultValue = "5",
                description = "how many (default: ${DEFAULT-VALUE}, at most 1000)")
        int count;

        @Override
        int run(Schedules schedules) {
            for (Instant i : schedules.next(name, count)) {
                terminal().println(i.toString());
            }
            return ExitCode.OK;
        }
    }
}
