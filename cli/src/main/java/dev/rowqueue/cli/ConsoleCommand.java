package dev.rowqueue.cli;

import dev.rowqueue.console.Console;
import dev.rowqueue.console.ConsoleServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/** {@code console}: serves the operator console until stopped. */
@Command(name = "console", mixinStandardHelpOptions = true,
        description = {"Serves the operator console: queues, dead letters, rings and counters in a browser, and the"
                + " same data as JSON. Runs until stopped (Ctrl-C).",
            "Every request needs the console's token: ROWQUEUE_CONSOLE_TOKEN, or a random one printed at start."
                    + " Browsers sign in once; scripts send 'Authorization: Bearer TOKEN'. See docs/console.md."})
final class ConsoleCommand extends BaseCommand {
    /** Environment variable holding the console's token. */
    static final String TOKEN_ENV = "ROWQUEUE_CONSOLE_TOKEN";

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "the port (default: ${DEFAULT-VALUE}; 0 picks a free one)")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "the address to listen on (default: ${DEFAULT-VALUE}, this machine only)")
    String bind;

    @Option(names = "--read-only", description = "serve no change at all: no revive, no purge, no buttons")
    boolean readOnly;

    @Option(names = "--refresh", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "10s",
            description = "how often open pages refresh and reads are reused (default: ${DEFAULT-VALUE})")
    Duration refresh;

    /**
     * What a running console tells a test: where it answers, its token, and how to stop it.
     *
     * @param uri   where it answers
     * @param token its token
     * @param stop  stops it (the command then returns)
     */
    record Started(URI uri, String token, Runnable stop) {
    }

    /** Told when the console answers; tests set it to drive the console and stop it. */
    Consumer<Started> started = s -> { };

    @Override
    int run() throws InterruptedException {
        if (System.getProperty("org.slf4j.simpleLogger.log.dev.rowqueue.console") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.dev.rowqueue.console", "info"); // the audit log
        }
        String token = env().getenv(TOKEN_ENV);
        boolean generated = token == null || token.isEmpty();
        if (generated) {
            token = Console.randomToken();
        }
        Console.Builder builder;
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--bind " + bind + ": no such address");
        }
        try (Endpoint.Opened db = connection.endpoint(this).open(false)) {
            try {
                builder = Console.builder(db.rq()).token(token).readOnly(readOnly).refresh(refresh);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException((generated ? "" : TOKEN_ENV + ": ") + e.getMessage());
            }
            ConsoleServer server;
            try {
                server = ConsoleServer.start(builder, new InetSocketAddress(address, port));
            } catch (UncheckedIOException e) {
                throw new CliException(ExitCode.USAGE, e.getMessage(), e);
            }
            CountDownLatch stopped = new CountDownLatch(1);
            Thread hook = new Thread(() -> {
                server.close();
                stopped.countDown();
            }, "rowqueue-console-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                Terminal t = terminal();
                t.println("rowqueue console on " + db.describe() + ", " + db.endpoint().displayUrl());
                t.println("  " + t.bold(server.uri().toString()) + (readOnly ? "  (read-only)" : ""));
                t.println(generated ? "  token: " + token + "  (random for this run; set " + TOKEN_ENV
                        + " to choose one)" : "  token: from " + TOKEN_ENV + " (" + Console.tokenId(token) + ")");
                if (!address.isLoopbackAddress()) {
                    t.println(t.yellow("  listening beyond this machine over plain HTTP: the token and the session"
                            + " cookie cross the network unencrypted; put a TLS proxy in front"));
                }
                t.println("Stop with Ctrl-C.");
                t.out().flush();
                started.accept(new Started(server.uri(), token, stopped::countDown));
                stopped.await();
            } finally {
                server.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running: the JVM is on its way out
                }
            }
            return ExitCode.OK;
        }
    }
}
