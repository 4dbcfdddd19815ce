package dev.rowqueue.testkit;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Signals to server processes of a test: SIGSTOP and SIGCONT for a stalled node, SIGKILL for a crashed one. */
public final class Signals {

    private Signals() {
    }

    /**
     * Sends a signal with {@code kill}.
     *
     * @param pid    the process
     * @param signal the signal's name, e.g. {@code STOP}, {@code CONT}, {@code KILL}
     */
    public static void send(long pid, String signal) {
        if (pid <= 1) {
            throw new IllegalArgumentException("no process to signal: " + pid);
        }
        try {
            Process p = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("kill -s " + signal + " " + pid + " failed: " + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill cannot run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
