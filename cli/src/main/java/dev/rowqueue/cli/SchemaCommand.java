package dev.rowqueue.cli;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.SchemaDifference;
import dev.rowqueue.SchemaScripts;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.DialectProviders;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prints a queue's DDL for a dialect without connecting to a database; with {@code --check --url}, compares a live
 * database with what the dialect would create.
 */
@Command(name = "schema",
        description = {"Prints the DDL of a queue (or of the schedule tables) for a dialect, without a database connection, for migration tools"
                + " such as Flyway or Liquibase (then build RowQueues with createSchema(false)).",
                "With --check --url URL: compares the live database (its catalogue: tables, columns, NOT NULL, primary"
                        + " keys, indexes) with what the dialect would create for the catalog and every queue in it;"
                        + " exit 0 when it matches, 1 with the list of differences and the DDL of each."})
final class SchemaCommand extends BaseCommand {

    /** Product names and versions assumed for well-known dialect names when --product or --version is absent. */
    static final Map<String, String[]> ASSUMED = Map.ofEntries(
            Map.entry("h2", new String[] {"H2", "2.3"}),
            Map.entry("postgresql", new String[] {"PostgreSQL", "17.0"}),
            Map.entry("mysql", new String[] {"MySQL", "8.4"}),
            Map.entry("mariadb", new String[] {"MariaDB", "11.4"}),
            Map.entry("oracle", new String[] {"Oracle", "23.0"}),
            Map.entry("db2", new String[] {"DB2/LINUXX8664", "12.1"}),
            Map.entry("sqlite", new String[] {"SQLite", "3.45"}),
            Map.entry("portable", new String[] {"SQL", "1.0"}));

    private static final Pattern VERSION = Pattern.compile("(\\d+)(?:\\.(\\d+))?.*");

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "--dialect", paramLabel = "NAME", converter = DialectName.class,
            description = "the dialect whose DDL to print (see 'rowqueue dialects'; postgres, pg and pgsql mean"
                    + " postgresql, maria means mariadb); with --check, a dialect to force instead of detecting one")
    String dialect;

    @Option(names = "--check", negatable = false,
            description = "compare the database of --url with what the dialect would create (exit 0: it matches;"
                    + " 1: the differences are listed)")
    boolean check;

    @Option(names = "--url", paramLabel = "JDBC_URL", description = "with --check: the database to check")
    String url;

    @Option(names = {"-u", "--user"}, paramLabel = "USER",
            description = "with --check: the database user; the password comes from ROWQUEUE_PASSWORD, or from a"
                    + " prompt on a terminal when the database refuses the connection without one")
    String user;

    @Option(names = "--password-prompt", description = "with --check: ask for the password before connecting")
    boolean passwordPrompt;

    @Option(names = "--dialect-option", paramLabel = "KEY=VALUE",
            description = "with --check: a dialect-specific option")
    Map<String, String> dialectOptions = new LinkedHashMap<>();

    @Option(names = "--version", paramLabel = "X.Y",
            description = "the database version to assume, for version-gated DDL (default: a current release)")
    String version;

    @Option(names = "--product", paramLabel = "NAME",
            description = "the database product name to assume (default: the one the dialect serves)")
    String product;

    @Option(names = "--no-catalog", negatable = false,
            description = "leave out the catalog table rowqueue_catalog (needed once per database)")
    boolean noCatalog;

    @Option(names = "--no-delimiter", negatable = false,
            description = "mysql and mariadb: print statements with compound bodies (triggers) as they are, ending in"
                    + " ';', instead of between 'DELIMITER //' and '//' as the mysql and mariadb clients need")
    boolean noDelimiter;

    @Option(names = "--driver-jar", paramLabel = "PATH", description = "a jar with a dialect module to load")
    List<Path> driverJars = new ArrayList<>();

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Queue queue;

    /** Exactly one queue. */
    static final class Queue {
        @ArgGroup(exclusive = false)
        Ring ring;

        @Option(names = "--work", paramLabel = "T", description = "a work queue")
        String work;

        @Option(names = "--counters", paramLabel = "T", description = "a counters table")
        String counters;

        @Option(names = "--upgrade-work", paramLabel = "T",
                description = "the statements that upgrade a work queue created with schema version 1 (before keyed"
                        + " jobs) to the current version")
        String upgradeWork;

        @Option(names = "--schedules", negatable = false,
                description = "the schedule tables rowqueue_schedules and rowqueue_schedule_slots (once per database,"
                        + " for schedules of any work queue)")
        boolean schedules;
    }

    /** A ring and its options. */
    static final class Ring {
        @Option(names = "--ring", required = true, paramLabel = "T", description = "a ring queue")
        String name;

        @Option(names = "--capacity", required = true, paramLabel = "N", description = "the ring's capacity")
        int capacity;

        @Option(names = "--strategy", paramLabel = "S", defaultValue = "SAFE",
                description = "SAFE (default), SINGLE_WRITER or TRIGGER, where the dialect offers it")
        RingStrategy strategy;
    }

    @Override
    int run() {
        useDriverJars(driverJars);
        if (check || url != null) {
            if (!check || url == null || queue != null) {
                throw new IllegalArgumentException("--check and --url go together, without a queue option: 'rowqueue"
                        + " schema --check --url JDBC_URL' checks the catalog and every queue in it");
            }
            return check();
        }
        if (dialect == null || queue == null) {
            throw new IllegalArgumentException("give --dialect NAME and one of --ring/--work/--counters/--upgrade-work"
                    + "/--schedules to print DDL, or --check --url JDBC_URL to check a database");
        }
        DialectProvider provider = DialectProviders.named(dialect);
        String[] assumed = ASSUMED.get(provider.name().toLowerCase(Locale.ROOT));
        String productName = product != null ? product : assumed != null ? assumed[0] : provider.name();
        String v = version != null ? version : assumed != null ? assumed[1] : null;
        if (v == null) {
            throw new IllegalArgumentException("dialect '" + provider.name() + "' has no assumed version here: give"
                    + " --version X.Y (and --product NAME if it checks the product name)");
        }
        Matcher m = VERSION.matcher(v.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("--version must look like 16 or 16.4, got '" + v + "'");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
        DatabaseProduct assumedProduct = DatabaseProduct.assumed(productName, major, minor);
        if (!provider.supports(assumedProduct)) {
            terminal().err().println("rowqueue: schema: note: dialect '" + provider.name() + "' does not recognise "
                    + assumedProduct.describe() + "; printing its DDL anyway");
        }
        Dialect d = provider.create(assumedProduct, new LinkedHashMap<>());
        SchemaScripts scripts = SchemaScripts.of(d);
        List<String> statements = new ArrayList<>();
        String what;
        if (queue.ring != null) {
            statements.addAll(scripts.ring(queue.ring.name, new RingOptions(queue.ring.capacity,
                    queue.ring.strategy)));
            what = "ring " + queue.ring.name.toLowerCase(Locale.ROOT) + " (capacity " + queue.ring.capacity
                    + ", strategy " + queue.ring.strategy + ")";
        } else if (queue.work != null) {
            statements.addAll(scripts.workQueue(queue.work));
            what = "work queue " + queue.work.toLowerCase(Locale.ROOT);
        } else if (queue.upgradeWork != null) {
            statements.addAll(scripts.workQueueUpgrade(queue.upgradeWork));
            String name = queue.upgradeWork.toLowerCase(Locale.ROOT);
            statements.add("UPDATE rowqueue_catalog SET schema_version = " + dev.rowqueue.spi.Schema.VERSION
                    + " WHERE queue_name = '" + name + "'");
            what = "upgrade of work queue " + name + " from schema version 1 to " + dev.rowqueue.spi.Schema.VERSION
                    + " (key columns and their indexes; run once; the catalog update last)";
        } else if (queue.schedules) {
            statements.addAll(scripts.schedules());
            what = "schedule tables";
        } else {
            statements.addAll(scripts.counters(queue.counters));
            what = "counters " + queue.counters.toLowerCase(Locale.ROOT);
        }
        StringBuilder b = new StringBuilder();
        b.append("-- rowqueue DDL for ").append(what).append(", dialect ").append(d.name()).append(", assuming ")
                .append(assumedProduct.describe()).append('\n');
        if (!noCatalog && queue.upgradeWork == null) {
            b.append("-- the catalog (once per database; rowqueue registers each queue in it on first use)\n")
                    .append(script(scripts, scripts.catalog(), d));
        }
        b.append("-- the ").append(what).append('\n').append(script(scripts, statements, d));
        terminal().out().print(b);
        terminal().out().flush();
        return ExitCode.OK;
    }

    /**
     * Compares the database with what its dialect would create ({@link dev.rowqueue.RowQueues#checkSchema()}),
     * creating nothing.
     *
     * @return {@link ExitCode#OK} when it matches, {@link ExitCode#FAILED} with the differences listed
     */
    private int check() {
        Endpoint endpoint = new Endpoint(url, user, Endpoint.password(env(), RowQueueCli.PASSWORD_ENV), dialect,
                dialectOptions).authenticated(env(), passwordPrompt);
        try (Endpoint.Opened db = endpoint.open(false)) {
            Terminal t = terminal();
            t.println(db.describe());
            List<SchemaDifference> differences = db.rq().checkSchema();
            String dialectName = db.rq().database().dialect();
            if (differences.isEmpty()) {
                t.println("The schema matches what dialect " + dialectName + " creates: the catalog and "
                        + Catalog.queues(db.rq()).size() + " queue(s) checked.");
                return ExitCode.OK;
            }
            long guarantees = differences.stream().filter(SchemaDifference::guarantee).count();
            t.println(differences.size() + " difference(s) from what dialect " + dialectName + " creates ("
                    + guarantees + " that guarantees depend on, " + (differences.size() - guarantees)
                    + " that serve speed only):");
            for (SchemaDifference d : differences) {
                t.println("  " + (d.guarantee() ? "GUARANTEE " : "SPEED     ") + d);
            }
            return ExitCode.FAILED;
        }
    }

    /**
     * The statements as one script. The mysql and mariadb clients end a statement at the first {@code ;}, also inside
     * a trigger's {@code BEGIN ... END}: for those dialects a statement that contains one goes between
     * {@code DELIMITER //} and {@code //}, unless {@code --no-delimiter}.
     */
    private String script(SchemaScripts scripts, List<String> statements, Dialect d) {
        String name = d.name().toLowerCase(Locale.ROOT);
        if (noDelimiter || !(name.equals("mysql") || name.equals("mariadb"))
                || statements.stream().noneMatch(s -> s.contains(";"))) {
            return scripts.script(statements);
        }
        StringBuilder b = new StringBuilder();
        for (String statement : statements) {
            if (statement.contains(";")) {
                b.append("DELIMITER //\n").append(statement).append("\n//\nDELIMITER ;\n");
            } else {
                b.append(statement).append(";\n");
            }
        }
        return b.toString();
    }
}
