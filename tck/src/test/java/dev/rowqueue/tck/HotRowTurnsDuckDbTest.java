package dev.rowqueue.tck;

import dev.rowqueue.testkit.SimpleDataSource;
import dev.rowqueue.Counters;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.SimpleDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * On DuckDB, a second writer of a row fails at once ("Conflict on update") instead of waiting, even at READ
 * COMMITTED. The portable dialect finds that by probing and makes writers of one hot row in this JVM take turns: with
 * no retry at all ({@link RetryPolicy#none()}), 16 threads incrementing one counter and pushing into one full ring
 * group all succeed, with nothing lost. Without the turns, most of them fail with a serialization failure.
 */
class HotRowTurnsDuckDbTest {

    private static final int THREADS = 16;
    private static final int PER_THREAD = 10;

    @TempDir
    Path dir;

    private RowQueues instance() {
        String url = "jdbc:duckdb:" + dir.resolve("hot.db");
        SimpleDataSource ds = new SimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return DriverManager.getConnection(url);
            }
        };
        return RowQueues.builder(ds).dialect("portable").retry(RetryPolicy.none()).scheduler(false).build();
    }

    @Test
    void writers_of_one_counter_take_turns_and_need_no_retry() throws Exception {
        try (RowQueues rq = instance()) {
            Counters counters = rq.counters("hits");
            ConcurrencyContract.together(THREADS, t -> {
                for (int i = 0; i < PER_THREAD; i++) {
                    counters.increment("page");
                }
            });
            assertEquals(THREADS * PER_THREAD, counters.get("page"));
        }
    }

    @Test
    void producers_of_one_full_ring_group_take_turns_and_need_no_retry() throws Exception {
        try (RowQueues rq = instance(); RowQueues other = instance()) { // two instances: the turns are per database
            RingQueue ring = rq.ring("recent", 5);
            RingQueue node = other.ring("recent", 5);
            Map<Long, String> pushed = new ConcurrentHashMap<>();
            ConcurrencyContract.together(THREADS, t -> {
                for (int i = 0; i < PER_THREAD; i++) {
                    String payload = "t" + t + "-" + i;
                    assertNull(pushed.putIfAbsent((t % 2 == 0 ? ring : node).push("g", payload), payload));
                }
            });
            List<RingEntry> kept = ring.newestFirst("g");
            assertEquals(5, kept.size());
            for (int i = 0; i < kept.size(); i++) {
                long seq = THREADS * PER_THREAD - i;
                assertEquals(seq, kept.get(i).seq(), "the newest entries, consecutive");
                assertEquals(pushed.get(seq), kept.get(i).payload());
            }
        }
    }
}
