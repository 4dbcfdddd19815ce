package dev.rowqueue.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Network partitions between loopback addresses, for fault tests: {@link #cut} drops every packet between two
 * addresses of 127.0.0.0/8 in both directions ({@code iptables -I INPUT -s A -d B -j DROP} and the reverse), so that
 * servers bound to their own loopback addresses lose each other while clients (which connect from 127.0.0.1) still
 * reach both; {@link #heal} removes exactly the rules this instance added. Only loopback addresses are accepted. Each
 * rule carries a comment naming this JVM's pid; rules left by a JVM that died are removed when the next firewall is
 * made, and a shutdown hook heals what this one added.
 */
public final class LoopbackFirewall implements AutoCloseable {

    private static final String TAG = "rowqueue-test-";
    private final String comment = TAG + ProcessHandle.current().pid();
    private final List<List<String>> rules = new ArrayList<>();
    private final Thread hook = new Thread(this::heal, "loopback-firewall-heal");

    /** Removes rules of dead JVMs and registers the shutdown hook. */
    public LoopbackFirewall() {
        removeOrphans();
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * @return why partitions cannot be made here (no {@code iptables}, not root), or {@code null} if they can
     */
    public static String missing() {
        try {
            Result r = iptables(List.of("-S", "INPUT"));
            return r.code == 0 ? null : "iptables -S INPUT failed (" + r.code + "): " + r.output.strip();
        } catch (IOException e) {
            return "iptables cannot run: " + e.getMessage();
        }
    }

    /**
     * Makes a loopback address an address of the {@code lo} interface ({@code ip addr add A/32 dev lo}), for servers
     * that refuse to bind to an address no interface has (MySQL Group Replication's XCom checks); every address of
     * 127.0.0.0/8 reaches {@code lo} without it. Harmless and idempotent; it stays until the machine restarts.
     *
     * @param address an address such as 127.0.0.21
     * @return whether the interface has it now
     */
    public static boolean assign(String address) {
        loopback(address);
        return ip("-o", "addr", "show", "dev", "lo").contains(" " + address + "/")
                || ip("addr", "add", address + "/32", "dev", "lo") != null
                && ip("-o", "addr", "show", "dev", "lo").contains(" " + address + "/");
    }

    /** @return what {@code ip} printed, or "" if it could not run */
    private static String ip(String... args) {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return out;
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * Drops every packet between two loopback addresses, both ways.
     *
     * @param a an address such as 127.0.0.11
     * @param b another
     */
    public synchronized void cut(String a, String b) {
        loopback(a);
        loopback(b);
        add(List.of("INPUT", "-s", a, "-d", b, "-j", "DROP", "-m", "comment", "--comment", comment));
        add(List.of("INPUT", "-s", b, "-d", a, "-j", "DROP", "-m", "comment", "--comment", comment));
    }

    /**
     * Drops every packet a user's processes send to a loopback address ({@code iptables -I OUTPUT -m owner
     * --uid-owner U -d A -j DROP}): for servers that do not bind their outgoing connections to an address of their
     * own (their packets then carry the destination's address as their source), run as users of their own.
     *
     * @param uid       the user whose processes' packets are dropped
     * @param toAddress the loopback address they may no longer reach
     */
    public synchronized void dropSentBy(int uid, String toAddress) {
        loopback(toAddress);
        add(List.of("OUTPUT", "-m", "owner", "--uid-owner", Integer.toString(uid), "-d", toAddress, "-j", "DROP",
                "-m", "comment", "--comment", comment));
    }

    /** Removes every rule this firewall added. */
    public synchronized void heal() {
        for (List<String> rule : rules) {
            List<String> delete = new ArrayList<>(List.of("-D"));
            delete.addAll(rule);
            run(delete);
        }
        rules.clear();
    }

    /** Heals and drops the shutdown hook. */
    @Override
    public void close() {
        heal();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // exiting: the hook runs
        }
    }

    private void add(List<String> rule) {
        List<String> insert = new ArrayList<>(List.of("-I"));
        insert.addAll(rule);
        run(insert);
        rules.add(rule);
    }

    private static void loopback(String address) {
        try {
            if (!InetAddress.getByName(address).isLoopbackAddress() || !address.startsWith("127.")) {
                throw new IllegalArgumentException(address + " is not a loopback address: only 127.0.0.0/8 may be"
                        + " cut off");
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + address, e);
        }
    }

    private static void removeOrphans() {
        for (String chain : List.of("INPUT", "OUTPUT")) {
            Result r;
            try {
                r = iptables(List.of("-S", chain));
            } catch (IOException e) {
                return;
            }
            for (String line : r.output.split("\n")) {
                int at = line.indexOf(TAG);
                if (!line.startsWith("-A " + chain) || at < 0) {
                    continue;
                }
                String pid = line.substring(at + TAG.length()).replaceAll("[^0-9].*", "");
                if (!pid.isEmpty() && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
                    List<String> delete = new ArrayList<>(List.of("-D"));
                    delete.addAll(List.of(line.substring(3).replace("\"", "").split(" ")));
                    run(delete);
                }
            }
        }
    }

    private static void run(List<String> args) {
        try {
            Result r = iptables(args);
            if (r.code != 0) {
                throw new IllegalStateException("iptables " + String.join(" ", args) + " failed: " + r.output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("iptables cannot run: " + e.getMessage(), e);
        }
    }

    private record Result(int code, String output) {
    }

    private static Result iptables(List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of("iptables", "-w", "5"));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out");
            }
            return new Result(p.exitValue(), out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return new Result(-1, "interrupted");
        }
    }
}
