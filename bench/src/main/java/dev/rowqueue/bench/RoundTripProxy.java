package dev.rowqueue.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay between a JDBC driver and its database server that counts network round trips: each time the client
 * starts sending after the server has answered, that is one more exchange. It sees what the JDBC-level counting proxy
 * cannot, the protocol messages a driver sends on its own for a session call (pgjdbc answers
 * {@code getTransactionIsolation()} with a {@code SHOW} query, MariaDB's driver sends {@code set autocommit=0}),
 * and exactly nothing for calls a driver answers from its own state. Synchronous drivers (pgjdbc, MariaDB
 * Connector/J) wait for the answer before sending again, so a turn is a round trip; a driver that pipelined would be
 * counted low.
 */
final class RoundTripProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String host;
    private final int port;
    private final AtomicLong turns = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    /**
     * @param host the database server's host
     * @param port its port
     * @throws IOException if no local port can be opened
     */
    RoundTripProxy(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "bench-round-trip-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the local port to give the driver instead of the server's */
    int localPort() {
        return server.getLocalPort();
    }

    /** @return round trips so far, over every connection through this proxy */
    long roundTrips() {
        return turns.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(host, port);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                Turn turn = new Turn();
                pump(client, upstream, turn, true);
                pump(upstream, client, turn, false);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("round-trip proxy: " + e);
                }
            }
        }
    }

    /** Who sent last on one connection. */
    private static final class Turn {
        /** {@code true} once the client has sent in its current turn; reset when the server answers. */
        boolean clientSpeaking;
    }

    private void pump(Socket from, Socket to, Turn turn, boolean fromClient) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[65536];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    synchronized (turn) {
                        if (fromClient && !turn.clientSpeaking) {
                            turn.clientSpeaking = true;
                            turns.incrementAndGet();
                        } else if (!fromClient) {
                            turn.clientSpeaking = false;
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close the other
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "bench-round-trip-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
