/**
 * Recall latency at scale, side by side with raw LanceDB doing the same hybrid work.
 *
 *   npm run bench:recall                 # 100 users × 1,000 memories (about 3–4 min on 2 cores)
 *   npm run bench:recall -- --full       # 1,000 × 1,000 as well (opt-in: about 30 min)
 *   npm run bench:recall -- --users 20 --per-user 500 --queries 200 --writes 2000   # a quick look
 *
 * Phases: ingest through RememberBatch → recall (sequential, then 8 concurrent clients) next to a
 * raw-LanceDB baseline on an identically shaped table in the same run → 10k single-row Remember
 * calls (concurrent) → recall again, right away and after background maintenance has run.
 * Prints tables and writes bench/results/recall.json.
 *
 * Diagnostics: BENCH_SERVER_LOG=file keeps the server's log lines, BENCH_SAMPLES_FILE=file each
 * API call's start, duration and user, and BENCH_SERVER_NODE_OPTIONS reaches the server alone
 * (e.g. `--import` of a GC observer), so slow calls can be lined up with what the server did.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import type { TimerRequest } from "./support/api-timer.js";
import { createRandom, createVocabulary, query, sentence, userId } from "./support/corpus.js";
import { memoryClient } from "./support/client.js";
import { openRawLance, type RawLance } from "./support/raw-lance.js";
import { cacheCounters, type ServerProcess, startServerProcess } from "./support/server-process.js";
import { pool, printTable, since, summarize, type Summary, writeResults } from "./support/stats.js";

const { values: args } = parseArgs({
  options: {
    users: { type: "string", default: "100" },
    "per-user": { type: "string", default: "1000" },
    // 2,000 per phase: at 8 in flight one server pause delays 8 calls at once, which in 400 calls
    // would be 2% of the phase — its p99 would be that one event, not the tail of the distribution.
    queries: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "8" },
    writes: { type: "string", default: "10000" },
    k: { type: "string", default: "10" },
    full: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});

type Client = ReturnType<typeof memoryClient>;

interface PhaseResult {
  phase: string;
  mode: string;
  api: Summary;
  raw: Summary;
  ratioP50: number;
  p99OverP50: number;
}

/** The API side of each phase is timed in a worker thread (see support/api-timer.ts). */
const apiTimer = (() => {
  let worker: Worker | null = null;
  return {
    time(req: TimerRequest): Promise<number[]> {
      // tsx's loader is registered inside the worker (execArgv `--import tsx` does not reach it on Node 20).
      const script = new URL("./support/api-timer.ts", import.meta.url).href;
      worker ??= new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(script)}); });`, { eval: true });
      const w = worker;
      return new Promise((resolve, reject) => {
        w.once("message", (m: { samples?: number[]; error?: string }) => (m.samples ? resolve(m.samples) : reject(new Error(m.error))));
        w.once("error", reject);
        w.postMessage(req);
      });
    },
    close: () => worker?.terminate(),
  };
})();

/** Times `total` calls of `call` at `concurrency`. */
async function timed(total: number, concurrency: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  await pool(total, concurrency, async (i) => {
    const t = performance.now();
    await call(i);
    samples.push(since(t));
  });
  return samples;
}

async function ingest(client: Client, users: number, perUser: number, seed: number): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  const vocabulary = createVocabulary(5000);
  const start = performance.now();
  await pool(users, 2, async (u) => {
    const random = createRandom(seed + u);
    for (let offset = 0; offset < perUser; offset += 1000) {
      const n = Math.min(1000, perUser - offset);
      const items = Array.from({ length: n }, (_, i) => ({
        scope: { user: userId(u) },
        content: sentence(vocabulary, random),
        role: "user",
        traceNumber: BigInt(offset + i),
      }));
      await client.rememberBatch({ items });
    }
  });
  const seconds = since(start) / 1000;
  return { rows: users * perUser, seconds, rowsPerSecond: (users * perUser) / seconds };
}

async function buildRaw(dir: string, users: number, perUser: number, seed: number): Promise<{ raw: RawLance; seconds: number }> {
  const vocabulary = createVocabulary(5000);
  const start = performance.now();
  const raw = await openRawLance(dir);
  for (let u = 0; u < users; u++) {
    const random = createRandom(seed + u);
    await raw.addUser(userId(u), Array.from({ length: perUser }, () => sentence(vocabulary, random)));
  }
  await raw.finish();
  return { raw, seconds: since(start) / 1000 };
}

/** Prints one phase's rows as soon as they are measured (long runs show progress). */
function show(results: PhaseResult[]): PhaseResult[] {
  for (const r of results) {
    process.stdout.write(`${r.phase} / ${r.mode}: api p50 ${r.api.p50} p99 ${r.api.p99} | raw p50 ${r.raw.p50} p99 ${r.raw.p99} | ratio ${r.ratioP50.toFixed(2)}\n`);
  }
  return results;
}

async function measure(phase: string, client: Client, apiUrl: string, raw: RawLance, users: number, queries: number, concurrency: number, k: number): Promise<PhaseResult[]> {
  const vocabulary = createVocabulary(5000);
  const random = createRandom(99);
  const work = Array.from({ length: queries }, () => ({ user: userId(Math.floor(random() * users)), text: query(vocabulary, random) }));
  const direct = (i: number) => raw.hybrid(work[i].user, work[i].text, k);
  // Warm both paths over every user once, so the figure is steady state rather than first touch.
  await timed(Math.min(users, 200), 4, (i) => client.recall({ scope: { user: userId(i) }, query: "warm", k }));
  await timed(Math.min(users, 200), 4, (i) => raw.hybrid(userId(i), "warm", k));
  const out: PhaseResult[] = [];
  for (const [mode, c] of [["sequential", 1], [`${concurrency} concurrent`, concurrency]] as const) {
    const a = summarize(await apiTimer.time({ url: apiUrl, work, concurrency: c, k }));
    const r = summarize(await timed(queries, c, direct));
    out.push(...show([{ phase, mode, api: a, raw: r, ratioP50: a.p50 / r.p50, p99OverP50: a.p99 / a.p50 }]));
  }
  return out;
}

async function singleWrites(client: Client, users: number, total: number): Promise<{ seconds: number; perSecond: number }> {
  const vocabulary = createVocabulary(5000);
  const random = createRandom(4242);
  const start = performance.now();
  await pool(total, 16, async (i) => {
    await client.remember({ scope: { user: userId(Math.floor(random() * users)) }, content: sentence(vocabulary, random), role: "user", traceNumber: BigInt(i) });
  });
  const seconds = since(start) / 1000;
  return { seconds, perSecond: total / seconds };
}

async function run(users: number, perUser: number): Promise<Record<string, unknown>> {
  const queries = Number(args.queries);
  const concurrency = Number(args.concurrency);
  const k = Number(args.k);
  const writes = Number(args.writes);
  const root = await mkdtemp(join(tmpdir(), "agentmem-bench-recall-"));
  const seed = 1000;
  process.stdout.write(`\n== ${users} users × ${perUser} memories (data in ${root})\n`);
  const server: ServerProcess = await startServerProcess({ data: join(root, "server"), env: { AGENTMEM_MAINTENANCE_SECONDS: "5" } });
  try {
    const client = memoryClient(server.url);
    const loaded = await ingest(client, users, perUser, seed);
    process.stdout.write(`ingested ${loaded.rows} rows in ${loaded.seconds.toFixed(1)} s (${Math.round(loaded.rowsPerSecond)} rows/s), server RSS ${server.rssMiB()} MiB\n`);
    const built = await buildRaw(join(root, "raw"), users, perUser, seed);
    process.stdout.write(`raw baseline table built in ${built.seconds.toFixed(1)} s\n`);
    await waitForMaintenance(server, 120_000, server.logs.length);
    const results: PhaseResult[] = [];
    results.push(...(await measure("after ingest", client, server.url, built.raw, users, queries, concurrency, k)));
    const rssAfterRecall = server.rssMiB();
    const cacheAfterRecall = await cacheCounters(server);
    process.stdout.write(`hot rows after the first recall phase: ${JSON.stringify(cacheAfterRecall)}\n`);
    const writesFrom = server.logs.length;
    const written = writes > 0 ? await singleWrites(client, users, writes) : { seconds: 0, perSecond: 0 };
    const cacheAfterWrites = await cacheCounters(server);
    if (writes > 0) {
      process.stdout.write(`${writes} single-row Remember calls at 16 concurrent: ${written.seconds.toFixed(1)} s (${Math.round(written.perSecond)}/s)\n`);
      process.stdout.write(`hot rows after the writes: ${JSON.stringify(cacheAfterWrites)}\n`);
      results.push(...(await measure(`+${writes} writes`, client, server.url, built.raw, users, queries, concurrency, k)));
      await waitForMaintenance(server, 180_000, writesFrom);
      results.push(...(await measure(`+${writes}, maintained`, client, server.url, built.raw, users, queries, concurrency, k)));
    }
    const rss = server.rssMiB();
    const cache = await cacheCounters(server);
    printTable(
      `recall k=${k} over HTTP vs raw LanceDB (ms), ${users}×${perUser}`,
      results.map((r) => ({ phase: r.phase, mode: r.mode, "api p50": r.api.p50, "api p99": r.api.p99, "raw p50": r.raw.p50, "raw p99": r.raw.p99, "api/raw p50": r.ratioP50, "api p99/p50": r.p99OverP50 })),
    );
    const maintenance = server.logs.filter((l) => l.msg === "table maintained");
    const commits = server.logs.filter((l) => l.msg === "write stats");
    process.stdout.write(`server RSS ${rss} MiB (after first recall phase ${rssAfterRecall} MiB); maintenance runs ${maintenance.length}\n`);
    process.stdout.write(`write stats (commits, calls, mean calls per commit): ${JSON.stringify(commits.at(-1)?.kinds ?? {})}\n`);
    built.raw.close();
    return { users, perUser, ingest: loaded, rawBuildSeconds: built.seconds, singleWrites: written, results, rssMiB: rss, rssAfterRecallMiB: rssAfterRecall, cache: { afterRecall: cacheAfterRecall, afterWrites: cacheAfterWrites, end: cache }, maintenance, commits };
  } finally {
    await server.stop();
    if (!args.keep) await rm(root, { recursive: true, force: true });
  }
}

/** Waits until a maintenance pass finds nothing left to do (or the timeout passes). */
async function waitForMaintenance(server: ServerProcess, timeoutMs: number, from = 0): Promise<void> {
  const start = performance.now();
  // "maintenance idle" is logged once, when a busy pass is followed by an idle one: if the last
  // maintenance line since `from` says idle, it has settled already.
  const last = server.logs.slice(from).filter((l) => l.msg === "maintenance idle" || l.msg === "table maintained").at(-1);
  if (last?.msg === "maintenance idle") return;
  try {
    await server.waitForLog((l) => l.msg === "maintenance idle", timeoutMs, from);
  } catch {
    process.stdout.write("maintenance did not report idle in time\n");
  }
  process.stdout.write(`maintenance settled after ${(since(start) / 1000).toFixed(1)} s\n`);
}

const runs = [await run(Number(args.users), Number(args["per-user"]))];
if (args.full) runs.push(await run(1000, 1000));
await apiTimer.close();
process.stdout.write(`\nwrote ${writeResults("recall", { args, runs })}\n`);
