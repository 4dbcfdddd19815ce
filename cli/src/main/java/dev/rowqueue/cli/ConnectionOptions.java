package dev.rowqueue.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The options of a command that talks to one database. */
final class ConnectionOptions {

    @Option(names = "--url", required = true, paramLabel = "JDBC_URL",
            description = "the database, e.g. jdbc:postgresql://localhost:5432/app")
    String url;

    @Option(names = {"-u", "--user"}, paramLabel = "USER",
            description = "the database user; the password comes from ROWQUEUE_PASSWORD, or from a prompt on a"
                    + " terminal when the database refuses the connection without one")
    String user;

    @Option(names = "--password-prompt", description = "ask for the password on the terminal before connecting")
    boolean passwordPrompt;

    @Option(names = "--dialect", paramLabel = "NAME", converter = DialectName.class,
            description = "force a dialect instead of detecting one (see 'rowqueue dialects')")
    String dialect;

    @Option(names = "--dialect-option", paramLabel = "KEY=VALUE", description = "a dialect-specific option")
    Map<String, String> options = new LinkedHashMap<>();

    @Option(names = "--driver-jar", paramLabel = "PATH",
            description = "a JDBC driver jar (or a directory of jars) to load, for drivers the jar does not bundle")
    List<Path> driverJars = new ArrayList<>();

    /**
     * @param command the running command (for its environment and driver jars)
     * @return the endpoint, with its password resolved
     */
    Endpoint endpoint(BaseCommand command) {
        command.useDriverJars(driverJars);
        return new Endpoint(url, user, Endpoint.password(command.env(), RowQueueCli.PASSWORD_ENV), dialect, options)
                .authenticated(command.env(), passwordPrompt);
    }
}
