package dev.rowqueue.postgres;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coalescing of notifications, step by step in each interleaving of a leader (an enqueue notifying in its
 * statement) and a follower (one that found the leader in flight and inserted without notifying): every follower's
 * commit is followed by a notification sent after it.
 */
class NoticesTest {

    private final Notices notices = new Notices();
    private final AtomicInteger sent = new AtomicInteger();
    private final Notices.Send send = sent::incrementAndGet;

    @Test
    void a_follower_that_commits_while_the_leader_is_in_flight_is_notified_by_the_leader_when_it_ends() {
        assertTrue(notices.lead(), "nothing in flight: the first enqueue leads");
        assertFalse(notices.lead(), "a second one follows");
        notices.owe(send);
        assertEquals(0, sent.get(), "the leader's notification is still in flight: the follower does not send");
        notices.led(send);
        assertEquals(1, sent.get(), "the leader ends and sends the owed notification");
        notices.led(send);
        assertEquals(1, sent.get(), "nothing owed any more");
    }

    @Test
    void a_follower_that_commits_after_the_leader_ended_sends_its_own() {
        assertTrue(notices.lead());
        assertFalse(notices.lead(), "follows the leader in flight");
        notices.led(send);
        assertEquals(0, sent.get(), "nothing owed when the leader ended");
        notices.owe(send);
        assertEquals(1, sent.get(), "the follower's commit came after the leader's notification: it sends one");
        assertTrue(notices.lead(), "nothing left in flight");
    }

    @Test
    void many_followers_of_one_leader_share_one_notification() {
        assertTrue(notices.lead());
        for (int i = 0; i < 10; i++) {
            assertFalse(notices.lead());
            notices.owe(send);
        }
        notices.led(send);
        assertEquals(1, sent.get());
    }

    @Test
    void a_failed_send_leaves_nothing_in_flight() {
        assertTrue(notices.lead());
        assertFalse(notices.lead());
        notices.owe(send);
        assertThrows(IllegalStateException.class, () -> notices.led(() -> {
            throw new IllegalStateException("a send that throws after all");
        }));
        assertTrue(notices.lead(), "the failed send released its turn");
    }
}
