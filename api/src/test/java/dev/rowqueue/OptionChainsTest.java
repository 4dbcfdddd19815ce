package dev.rowqueue;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Option chains keep what an earlier step set: no public options type has a static starter that can be called on an
 * instance by mistake (issue 37: {@code Enqueue.key("k").priority(5)} used to drop the key), and every {@code with}
 * method keeps the other values.
 */
class OptionChainsTest {

    /**
     * Every public type of the API package with a public static method returning the type itself: such a method called
     * on an instance in the middle of a chain throws the chain away, so its name must not be the name of anything an
     * instance offers (a component, an instance method, or what a {@code withX} method sets).
     */
    @Test
    void no_static_starter_can_be_mistaken_for_a_step_of_a_chain() throws Exception {
        List<Class<?>> withStarters = new ArrayList<>();
        for (Class<?> type : apiTypes()) {
            Set<String> instanceNames = new HashSet<>();
            for (Method m : type.getMethods()) {
                if (!Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() != Object.class) {
                    instanceNames.add(m.getName());
                    if (m.getName().startsWith("with") && m.getName().length() > 4) {
                        instanceNames.add(Character.toLowerCase(m.getName().charAt(4)) + m.getName().substring(5));
                    }
                }
            }
            if (type.isRecord()) {
                for (RecordComponent c : type.getRecordComponents()) {
                    instanceNames.add(c.getName());
                }
            }
            for (Method m : type.getMethods()) {
                if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == type) {
                    withStarters.add(type);
                    assertThat(instanceNames).as("%s.%s: a static starter named like a step of the chain",
                            type.getSimpleName(), m.getName()).doesNotContain(m.getName());
                }
            }
        }
        // the scan saw the options types (so it cannot pass by finding nothing)
        assertThat(withStarters).contains(Enqueue.class, JobQuery.class, RingOptions.class, ScheduleOptions.class,
                WorkQueueOptions.class, WorkerOptions.class);
    }

    @Test
    void enqueue_chains_keep_every_value_in_any_order() {
        Enqueue a = Enqueue.defaults().withKey("k").withPriority(5).withDelay(Duration.ofHours(1))
                .withUniqueKey("u");
        Enqueue b = Enqueue.defaults().withUniqueKey("u").withDelay(Duration.ofHours(1)).withPriority(5)
                .withKey("k");
        assertThat(a).isEqualTo(b).isEqualTo(new Enqueue(5, Duration.ofHours(1), "k", "u"));
        assertThat(Enqueue.defaults().withPriority(5).withKey("k").unique())
                .isEqualTo(new Enqueue(5, Duration.ZERO, "k", "k"));
        assertThat(Enqueue.defaults()).isEqualTo(new Enqueue(0, Duration.ZERO, null, null));
    }

    @Test
    void job_query_chains_keep_every_value_in_any_order() {
        JobQuery a = JobQuery.all().withState(JobState.DEAD).withKey("k").withLimit(7).oldestFirst().withAfter(3);
        JobQuery b = JobQuery.all().oldestFirst().withAfter(3).withLimit(7).withKey("k").withState(JobState.DEAD);
        assertThat(a).isEqualTo(b).isEqualTo(new JobQuery(JobState.DEAD, "k", false, 3, 7));
    }

    @Test
    void ring_options_chains_keep_every_value_in_any_order() {
        RingOptions a = RingOptions.ofCapacity(10).withStrategy(RingStrategy.SINGLE_WRITER).withCapacity(20);
        RingOptions b = RingOptions.ofCapacity(1).withCapacity(20).withStrategy(RingStrategy.SINGLE_WRITER);
        assertThat(a).isEqualTo(b).isEqualTo(new RingOptions(20, RingStrategy.SINGLE_WRITER));
    }

    @Test
    void schedule_options_chains_keep_every_value_in_any_order() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        ScheduleOptions a = ScheduleOptions.forQueue("a").withPayload("p").withKey("k").withZone(berlin)
                .withMissed(MissedSlots.SKIP).withQueue("b");
        ScheduleOptions b = ScheduleOptions.forQueue("x").withQueue("b").withMissed(MissedSlots.SKIP)
                .withZone("Europe/Berlin").withKey("k").withPayload("p");
        assertThat(a).isEqualTo(b).isEqualTo(new ScheduleOptions("b", "p", "k", berlin, MissedSlots.SKIP));
    }

    @Test
    void work_queue_options_chains_keep_every_value_in_any_order() {
        WorkQueueOptions a = WorkQueueOptions.defaults().withMaxAttempts(3).withLeaseDuration(Duration.ofSeconds(7))
                .withRetryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(9)).withMaxLeasedPerKey(2)
                .withFairClaims(true).withRateLimit(50, Duration.ofSeconds(1));
        WorkQueueOptions b = WorkQueueOptions.defaults().withRateLimit(50, Duration.ofSeconds(1)).withFairClaims(true)
                .withMaxLeasedPerKey(2).withRetryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(9))
                .withLeaseDuration(Duration.ofSeconds(7)).withMaxAttempts(3);
        assertThat(a).isEqualTo(b).isEqualTo(new WorkQueueOptions(3, Duration.ofSeconds(7), Duration.ofSeconds(1),
                Duration.ofSeconds(9), 2, true, 50, Duration.ofSeconds(1)));
    }

    @Test
    void worker_options_chains_keep_every_value_in_any_order() {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            WorkerListener listener = new WorkerListener() { };
            WorkerOptions a = WorkerOptions.defaults().withThreads(4).withPrefetch(2)
                    .withHeartbeat(Duration.ofSeconds(3)).withDrainTimeout(Duration.ofSeconds(4)).withExecutor(pool)
                    .withListener(listener).withPrefetchWindow(Duration.ofMillis(50));
            WorkerOptions b = WorkerOptions.defaults().withListener(listener).withExecutor(pool)
                    .withDrainTimeout(Duration.ofSeconds(4)).withHeartbeat(Duration.ofSeconds(3)).withThreads(4)
                    .withPrefetch(2).withPrefetchWindow(Duration.ofMillis(50));
            assertThat(a).isEqualTo(b);
            assertThat(a).isEqualTo(new WorkerOptions(4, 2, Duration.ofMillis(50), Duration.ofSeconds(3),
                    Duration.ofSeconds(4), pool, listener));
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<Class<?>> apiTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(Enqueue.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/rowqueue");
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$")) {
                    Class<?> c = Class.forName("dev.rowqueue." + name.substring(0, name.length() - 6));
                    if (Modifier.isPublic(c.getModifiers())) {
                        types.add(c);
                    }
                }
            }
        }
        return types;
    }
}
