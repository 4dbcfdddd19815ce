package dev.rowqueue.tck;

import dev.rowqueue.RowQueues;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;

/**
 * The base of every contract: access to the database under test, fresh names, and cleanup after each test.
 * Test method names state the rule they check, with underscores for spaces.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
public abstract class Contract {

    /** @return the environment of the database under test */
    protected abstract TckEnv env();

    /** @return the shared {@link RowQueues} on the database under test */
    protected RowQueues rq() {
        return env().rq();
    }

    /** @return a fresh queue name, dropped after the test */
    protected String newName() {
        return env().newName();
    }

    @AfterEach
    void dropQueuesOfThisTest() {
        env().cleanup();
    }
}
