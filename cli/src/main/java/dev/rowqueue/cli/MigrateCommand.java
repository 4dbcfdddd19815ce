package dev.rowqueue.cli;

import dev.rowqueue.QueueInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Moves queues between two databases, resumably, and verifies them. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Copies rings, work queues and counters from one database to another, in batches, and"
                + " verifies every table at the end (row counts and checksums on both sides). Ring sequence numbers,"
                + " job ids, states, attempts, due times, last errors and rotation cursors are kept; leased jobs"
                + " arrive ready. Stop producers and consumers on the source first.",
            "Interrupted? Run the same command again: it continues after the last committed batch (checkpoints"
                + " live in the target table rowqueue_migration)."})
final class MigrateCommand extends BaseCommand {

    @Option(names = "--from", required = true, paramLabel = "JDBC_URL", description = "the source database")
    String fromUrl;

    @Option(names = "--from-user", paramLabel = "USER",
            description = "the source user; password from ROWQUEUE_FROM_PASSWORD, ROWQUEUE_PASSWORD or a prompt")
    String fromUser;

    @Option(names = {"-u", "--user"}, paramLabel = "USER",
            description = "the user on both sides, unless --from-user or --to-user names another")
    String user;

    @Option(names = "--password-prompt",
            description = "ask for the passwords on the terminal before connecting (otherwise only when a database"
                    + " refuses the connection without one)")
    boolean passwordPrompt;

    @Option(names = "--from-dialect", paramLabel = "NAME", converter = DialectName.class,
            description = "force the source's dialect")
    String fromDialect;

    @Option(names = "--to", required = true, paramLabel = "JDBC_URL", description = "the target database")
    String toUrl;

    @Option(names = "--to-user", paramLabel = "USER",
            description = "the target user; password from ROWQUEUE_TO_PASSWORD, ROWQUEUE_PASSWORD or a prompt")
    String toUser;

    @Option(names = "--to-dialect", paramLabel = "NAME", converter = DialectName.class, description = "force the target's dialect")
    String toDialect;

    @Option(names = "--to-dialect-option", paramLabel = "KEY=VALUE", description = "a target dialect option")
    Map<String, String> toOptions = new LinkedHashMap<>();

    @Option(names = "--queue", paramLabel = "NAME", arity = "1..*",
            description = "the queues to move (default: every queue of the source's catalog)")
    List<String> queues = new ArrayList<>();

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "500",
            description = "rows per batch and transaction (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--fresh", description = "drop the selected queues on the target and forget their checkpoints,"
            + " then copy them from scratch")
    boolean fresh;

    @Option(names = "--driver-jar", paramLabel = "PATH",
            description = "a JDBC driver jar (or a directory of jars) to load, for drivers the jar does not bundle")
    List<Path> driverJars = new ArrayList<>();

    /** Replaced by tests to interrupt a migration. */
    Migration.Listener hook = new Migration.Listener() {
    };

    @Override
    int run() throws SQLException {
        useDriverJars(driverJars);
        if (fromUrl.equals(toUrl)) {
            throw new IllegalArgumentException("--from and --to are the same database");
        }
        Migration.Options options = new Migration.Options(batchSize, fresh);
        String sourceUser = fromUser != null ? fromUser : user;
        String targetUser = toUser != null ? toUser : user;
        Endpoint source = new Endpoint(fromUrl, sourceUser, Endpoint.password(env(), "ROWQUEUE_FROM_PASSWORD",
                RowQueueCli.PASSWORD_ENV), fromDialect, Map.of()).authenticated(env(), passwordPrompt);
        Endpoint target = new Endpoint(toUrl, targetUser, Endpoint.password(env(), "ROWQUEUE_TO_PASSWORD",
                RowQueueCli.PASSWORD_ENV), toDialect, toOptions).authenticated(env(), passwordPrompt);
        Terminal t = terminal();
        try (Endpoint.Opened from = source.open(false); Endpoint.Opened to = target.open(true);
             Terminal.ProgressBar bar = t.progress("migrate", 0)) {
            Migration migration = new Migration(from, to, options, new Migration.Listener() {
                @Override
                public void started(long totalRows) {
                    bar.total(totalRows);
                }

                @Override
                public void progress(String queue, String part, long done) {
                    bar.update(done, queue + " " + part);
                }

                @Override
                public void beforeCommit(String queue, String part, int batch) throws SQLException {
                    hook.beforeCommit(queue, part, batch);
                }

                @Override
                public void note(String line) {
                    bar.close();
                    t.println(line);
                }
            });
            List<QueueInfo> chosen = migration.select(queues);
            t.println("Migrating " + chosen.size() + (chosen.size() == 1 ? " queue" : " queues") + " from "
                    + from.describe() + " to " + to.describe() + " ...");
            MigrationReport report;
            try {
                report = migration.run(chosen);
            } catch (CliException e) {
                throw e;
            } catch (SQLException | RuntimeException e) {
                bar.close();
                throw new CliException(ExitCode.DATABASE, "migration interrupted: " + e.getMessage()
                        + ". Run the same command again to continue after the last committed batch.", e);
            }
            bar.close();
            report.print(t);
            return report.verified() ? ExitCode.OK : ExitCode.FAILED;
        }
    }
}
