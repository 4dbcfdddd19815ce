package dev.rowqueue.console;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.DriverManagerDataSource;

import javax.sql.DataSource;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A console on a fresh in-memory H2 database, served on a free loopback port: a work queue {@code mail} with dead
 * letters (one with a script for a payload), a ring {@code fruit}, a counters table {@code booksales}.
 */
final class ConsoleFixture implements AutoCloseable {
    /** The token the fixture's console is started with. */
    static final String TOKEN = "test-token-0123456789abcdef";
    static final String SCRIPT = "<script>alert(1)</script>";

    final String url;
    final DataSource dataSource;
    final RowQueues rq;
    final WorkQueue mail;
    final ConsoleServer server;
    final Console console;
    final List<Long> dead;

    ConsoleFixture(UnaryOperator<Console.Builder> configure) {
        url = "jdbc:h2:mem:console_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        dataSource = new DriverManagerDataSource(url, "sa", "");
        rq = RowQueues.builder(dataSource).build();
        mail = rq.workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1));
        dead = List.of(
                dead(mail, "hello bob", "SMTP 550 mailbox unavailable"),
                dead(mail, SCRIPT, "<img src=x onerror=alert(2)>"),
                dead(mail, "{\"to\":\"carol@example.com\",\"body\":\"" + "x".repeat(300) + "\"}", "timeout\nat line 2"));
        mail.enqueue("ready one");
        mail.enqueue("later", Enqueue.defaults().withDelay(Duration.ofHours(1)));
        rq.ring("fruit", 5).pushAll("basket", List.of("apples", "pears", "<b>plums</b>"));
        rq.ring("fruit", 5).push("\"><script>alert(3)</script>", "evil group");
        rq.counters("booksales").increment("Bulldozer", 13);
        rq.counters("booksales").increment("<i>key</i>", 2);
        Console.Builder b = configure.apply(Console.builder(rq).token(TOKEN));
        server = ConsoleServer.start(b, new InetSocketAddress("127.0.0.1", 0));
        console = null;
    }

    ConsoleFixture() {
        this(b -> b);
    }

    static long dead(WorkQueue q, String payload, String error) {
        long id = q.enqueue(payload);
        Job job = q.claim(1).stream().filter(j -> j.id() == id).findFirst().orElseThrow();
        q.nack(job, Duration.ZERO, error);
        return id;
    }

    URI uri(String path) {
        return server.uri().resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    Http http() {
        return new Http(server.uri());
    }

    @Override
    public void close() throws SQLException {
        server.close();
        rq.close();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }
}
