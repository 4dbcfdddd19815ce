package dev.rowqueue.micrometer;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the depth gauges cost: the time of one stats query (the one statement a refresh runs) on a queue of 10,000 and
 * of 100,000 jobs in all four states, and of a cached gauge read. Printed, and appended to
 * {@code target/depth-cost.txt}; no wall-clock limit is asserted, only the counts.
 */
abstract class DepthCostContract {
    private static final String PAYLOAD = "{\"order\":%d,\"customer\":\"c-%d\",\"items\":[\"sku-1\",\"sku-2\"],"
            + "\"note\":\"a payload of about a hundred characters\"}";

    abstract DataSource dataSource();

    abstract String database();

    /**
     * @param queue a queue name
     * @return what the database tells of the size of the queue's table, or an empty string
     */
    String size(String queue) {
        return "";
    }

    @Test
    void one_stats_query_on_ten_and_a_hundred_thousand_jobs() throws IOException {
        MockClock clock = new MockClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        String name = MetricsContract.unique("cost");
        try (RowQueues rq = RowQueues.builder(dataSource()).build()) {
            WorkQueue q = rq.workQueue(name, WorkQueueOptions.defaults().withMaxAttempts(1)
                    .withLeaseDuration(Duration.ofHours(1)));
            QueueDepthGauges gauges = metrics.monitorDepth(q, Duration.ofSeconds(10));
            long[] expected = new long[4]; // ready, scheduled, leased, dead
            fill(q, 10_000, expected);
            report(measure(q, gauges, registry, clock, expected), 10_000, size(name));
            fill(q, 90_000, expected);
            report(measure(q, gauges, registry, clock, expected), 100_000, size(name));
        }
    }

    /** Adds {@code n} jobs: 85% ready, 10% scheduled, 4% leased, 1% dead. */
    private static void fill(WorkQueue q, int n, long[] expected) {
        int scheduled = n / 10;
        int leased = n * 4 / 100;
        int dead = n / 100;
        int ready = n - scheduled - leased - dead;
        // leased and dead first: claims take the oldest ready jobs
        enqueue(q, leased + dead, Enqueue.defaults());
        claimAll(q, leased + dead, dead);
        enqueue(q, ready, Enqueue.defaults());
        enqueue(q, scheduled, Enqueue.defaults().withDelay(Duration.ofHours(1)));
        expected[0] += ready;
        expected[1] += scheduled;
        expected[2] += leased;
        expected[3] += dead;
    }

    private static void enqueue(WorkQueue q, int n, Enqueue how) {
        for (int from = 0; from < n; from += 1000) {
            int to = Math.min(n, from + 1000);
            q.enqueueAll(IntStream.range(from, to).mapToObj(i -> String.format(Locale.ROOT, PAYLOAD, i, i % 97))
                    .toList(), how);
        }
    }

    private static void claimAll(WorkQueue q, int n, int nack) {
        int claimed = 0;
        while (claimed < n) {
            List<Job> jobs = q.claim(Math.min(1000, n - claimed));
            for (Job job : jobs) {
                if (nack > 0) {
                    q.nack(job, Duration.ZERO, "dead (cost test)"); // one attempt allowed: dead
                    nack--;
                }
            }
            claimed += jobs.size();
        }
    }

    private record Cost(int rows, double[] queryMs, double cachedReadNs) {
    }

    private Cost measure(WorkQueue q, QueueDepthGauges gauges, SimpleMeterRegistry registry, MockClock clock,
                         long[] expected) {
        QueueStats want = new QueueStats(expected[0], expected[1], expected[2], expected[3]);
        for (int i = 0; i < 5; i++) {
            assertThat(q.stats()).isEqualTo(want); // warm-up: plans, caches, JIT
        }
        double[] ms = new double[21];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            QueueStats s = q.stats();
            ms[i] = (System.nanoTime() - t0) / 1e6;
            assertThat(s).isEqualTo(want);
        }
        Arrays.sort(ms);
        // a refresh through the gauges, then cached reads: a scrape of four gauges, 10,000 times
        clock.add(Duration.ofSeconds(10));
        long before = gauges.queries();
        List<Gauge> four = registry.find(QueueDepthGauges.NAME).tag("queue", q.name()).gauges().stream().toList();
        assertThat(four).hasSize(4);
        assertThat(four.get(0).value()).isIn((double) want.ready(), (double) want.scheduled(), (double) want.leased(),
                (double) want.dead());
        int reads = 10_000;
        long t0 = System.nanoTime();
        double sink = 0;
        for (int i = 0; i < reads; i++) {
            for (Gauge g : four) {
                sink += g.value();
            }
        }
        double perRead = (System.nanoTime() - t0) / (reads * 4.0);
        assertThat(sink).isPositive();
        assertThat(gauges.queries() - before).as("one query for 40,001 gauge reads within an interval").isEqualTo(1);
        return new Cost((int) want.total(), ms, perRead);
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private void report(Cost cost, int rows, String size) throws IOException {
        double[] ms = cost.queryMs();
        String line = String.format(Locale.ROOT, "%s: stats query on %,d jobs (85%% ready, 10%% scheduled, 4%% leased,"
                        + " 1%% dead%s): median %.2f ms, min %.2f ms, max %.2f ms over %d runs; a cached gauge read"
                        + " %.0f ns (load average %s on %d processors)%n", database(), rows, size.isEmpty() ? "" : "; " + size, ms[ms.length / 2], ms[0],
                ms[ms.length - 1], ms.length, cost.cachedReadNs(), loadAverage(),
                Runtime.getRuntime().availableProcessors());
        System.out.print(line);
        Files.writeString(Path.of("target/depth-cost.txt"), line, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
