/**
 * Ingest throughput through the API over HTTP, with the `hash` embedder.
 *
 *   npm run bench:ingest                  # 100 × 1,000-item RememberBatch calls + 2,000 single Remember calls (~4–6 min on 2 cores)
 *   npm run bench:ingest -- --batches 20 --singles 1000   # a quick look (~1 min)
 *
 * Reports rows/s (wall clock and per server CPU second, which is steadier on a shared machine),
 * the mean commit group size of concurrent single Remember calls (from the server's `write stats`
 * log), fragments and versions created, and how long background maintenance takes to fold them
 * and what it does to recall latency. Prints tables and writes bench/results/ingest.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { memoryClient } from "./support/client.js";
import { createRandom, createVocabulary, query, sentence, userId } from "./support/corpus.js";
import { cpuSeconds, type LogLine, type ServerProcess, startServerProcess } from "./support/server-process.js";
import { pool, printTable, since, summarize, writeResults } from "./support/stats.js";
import { tableStats } from "./support/table-stats.js";

const { values: args } = parseArgs({
  options: {
    batches: { type: "string", default: "100" },
    users: { type: "string", default: "100" },
    singles: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "16" },
  },
});

type Totals = Record<string, { commits: number; tasks: number }>;
const writeStats = (server: ServerProcess): Totals => ((server.logs.filter((l) => l.msg === "write stats").at(-1)?.kinds ?? {}) as Totals);

/** Waits for the next `write stats` line (the server logs one per maintenance pass when writes moved). */
async function nextWriteStats(server: ServerProcess): Promise<Totals> {
  const mark = server.logs.length;
  await server.waitForLog((l: LogLine) => l.msg === "write stats", 30_000, mark).catch(() => undefined);
  return writeStats(server);
}

async function recallSample(client: ReturnType<typeof memoryClient>, users: number, n: number) {
  const vocabulary = createVocabulary(5000);
  const random = createRandom(7);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await client.recall({ scope: { user: userId(Math.floor(random() * users)) }, query: query(vocabulary, random), k: 10 });
    samples.push(since(t));
  }
  return summarize(samples);
}

const root = await mkdtemp(join(tmpdir(), "agentmem-bench-ingest-"));
const data = join(root, "data");
const server = await startServerProcess({ data, env: { AGENTMEM_MAINTENANCE_SECONDS: "5" } });
try {
  const client = memoryClient(server.url);
  const vocabulary = createVocabulary(5000);
  const batches = Number(args.batches);
  const users = Number(args.users);
  // 1. RememberBatch: 1,000 items per call, two calls in flight.
  let cpu0 = cpuSeconds(server.pid);
  let start = performance.now();
  const batchLatency: number[] = [];
  await pool(batches, 2, async (b) => {
    const random = createRandom(100 + b);
    const items = Array.from({ length: 1000 }, (_, i) => ({ scope: { user: userId(b % users) }, content: sentence(vocabulary, random), role: "user", traceNumber: BigInt(b * 1000 + i) }));
    const t = performance.now();
    await client.rememberBatch({ items });
    batchLatency.push(since(t));
  });
  const batchSeconds = since(start) / 1000;
  const batchCpu = cpuSeconds(server.pid) - cpu0;
  const rows = batches * 1000;
  const afterBatches = await tableStats(data);
  // 2. Concurrent single Remember calls.
  const before = await nextWriteStats(server);
  const singles = Number(args.singles);
  const concurrency = Number(args.concurrency);
  cpu0 = cpuSeconds(server.pid);
  const singlesMark = server.logs.length;
  start = performance.now();
  const random = createRandom(4242);
  await pool(singles, concurrency, async (i) => {
    await client.remember({ scope: { user: userId(Math.floor(random() * users)) }, content: sentence(vocabulary, random), role: "user", traceNumber: BigInt(10_000_000 + i) });
  });
  const singleSeconds = since(start) / 1000;
  const singleCpu = cpuSeconds(server.pid) - cpu0;
  const after = await nextWriteStats(server);
  const group = (kind: string) => {
    const commits = (after[kind]?.commits ?? 0) - (before[kind]?.commits ?? 0);
    const tasks = (after[kind]?.tasks ?? 0) - (before[kind]?.tasks ?? 0);
    return { commits, tasks, meanGroup: commits > 0 ? tasks / commits : 0 };
  };
  const afterSingles = await tableStats(data);
  // 3. Maintenance: recall before it folds the small fragments, the time it takes, recall after.
  const recallBefore = await recallSample(client, users, 100);
  const mark = server.logs.length;
  start = performance.now();
  // "maintenance idle" is logged once, when a busy pass is followed by an idle one: if the last
  // maintenance line since the single calls began says idle, it has settled already (an idle line
  // from before them says nothing about their fragments).
  const lastMaintenance = server.logs.slice(singlesMark).filter((l) => l.msg === "maintenance idle" || l.msg === "table maintained").at(-1);
  if (lastMaintenance?.msg !== "maintenance idle") {
    await server.waitForLog((l) => l.msg === "maintenance idle", 300_000, mark).catch(() => undefined);
  }
  const maintenanceSeconds = since(start) / 1000;
  const afterMaintenance = await tableStats(data);
  const recallAfter = await recallSample(client, users, 100);
  const maintained = server.logs.slice(singlesMark).filter((l) => l.msg === "table maintained");

  printTable("ingest over HTTP (hash embedder)", [
    { path: "RememberBatch ×1000, 2 in flight", rows, seconds: batchSeconds, "rows/s": rows / batchSeconds, "server CPU s": batchCpu, "rows per CPU s": rows / batchCpu, "call p50 ms": summarize(batchLatency).p50 },
    { path: `single Remember, ${concurrency} in flight`, rows: singles, seconds: singleSeconds, "rows/s": singles / singleSeconds, "server CPU s": singleCpu, "rows per CPU s": singles / singleCpu, "call p50 ms": NaN },
  ]);
  printTable("commit grouping of the single Remember calls", ["memories", "episodes"].map((k) => ({ table: k, ...group(k) })));
  printTable(
    "fragments / versions",
    ["memories", "episodes"].map((k) => ({
      table: k,
      "after batches": `${afterBatches[k]?.fragments} / ${afterBatches[k]?.versions}`,
      "after singles": `${afterSingles[k]?.fragments} / ${afterSingles[k]?.versions}`,
      "after maintenance": `${afterMaintenance[k]?.fragments} / ${afterMaintenance[k]?.versions}`,
    })),
  );
  printTable("recall around maintenance (ms)", [
    { when: "before maintenance settles", p50: recallBefore.p50, p99: recallBefore.p99 },
    { when: `after (${maintenanceSeconds.toFixed(1)} s, ${maintained.length} optimize runs)`, p50: recallAfter.p50, p99: recallAfter.p99 },
  ]);
  const file = writeResults("ingest", {
    args, rows, batchSeconds, batchCpu, batchLatency: summarize(batchLatency), singles, singleSeconds, singleCpu,
    grouping: { memories: group("memories"), episodes: group("episodes") }, afterBatches, afterSingles, afterMaintenance,
    maintenanceSeconds, maintained, recallBefore, recallAfter, rssMiB: server.rssMiB(),
  });
  process.stdout.write(`\nserver RSS ${server.rssMiB()} MiB\nwrote ${file}\n`);
} finally {
  await server.stop();
  await rm(root, { recursive: true, force: true });
}
