package dev.rowqueue.tck;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/**
 * The whole compatibility kit for one database. A dialect module (or a vendor) runs it with one short subclass,
 * named {@code <Database><Version><Where><Variant>TckTest} (e.g. dialect-h2's {@code H2InMemoryTckTest}, which is this
 * example; the README's "Naming a TCK target" has the scheme):
 *
 * <pre>{@code
 * class H2InMemoryTckTest extends RowQueueTck {
 *     @Override
 *     protected TckTarget target() {
 *         return TckTargets.driverManager("H2 in memory", "jdbc:h2:mem:rowqueue_tck;DB_CLOSE_DELAY=-1", "sa", "");
 *     }
 * }
 * }</pre>
 *
 * <p>A server named by environment variables is {@code TckTargets.fromEnvironment("POSTGRES", "PostgreSQL server")}
 * (see {@link TckTargets#fromEnvironment(String, String)}): NOT RUN, never passed, when they are not set.
 *
 * <p>The target is opened once for the class and closed after it. Every contract is a nested class; required
 * contracts never skip, optional ones skip only through a capability the dialect does not declare. Every run writes
 * a compatibility report under {@code target/rowqueue-tck/} (see {@link TckReportListener}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
public abstract class RowQueueTck {

    private TckTarget target;
    private DatabaseHold hold;
    private TckEnv env;

    /**
     * Creates the database under test. Called once, before any contract.
     *
     * @return the target
     * @throws Exception if the database cannot be started or reached
     */
    protected abstract TckTarget target() throws Exception;

    /**
     * Opens the target, holds one of its connections for the whole run (see {@link DatabaseHold}: an in-memory
     * database lives on, one whose connections do not share it is refused here, before any contract runs), and
     * builds the environment.
     */
    @BeforeAll
    final void openTarget() throws Exception {
        target = target();
        hold = DatabaseHold.open(target.dataSource());
        env = new TckEnv(target);
        TckReportListener.describe(getClass(), target.name(), env.database(),
                OpenedConnections.in(target.dataSource()).orElse(null));
    }

    @AfterAll
    final void closeTarget() throws Exception {
        if (env != null) {
            env.rq().close();
        }
        if (hold != null) {
            hold.close();
        }
        if (target != null) {
            target.close();
        }
    }

    /** @return the environment of the database under test, for a subclass's own extra tests */
    protected final TckEnv env() {
        return env;
    }

    /** Ring queues. */
    @Nested
    @DisplayName("ring queues")
    class Rings extends RingContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Groups of ring queues. */
    @Nested
    @DisplayName("grouped ring queues")
    class GroupedRings extends GroupedRingContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** The single-writer ring strategy (optional). */
    @Nested
    @DisplayName("single-writer ring strategy (optional)")
    class SingleWriterRings extends SingleWriterRingContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** The trigger-enforced ring strategy (optional). */
    @Nested
    @DisplayName("trigger-enforced ring strategy (optional)")
    class TriggerRings extends TriggerRingContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Work queues. */
    @Nested
    @DisplayName("work queues")
    class WorkQueues extends WorkQueueContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Workers. */
    @Nested
    @DisplayName("workers")
    class Workers extends WorkerContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Keyed jobs: unique keys, per-key limits, fair claims, the schema upgrade. */
    @Nested
    @DisplayName("keyed jobs")
    class KeyedJobs extends KeyedJobContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Operators' job API: lookup, listing, cancellation, activity. */
    @Nested
    @DisplayName("jobs")
    class Jobs extends JobContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Rate limits: at most so many starts in any window, across consumers and instances. */
    @Nested
    @DisplayName("rate limits")
    class RateLimits extends RateLimitContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Nodes: registration, lease tokens that name their node, expiry. */
    @Nested
    @DisplayName("nodes")
    class Nodes extends NodeContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Round-robin rotation. */
    @Nested
    @DisplayName("rotation")
    class Rotation extends RotationContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Counters. */
    @Nested
    @DisplayName("counters")
    class CountersContracts extends CounterContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Schema. */
    @Nested
    @DisplayName("schema")
    class Schema extends SchemaContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Transactions. */
    @Nested
    @DisplayName("transactions")
    class Transactions extends TransactionContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Bad input. */
    @Nested
    @DisplayName("bad input")
    class BadInput extends BadInputContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Concurrency. */
    @Nested
    @DisplayName("concurrency")
    class Concurrency extends ConcurrencyContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** Recurring jobs. */
    @Nested
    @DisplayName("schedules")
    class ScheduleContracts extends ScheduleContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }

    /** The source articles' transcripts. */
    @Nested
    @DisplayName("the source articles' transcripts")
    class ArticleTranscripts extends ArticleTranscriptContract {
        @Override
        protected TckEnv env() {
            return env;
        }
    }
}
