package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.WorkerListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/** A worker listener whose exceptions are logged, never thrown into the worker. */
record SafeWorkerListener(WorkerListener l) implements WorkerListener {
    private static final Logger log = LoggerFactory.getLogger(DefaultWorker.class);

    private void safely(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("rowqueue: a worker listener threw; ignored", e);
        }
    }

    @Override
    public void claimed(List<Job> jobs) {
        safely(() -> l.claimed(jobs));
    }

    @Override
    public void started(Job job, Duration waiting) {
        safely(() -> l.started(job, waiting));
    }

    @Override
    public void succeeded(Job job, Duration ran) {
        safely(() -> l.succeeded(job, ran));
    }

    @Override
    public void failed(Job job, Throwable error, Duration ran) {
        safely(() -> l.failed(job, error, ran));
    }

    @Override
    public void dead(Job job, Throwable error) {
        safely(() -> l.dead(job, error));
    }

    @Override
    public void finished(Job job, Duration ran) {
        safely(() -> l.finished(job, ran));
    }

    @Override
    public void leaseLost(Job job) {
        safely(() -> l.leaseLost(job));
    }

    @Override
    public void idle() {
        safely(l::idle);
    }

    @Override
    public void databaseError(RuntimeException error, int consecutive) {
        safely(() -> l.databaseError(error, consecutive));
    }

    @Override
    public void databaseRecovered(int failures) {
        safely(() -> l.databaseRecovered(failures));
    }

    @Override
    public void heartbeat(int jobs) {
        safely(() -> l.heartbeat(jobs));
    }
}
