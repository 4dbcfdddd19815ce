package dev.rowqueue.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A lock held across every process of this machine: a file lock under {@code java.io.tmpdir/rowqueue-locks}. Tests
 * that use something only one process may use at a time (loopback addresses their packet filters cut, the users their
 * servers run as, a directory built once) take one, so that surefire's parallel forks and two builds on one machine
 * cannot meet there. The operating system releases it when the process dies.
 *
 * <p>A <em>slot</em> is one of several numbered locks of one name: a fixture with a few sets of addresses takes
 * whichever is free, and waits only when all are taken.
 */
public final class MachineLock implements AutoCloseable {

    private static final Path DIR = Path.of(System.getProperty("java.io.tmpdir"), "rowqueue-locks");

    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final int slot;

    private MachineLock(Path file, FileChannel channel, FileLock lock, int slot) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.slot = slot;
    }

    /**
     * Waits for the lock of a name.
     *
     * @param name     letters, digits and dashes
     * @param patience the longest wait
     * @return the lock, held until {@link #close()}
     * @throws IllegalStateException if another process held it for longer than {@code patience}
     */
    public static MachineLock acquire(String name, Duration patience) {
        return slot(name, 1, patience);
    }

    /**
     * Waits for any one of {@code slots} numbered locks of a name.
     *
     * @param name     letters, digits and dashes
     * @param slots    how many there are
     * @param patience the longest wait
     * @return the lock of the free slot (see {@link #slot()}), held until {@link #close()}
     * @throws IllegalStateException if every slot stayed taken for longer than {@code patience}
     */
    public static MachineLock slot(String name, int slots, Duration patience) {
        if (!name.matches("[A-Za-z0-9-]+") || slots < 1) {
            throw new IllegalArgumentException("a lock's name is letters, digits and dashes, with slots >= 1: " + name
                    + ", " + slots);
        }
        long deadline = System.nanoTime() + patience.toNanos();
        boolean told = false;
        try {
            Files.createDirectories(DIR);
            while (true) {
                for (int s = 0; s < slots; s++) {
                    MachineLock l = tryLock(DIR.resolve(name + (slots == 1 ? "" : "-" + s) + ".lock"), s);
                    if (l != null) {
                        return l;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("every slot of the machine lock " + name + " (" + DIR
                            + ") stayed taken for " + patience.toSeconds() + " s");
                }
                if (!told) {
                    System.out.println("[MachineLock] waiting for " + name + ": another test on this machine holds"
                            + " it");
                    told = true;
                }
                Thread.sleep(500);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the machine lock " + name, e);
        }
    }

    private static MachineLock tryLock(Path file, int slot) throws IOException {
        // closing any channel of a file may release every lock this process holds on it (POSIX record locks): a
        // file this JVM holds is not opened again
        if (!HELD.add(file)) {
            return null;
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return new MachineLock(file, channel, lock, slot);
            }
        } catch (OverlappingFileLockException e) {
            // this JVM holds it after all
        }
        channel.close();
        HELD.remove(file);
        return null;
    }

    /** @return which slot this is (0 for a lock without slots) */
    public int slot() {
        return slot;
    }

    /** Releases the lock. */
    @Override
    public synchronized void close() {
        if (!channel.isOpen()) {
            return;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            HELD.remove(file);
        }
    }
}
