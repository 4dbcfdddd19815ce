// Drives graphile-worker for rowqueue's benchmark harness (GraphileWorkerPeer), as a child process of the JVM.
// Commands arrive one JSON object a line on stdin; each gets one answer line on stdout starting with "@@ ".
// Everything else the process prints (graphile-worker's logging is switched off) is ignored by the harness.
"use strict";
const readline = require("readline");
const { run, runMigrations, makeWorkerUtils, Logger } = require("graphile-worker");

const connectionString = process.env.BENCH_DATABASE_URL;
const poolSize = Number(process.env.BENCH_POOL_SIZE || "24");
const silent = new Logger(() => () => {});

let done = 0; // jobs whose handler returned (throughput) or started (latency)
let runner = null;
let utils = null;
let loops = null; // enqueue loops
let enqueued = 0;
let trickle = null;
let recording = false;
let samples = [];

const sleep1 = () => new Promise((resolve) => setTimeout(resolve, 1));

function answer(value) {
  process.stdout.write("@@ " + JSON.stringify(value) + "\n");
}

async function workerUtils() {
  if (!utils) {
    utils = await makeWorkerUtils({ connectionString, logger: silent, maxPoolSize: poolSize });
  }
  return utils;
}

// add_jobs (graphile-worker's batch API in SQL) with n jobs of one task
async function addJobs(client, identifier, n) {
  const specs = [];
  for (let i = 0; i < n; i++) {
    specs.push({ identifier, payload: {} });
  }
  await client.query({
    text: "select graphile_worker.add_jobs(array(select json_populate_recordset(null::graphile_worker.job_spec, $1::json)))",
    values: [JSON.stringify(specs)],
    name: "bench_add_jobs",
  });
}

async function startWorker(concurrency, taskList) {
  runner = await run({
    connectionString,
    concurrency,
    maxPoolSize: poolSize,
    pollInterval: 100,
    noPreparedStatements: false,
    noHandleSignals: true,
    logger: silent,
    taskList,
  });
}

async function stopWorker() {
  if (runner) {
    await runner.stop();
    runner = null;
  }
}

const commands = {
  async init() {
    await runMigrations({ connectionString, logger: silent });
    return { version: require("graphile-worker/package.json").version, node: process.version };
  },
  async fill({ n }) {
    const u = await workerUtils();
    for (let left = n; left > 0; left -= 500) {
      await u.withPgClient((client) => addJobs(client, "bench", Math.min(500, left)));
    }
    return {};
  },
  async start({ concurrency, handler }) {
    const task = handler === "sleep1"
      ? async () => { await sleep1(); done++; }
      : async () => { done++; };
    await startWorker(concurrency, { bench: task });
    return {};
  },
  async count() {
    return { done, enqueued };
  },
  async stop() {
    await stopWorker();
    return {};
  },
  async clear() {
    const u = await workerUtils();
    await u.withPgClient((client) => client.query("delete from graphile_worker._private_jobs"));
    return {};
  },
  // `concurrency` loops, each adding one job (addJob) or a batch (add_jobs) at a time, until stopEnqueue
  async enqueue({ concurrency, batch }) {
    const u = await workerUtils();
    let stop = false;
    const one = async () => {
      while (!stop) {
        if (batch <= 1) {
          await u.addJob("bench_enqueue", {});
          enqueued++;
        } else {
          await u.withPgClient((client) => addJobs(client, "bench_enqueue", batch));
          enqueued += batch;
        }
      }
    };
    const all = [];
    for (let i = 0; i < concurrency; i++) {
      all.push(one());
    }
    loops = { stop: () => { stop = true; return Promise.all(all); } };
    return {};
  },
  async stopEnqueue() {
    if (loops) {
      await loops.stop();
      loops = null;
    }
    return { enqueued };
  },
  // an idle worker of `concurrency`, and one job at a time at random intervals (uniform between 0 and twice the
  // mean), each carrying process.hrtime taken just before its addJob; the task records the time to its own start
  async trickle({ concurrency, perSecond }) {
    const u = await workerUtils();
    await startWorker(concurrency, {
      latency: async (payload) => {
        const now = process.hrtime.bigint();
        if (recording) {
          samples.push(Number(now - BigInt(payload.t)));
        }
        done++;
      },
    });
    let stop = false;
    const meanMs = 1000 / perSecond;
    const loop = (async () => {
      while (!stop) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * meanMs));
        if (!stop) {
          await u.addJob("latency", { t: process.hrtime.bigint().toString() });
        }
      }
    })();
    trickle = { stop: () => { stop = true; return loop; } };
    return {};
  },
  async record({ on }) {
    recording = on;
    return {};
  },
  async samples() {
    return { samples };
  },
  async stopTrickle() {
    if (trickle) {
      await trickle.stop();
      trickle = null;
    }
    await stopWorker();
    return {};
  },
  async reset() {
    done = 0;
    enqueued = 0;
    samples = [];
    recording = false;
    return {};
  },
  async exit() {
    await stopWorker();
    if (utils) {
      await utils.release();
    }
    setImmediate(() => process.exit(0));
    return {};
  },
};

const lines = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  queue = queue.then(async () => {
    try {
      const command = JSON.parse(line);
      const handler = commands[command.op];
      if (!handler) {
        throw new Error("unknown command " + command.op);
      }
      answer({ ok: true, ...(await handler(command)) });
    } catch (e) {
      answer({ ok: false, error: String((e && e.stack) || e) });
    }
  });
});
lines.on("close", () => process.exit(0));
