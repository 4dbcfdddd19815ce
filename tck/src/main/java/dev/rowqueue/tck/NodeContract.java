package dev.rowqueue.tck;

import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.NodeInfo;
import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.spi.Schema;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nodes ({@link RowQueues#nodes()}): an instance that runs a worker or a scheduler registers in
 * {@code rowqueue_nodes} with its name, host and process id; every lease token it makes carries its id, so a leased
 * job's holder is found from the token alone; a closed node removes its row, and expired rows are deleted. Tagged
 * {@code nodes}.
 */
@Tag("nodes")
public abstract class NodeContract extends Contract {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private RowQueues.Builder registering(String name) {
        return env().builder().registerNode(true).nodeName(name);
    }

    /** Polls the nodes as another instance reads them (the registration runs on the node's own thread). */
    private NodeInfo await(long id, Predicate<NodeInfo> accepted) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        Optional<NodeInfo> last = Optional.empty();
        while (System.nanoTime() < end) {
            last = rq().nodes().stream().filter(n -> n.id() == id).findFirst();
            if (last.isPresent() && accepted.test(last.get())) {
                return last.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("node " + id + " not as expected within " + WAIT + ": " + last);
    }

    @Test
    void a_worker_registers_its_node_and_its_lease_tokens_name_that_node() throws Exception {
        String queue = newName();
        String name = "tck-node-" + queue;
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (RowQueues node = registering(name).build()) {
            WorkQueue q = node.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(5)));
            long id = q.enqueue("held");
            try (var worker = q.worker(job -> {
                running.countDown();
                release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }, WorkerOptions.defaults().withThreads(2)).start()) {
                assertTrue(running.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the worker ran the job");
                JobInfo leased = rq().workQueue(queue).job(id).orElseThrow();
                assertEquals(node.nodeId(), NodeInfo.idOf(leased.leaseToken()), "the token carries the node's id");
                NodeInfo holder = await(node.nodeId(), n -> n.runs().contains(queue + " (2 threads)"));
                assertEquals(name, holder.name());
                assertEquals(ProcessHandle.current().pid(), holder.pid());
                assertFalse(holder.host().isBlank());
                assertTrue(holder.alive(), holder.toString());
                assertFalse(holder.scheduler(), holder.toString());
                release.countDown();
            }
        }
        assertTrue(rq().nodes().stream().noneMatch(n -> n.name().equals(name)), "a closed node removes its row");
    }

    @Test
    void a_claim_without_a_worker_carries_the_node_id_and_reading_nodes_registers_nothing() {
        String queue = newName();
        try (RowQueues node = registering("tck-claimer-" + queue).build()) {
            WorkQueue q = node.workQueue(queue);
            q.enqueue("a");
            q.enqueue("b");
            List<Job> jobs = q.claim(2);
            assertEquals(2, jobs.size());
            for (Job j : jobs) {
                assertEquals(node.nodeId(), NodeInfo.idOf(j.leaseToken()), "token " + j.leaseToken());
            }
            assertEquals(jobs.get(0).leaseToken(), jobs.get(1).leaseToken(), "one token per claim");
            q.enqueue("c");
            Job next = q.claim(1).get(0);
            assertEquals(node.nodeId(), NodeInfo.idOf(next.leaseToken()), "the next claim's token too");
            assertTrue(next.leaseToken() != jobs.get(0).leaseToken(), "a new token per claim");
            assertTrue(node.nodes().stream().noneMatch(n -> n.id() == node.nodeId()), "no worker, no scheduler: no row");
        }
    }

    @Test
    void a_scheduler_shows_in_its_node_and_expired_rows_are_deleted() throws Exception {
        String stale = "tck-stale-" + newName();
        rq().nodes(); // the table exists
        env().jdbc(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Schema.NODES_TABLE
                    + " (node_id, node_name, host, pid, started_ms, seen_ms, scheduler, runs) VALUES (?, ?, 'gone',"
                    + " 1, 0, ?, 1, 'scheduler')")) {
                ps.setLong(1, (1L << NodeInfo.ID_BITS) + 7); // outside the ids nodes choose
                ps.setString(2, stale);
                ps.setLong(3, System.currentTimeMillis() - NodeInfo.EXPIRES_AFTER.toMillis() - 60_000);
                ps.executeUpdate();
            }
            return null;
        });
        NodeInfo old = rq().nodes().stream().filter(n -> n.name().equals(stale)).findFirst().orElseThrow();
        assertFalse(old.alive(), "silent for longer than " + NodeInfo.ALIVE_WITHIN + ": " + old);
        try (RowQueues node = registering("tck-scheduler-" + newName()).scheduler(true).build()) {
            String queue = newName();
            node.workQueue(queue).create();
            node.schedules().define(newName(), "0 3 * * *", ScheduleOptions.forQueue(queue));
            node.schedules().startScheduler();
            NodeInfo me = await(node.nodeId(), n -> n.scheduler() && n.runs().contains("scheduler"));
            assertTrue(me.alive(), me.toString());
            assertTrue(rq().nodes().stream().noneMatch(n -> n.name().equals(stale)),
                    "the first beat deletes rows silent for longer than " + NodeInfo.EXPIRES_AFTER);
        }
    }
}
