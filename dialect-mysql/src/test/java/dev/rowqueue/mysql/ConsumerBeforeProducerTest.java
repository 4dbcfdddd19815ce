package dev.rowqueue.mysql;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.EmbeddedMariaDbServer;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer that starts before any producer, on a new database, makes MariaDB Connector/J log nothing at WARN
 * (issue 37, part 4): the driver logs every error the server answers at WARN, so rowqueue must not send statements
 * that fail on tables that are not there yet.
 */
class ConsumerBeforeProducerTest {

    @Test
    void claims_on_a_queue_no_producer_made_yet_make_the_driver_log_no_warning() {
        EmbeddedMariaDbServer server = EmbeddedMariaDbServer.shared();
        DataSource ds = server.dataSource(server.newDatabase("early"));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                captured.write(b);
                err.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                captured.write(b, off, len);
                err.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8));
        try (RowQueues consumer = RowQueues.builder(ds).build()) {
            WorkQueue q = consumer.workQueue("late_jobs");
            for (int i = 0; i < 5; i++) {
                assertEquals(List.of(), q.claim(1));
            }
            assertEquals(0, q.stats().total());
            try (RowQueues producer = RowQueues.builder(ds).build()) {
                producer.workQueue("late_jobs").enqueue("made later");
            }
            List<Job> got = q.claim(1);
            assertEquals(1, got.size(), "the consumer sees the queue once the producer made it");
            assertTrue(q.ack(got.get(0)));
        } finally {
            System.setErr(err);
        }
        List<String> driver = captured.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("WARN") && l.contains("org.mariadb")).toList();
        assertEquals(List.of(), driver, "MariaDB Connector/J warned");
    }
}
