package dev.rowqueue.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The graphile-worker peer: Node.js's job queue for PostgreSQL, run as a child process of the harness
 * ({@code graphile-driver.js}, which takes one command a line) against the target's PostgreSQL server. It is
 * installed at run time with npm into {@code ~/.cache/rowqueue/graphile-worker-<version>} (never into the
 * repository), version {@value #VERSION}, the newest that runs on Node 20 (0.17 added batched completion and a local
 * queue, 0.18 needs Node 22). Its best settings on that version: {@code concurrency} = the cell's threads, prepared
 * statements on (its default), a pool of {@link Targets#POOL} connections (the harness's pool size), LISTEN/NOTIFY
 * for new jobs with {@code pollInterval} 100 ms as the fallback; jobs enqueued with {@code addJob} (its
 * {@code add_job} function) one at a time, or with its batch function {@code add_jobs} (and backlogs filled with it).
 * Without a {@code node} executable, or if npm cannot install it, its cells are "not run" with the reason.
 */
final class GraphileWorkerPeer implements Contender {

    /** The graphile-worker release installed and run. */
    static final String VERSION = "0.16.6";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ANSWER = "@@ ";

    private final BenchTarget target;
    private final Process process;
    private final Writer in;
    private final BufferedReader out;
    private String versions = "graphile-worker " + VERSION;

    private GraphileWorkerPeer(BenchTarget target, Process process) {
        this.target = target;
        this.process = process;
        this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Where graphile-worker can or cannot run: a PostgreSQL server reached over TCP, a {@code node} executable, and
     * graphile-worker installed (or installable with npm).
     *
     * @param target the database
     * @param node   the {@code node} executable: a path, or a name looked up on {@code PATH}
     * @return the peer, started
     * @throws NotRun why it cannot run here
     */
    static GraphileWorkerPeer start(BenchTarget target, String node) throws NotRun {
        if (!target.name().startsWith("PostgreSQL") || target.endpoint().isEmpty()) {
            throw new NotRun("graphile-worker runs on PostgreSQL only");
        }
        Optional<Path> executable = executable(node);
        if (executable.isEmpty()) {
            throw new NotRun("no node executable (" + node + "): graphile-worker needs Node.js");
        }
        try {
            Path dir = install(executable.get());
            Path driver = dir.resolve("bench-driver.js");
            try (InputStream script = GraphileWorkerPeer.class.getResourceAsStream("graphile-driver.js")) {
                Files.copy(script, driver, StandardCopyOption.REPLACE_EXISTING);
            }
            BenchTarget.Endpoint e = target.endpoint().get();
            ProcessBuilder pb = new ProcessBuilder(executable.get().toString(), driver.toString()).directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.put("BENCH_DATABASE_URL", "postgres://" + e.user() + (e.password().isEmpty() ? "" : ":" + e.password())
                    + "@" + e.host() + ":" + e.port() + "/postgres");
            env.put("BENCH_POOL_SIZE", Integer.toString(Targets.POOL));
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            Process p = pb.start();
            GraphileWorkerPeer peer = new GraphileWorkerPeer(target, p);
            try {
                JsonNode init = peer.call(Map.of("op", "init"));
                peer.versions = "graphile-worker " + init.path("version").asText() + " on Node.js "
                        + init.path("node").asText();
                return peer;
            } catch (IOException | RuntimeException ex) {
                peer.close();
                throw ex;
            }
        } catch (Exception ex) {
            throw new NotRun("graphile-worker did not start: " + ex.getMessage());
        }
    }

    /** @return the executable: {@code node} as a path, or found on {@code PATH} */
    static Optional<Path> executable(String node) {
        if (node.contains("/")) {
            Path p = Path.of(node);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, node);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Installs graphile-worker with npm (found beside {@code node}, or on {@code PATH}) into the cache directory,
     * once: later runs find it there.
     */
    private static Path install(Path node) throws IOException, InterruptedException {
        Path dir = Path.of(System.getProperty("bench.graphile.dir", System.getProperty("user.home")
                + "/.cache/rowqueue/graphile-worker-" + VERSION));
        if (Files.isRegularFile(dir.resolve("node_modules/graphile-worker/package.json"))) {
            return dir;
        }
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("package.json"))) {
            Files.writeString(dir.resolve("package.json"), "{\"private\": true}\n");
        }
        Path npm = node.resolveSibling("npm");
        String npmCommand = Files.isExecutable(npm) ? npm.toString()
                : executable("npm").map(Path::toString).orElseThrow(() -> new IOException("no npm to install it"));
        System.out.println("   installing graphile-worker " + VERSION + " into " + dir + " with npm ...");
        Process p = new ProcessBuilder(npmCommand, "install", "--no-audit", "--no-fund", "graphile-worker@" + VERSION)
                .directory(dir.toFile()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("npm install graphile-worker@" + VERSION + " failed: " + log.strip());
        }
        return dir;
    }

    /** Sends one command and returns its answer. */
    private synchronized JsonNode call(Map<String, Object> command) throws IOException {
        in.write(JSON.writeValueAsString(command));
        in.write('\n');
        in.flush();
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith(ANSWER)) {
                JsonNode answer = JSON.readTree(line.substring(ANSWER.length()));
                if (!answer.path("ok").asBoolean()) {
                    throw new IOException("graphile-worker driver: " + answer.path("error").asText());
                }
                return answer;
            }
        }
        throw new IOException("the graphile-worker driver closed its output (" + (process.isAlive() ? "still running"
                : "exit code " + process.exitValue()) + ")");
    }

    private long count(String field) {
        try {
            return call(Map.of("op", "count")).path(field).asLong();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void cleanUp(String stop) throws IOException {
        call(Map.of("op", stop));
        call(Map.of("op", "clear"));
        call(Map.of("op", "reset"));
    }

    @Override
    public String name() {
        return "graphile-worker";
    }

    @Override
    public String settings() {
        return versions + ": run({concurrency: n, maxPoolSize: " + Targets.POOL + ", pollInterval: 100}) with prepared"
                + " statements (its default), LISTEN/NOTIFY; addJob / add_jobs (batch); no batched completion or local"
                + " queue before 0.17";
    }

    @Override
    public List<Long> processes() {
        return process.isAlive() ? List.of(process.pid()) : List.of();
    }

    @Override
    public Harness.Measurement workers(Profile profile, Workers.Handler handler, int threads) throws Exception {
        Harness.Observed work = new ToppedUp(profile) {
            @Override
            void fill(long n) throws IOException {
                call(Map.of("op", "fill", "n", n));
            }

            @Override
            void start() throws Exception {
                Workers.analyze(target, "graphile_worker._private_jobs");
                call(Map.of("op", "start", "concurrency", threads, "handler",
                        handler == Workers.Handler.NOOP ? "noop" : "sleep1"));
            }

            @Override
            public long completed() {
                return count("done");
            }
        };
        try {
            return Harness.observe(profile, work);
        } finally {
            cleanUp("stop");
        }
    }

    @Override
    public Harness.Measurement enqueue(Profile profile, int threads, int batch) throws Exception {
        return observe(profile, Map.of("op", "enqueue", "concurrency", threads, "batch", batch), "enqueued", false,
                "stopEnqueue");
    }

    @Override
    public Harness.Measurement latency(Profile profile, int threads) throws Exception {
        return observe(profile, Map.of("op", "trickle", "concurrency", threads, "perSecond",
                Bench.TRICKLE_PER_SECOND), "done", true, "stopTrickle");
    }

    /**
     * Watches work the driver does on its own once started: the count {@code counter} it reports; with
     * {@code latencies}, the enqueue-to-start samples of the timed rounds.
     */
    private Harness.Measurement observe(Profile profile, Map<String, Object> start, String counter, boolean latencies,
                                        String stop) throws Exception {
        boolean[] started = {false};
        Harness.Observed work = new Harness.Observed() {
            @Override
            public void beforeRound(boolean timed, double lastRate, long roundNanos) throws Exception {
                if (!started[0]) {
                    started[0] = true;
                    call(start);
                }
                call(Map.of("op", "record", "on", timed));
            }

            @Override
            public long completed() {
                return count(counter);
            }

            @Override
            public long[] latencies() {
                if (!latencies) {
                    return null;
                }
                try {
                    JsonNode samples = call(Map.of("op", "samples")).path("samples");
                    long[] all = new long[samples.size()];
                    for (int i = 0; i < all.length; i++) {
                        all[i] = samples.get(i).asLong();
                    }
                    return all;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        try {
            return Harness.observe(profile, work);
        } finally {
            cleanUp(stop);
        }
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            try {
                call(Map.of("op", "exit"));
            } catch (IOException e) {
                // exiting
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
