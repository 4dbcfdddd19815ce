package dev.rowqueue.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves a {@link Console} with the JDK's own HTTP server ({@code com.sun.net.httpserver}), on a few daemon threads.
 * Request bodies are limited to {@value #MAX_BODY} bytes (forms are small).
 */
public final class ConsoleServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);
    /** The largest request body read. */
    public static final int MAX_BODY = 64 * 1024;
    private static final int THREADS = 4;

    private final HttpServer server;
    private final ExecutorService executor;
    private final URI uri;

    private ConsoleServer(HttpServer server, ExecutorService executor, URI uri) {
        this.server = server;
        this.executor = executor;
        this.uri = uri;
    }

    /**
     * Builds the console with the given builder and serves it on an address. A loopback address also restricts the
     * {@code Host} header to loopback names ({@link Console.Builder#allowedHosts}), against DNS rebinding.
     *
     * @param console the console's builder, configured
     * @param address where to listen; port 0 picks a free port
     * @return the running server
     * @throws UncheckedIOException if the address cannot be bound
     */
    public static ConsoleServer start(Console.Builder console, InetSocketAddress address) {
        InetAddress a = address.getAddress();
        if (a != null && a.isLoopbackAddress()) {
            console.allowedHosts(new java.util.TreeSet<>(List.of("localhost", "127.0.0.1", "[::1]", hostLiteral(a))));
        }
        return start(console.build(), address);
    }

    /**
     * Serves a console on an address, as it is configured.
     *
     * @param console the console
     * @param address where to listen; port 0 picks a free port
     * @return the running server
     * @throws UncheckedIOException if the address cannot be bound
     */
    public static ConsoleServer start(Console console, InetSocketAddress address) {
        HttpServer server;
        try {
            server = HttpServer.create(address, 50);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
        AtomicInteger threads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "rowqueue-console-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> serve(console, exchange));
        server.start();
        InetSocketAddress bound = server.getAddress();
        URI uri = URI.create("http://" + hostLiteral(bound.getAddress()) + ":" + bound.getPort() + "/");
        log.debug("rowqueue console listening on {}", uri);
        return new ConsoleServer(server, executor, uri);
    }

    private static String hostLiteral(InetAddress a) {
        String h = a.getHostAddress();
        return h.contains(":") ? "[" + h.replaceAll("%.*", "") + "]" : h;
    }

    /** @return where the console answers, e.g. {@code http://127.0.0.1:8080/} */
    public URI uri() {
        return uri;
    }

    /** @return the port listened on */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops listening at once and ends the server's threads. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void serve(Console console, HttpExchange exchange) throws IOException {
        try (exchange) {
            ConsoleResponse response;
            try {
                response = console.handle(request(exchange));
            } catch (BodyTooLarge e) {
                response = Console.withSecurityHeaders(ConsoleResponse.text(413, "Request body too large.\n"));
            } catch (IllegalArgumentException e) {
                response = Console.withSecurityHeaders(ConsoleResponse.text(400, "Malformed request.\n"));
            }
            for (Map.Entry<String, List<String>> h : response.headers().entrySet()) {
                exchange.getResponseHeaders().put(h.getKey(), h.getValue());
            }
            byte[] body = response.rawBody();
            boolean head = exchange.getRequestMethod().equalsIgnoreCase("HEAD");
            exchange.sendResponseHeaders(response.status(), head || body.length == 0 ? -1 : body.length);
            if (!head && body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    private static final class BodyTooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BodyTooLarge() {
            super(null, null, false, false);
        }
    }

    private static ConsoleRequest request(HttpExchange exchange) throws IOException {
        URI u = exchange.getRequestURI();
        ConsoleRequest.Builder b = ConsoleRequest.builder(exchange.getRequestMethod(), u.getRawPath() == null ? "/"
                        : u.getRawPath())
                .query(u.getRawQuery())
                .remoteAddress(exchange.getRemoteAddress().getAddress().getHostAddress());
        exchange.getRequestHeaders().forEach((name, values) -> values.forEach(v -> b.header(name, v)));
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            b.form(ConsoleRequest.parseUrlEncoded(new String(body(exchange.getRequestBody()), StandardCharsets.UTF_8)));
        } else {
            body(exchange.getRequestBody()); // read and drop, within the limit
        }
        return b.build();
    }

    private static byte[] body(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_BODY + 1);
        if (b.length > MAX_BODY) {
            throw new BodyTooLarge();
        }
        return b;
    }
}
