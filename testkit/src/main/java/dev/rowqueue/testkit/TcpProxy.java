package dev.rowqueue.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on a loopback port between a JDBC driver and its database server, for network faults in one JVM without
 * touching the machine's network: {@link #cut()} stops forwarding in both directions without closing anything (a
 * partition, a black hole: the driver's reads wait, bytes sent meanwhile are held and delivered after {@link #heal()},
 * as TCP's retransmissions would), and {@link #killConnections()} closes every relayed connection at once (a reset).
 * New connections during a cut are accepted and wait for the heal, like a connection attempt whose packets are dropped.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String host;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean cut;
    private volatile boolean closed;

    /**
     * Starts relaying.
     *
     * @param host the database server's host
     * @param port its port
     * @throws IOException if no loopback port can be opened
     */
    public TcpProxy(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "tcp-proxy-accept-" + server.getLocalPort());
    }

    /** @return the loopback port to give the driver instead of the server's */
    public int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding: nothing passes either way until {@link #heal()}; no connection is closed. */
    public void cut() {
        synchronized (gate) {
            cut = true;
        }
    }

    /** Forwards again, what was held first. */
    public void heal() {
        synchronized (gate) {
            cut = false;
            gate.notifyAll();
        }
    }

    /** @return whether forwarding is stopped */
    public boolean isCut() {
        synchronized (gate) {
            return cut;
        }
    }

    /** Closes every relayed connection, both sides, as a server or a firewall's reset would; new ones still pass. */
    public void killConnections() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    /** @return relayed connections open now (each counted once, its client side) */
    public int connections() {
        return sockets.size() / 2;
    }

    private void awaitOpen() throws IOException {
        synchronized (gate) {
            while (cut && !closed) {
                try {
                    gate.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            daemon(() -> connect(client), "tcp-proxy-connect-" + port());
        }
    }

    private void connect(Socket client) {
        try {
            awaitOpen();
            Socket upstream = new Socket(host, port);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            sockets.add(client);
            sockets.add(upstream);
            daemon(() -> pump(client, upstream), "tcp-proxy-up-" + port());
            daemon(() -> pump(upstream, client), "tcp-proxy-down-" + port());
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[65536];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                awaitOpen();
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed or was killed: close the other
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private static void daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Stops accepting and closes every relayed connection. */
    @Override
    public void close() {
        closed = true;
        heal();
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        killConnections();
    }
}
