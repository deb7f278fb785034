/**
 * Recall for random end-users as the table grows, against raw LanceDB doing the same hybrid work
 * on an identically shaped table in the same run, with ingest rate and server RSS.
 *
 *   npm run bench:scale                                   # 100k and 300k memories (1,000 per user)
 *   npm run bench:scale -- --sizes 1000000 --queries 300  # 1M over 1,000 users (long; needs a quiet machine)
 *   npm run bench:scale -- --sizes 100000 --per-user 100  # 100k over 1,000 users
 *   npm run bench:scale -- --sizes 100000 --hot-rows-mb 0 --restart-only  # the engine path alone (no row cache)
 *
 * Per size: ingest through RememberBatch → raw baseline table built (ONE unsharded table, compacted
 * and indexed, the engine at its best) → recall for uniformly random end-users right away
 * ("after ingest"; sequential; most are not in the hot-row cache once the table outgrows its
 * budget) → maintenance settled (a pass found nothing to do, and every `memories`/`episodes`
 * table is under the compaction threshold) → the same again ("settled") → the same after a server
 * restart (nobody held: every first recall of a user takes the cold path). Meanwhile the data
 * directory is sampled every 2 s: when the tables came back under the small-fragment threshold
 * after ingest, and the server's peak RSS. Compactions are read from the server log (count, time,
 * bytes rewritten: the rows of the fragments each pass replaced, by folds and full rewrites, times
 * the table's bytes per row). Prints tables and writes bench/results/scale.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createRandom, createVocabulary, query, sentence, userId } from "./support/corpus.js";
import { memoryClient } from "./support/client.js";
import { ingestUsers } from "./support/ingest.js";
import { openRawLance, type RawLance } from "./support/raw-lance.js";
import { cacheCounters, type ServerProcess, startServerProcess } from "./support/server-process.js";
import { printTable, since, summarize, type Summary, writeResults } from "./support/stats.js";
import { tableStats } from "./support/table-stats.js";
import { SMALL_FRAGMENT_THRESHOLD, watchTables } from "./support/table-watch.js";

/** The bench server's maintenance period (seconds). */
const MAINTENANCE_SECONDS = 5;

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "100000,300000" },
    "per-user": { type: "string", default: "1000" },
    queries: { type: "string", default: "1000" },
    k: { type: "string", default: "10" },
    keep: { type: "boolean", default: false },
    /** AGENTMEM_HOT_ROWS_MB for the server (0: no row cache, every recall takes the engine path). */
    "hot-rows-mb": { type: "string" },
    /** Only the phase after a restart (nobody held). */
    "restart-only": { type: "boolean", default: false },
  },
});


interface Phase {
  phase: string;
  api: Summary;
  raw: Summary;
  /** Hot-row cache counters that moved during the phase. */
  cache: Record<string, number>;
  /** Reads of the end-user's rows per recall (cache hits + engine reads); raw LanceDB makes 2. */
  readsPerRecall: number;
}

async function buildRaw(dir: string, users: number, perUser: number): Promise<RawLance> {
  const vocabulary = createVocabulary(5000);
  const raw = await openRawLance(dir);
  for (let u = 0; u < users; u++) {
    const random = createRandom(1000 + u);
    await raw.addUser(userId(u), Array.from({ length: perUser }, () => sentence(vocabulary, random)));
  }
  await raw.finish();
  return raw;
}

/**
 * Waits until maintenance is truly idle: a pass after `fromLog` found nothing to do, and no table
 * is over the small-fragment threshold (a vector index build runs beside the passes, so an idle
 * pass alone does not prove it ended; with shards under `AGENTMEM_VECTOR_INDEX_ROWS` none starts).
 */
async function settle(server: ServerProcess, data: string, fromLog: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  const fromTime = Date.now();
  // The last maintenance line since ingest is "idle"; or there was none and two periods passed.
  const idle = () => {
    const lines = server.logs.slice(fromLog).filter((l) => l.msg === "maintenance idle" || l.msg === "table maintained" || l.msg === "vector index built");
    return lines.length === 0 ? Date.now() - fromTime >= 2 * MAINTENANCE_SECONDS * 1000 : lines.at(-1)?.msg === "maintenance idle";
  };
  while (since(start) < timeoutMs) {
    const stats = await tableStats(data);
    const busy = Object.values(stats).some((k) => k.maxSmall >= SMALL_FRAGMENT_THRESHOLD || k.awaitingVectorIndex > 0);
    if (!busy && idle()) break;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  if (since(start) >= timeoutMs) process.stdout.write("maintenance did not settle in time\n");
  return since(start) / 1000;
}

/** Compactions the server logged since `fromLog`: count, optimize seconds, bytes rewritten (in all, and by the largest pass). */
function compactions(server: ServerProcess, fromLog: number) {
  const runs = server.logs.slice(fromLog).filter((l) => l.msg === "table maintained");
  const bytes = runs.map((l) => Number(l.bytesRewritten ?? 0));
  return {
    count: runs.length,
    optimizeSeconds: runs.reduce((n, l) => n + Number(l.millis ?? 0), 0) / 1000,
    maxOptimizeSeconds: Math.max(0, ...runs.map((l) => Number(l.millis ?? 0))) / 1000,
    bytesRewritten: bytes.reduce((a, b) => a + b, 0),
    maxPassBytes: Math.max(0, ...bytes),
    vectorIndexes: server.logs.slice(fromLog).filter((l) => l.msg === "vector index built").length,
  };
}

/**
 * Recalls for uniformly random end-users, each followed by raw LanceDB's hybrid query for the
 * same user and text (sequential, one client each): both see the same machine moment by moment.
 */
async function measure(phase: string, server: ServerProcess, raw: RawLance, users: number, queries: number, k: number, seed: number): Promise<Phase> {
  const client = memoryClient(server.url);
  const vocabulary = createVocabulary(5000);
  const random = createRandom(seed);
  const before = await cacheCounters(server);
  const api: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < queries; i++) {
    const user = userId(Math.floor(random() * users));
    const text = query(vocabulary, random);
    let t = performance.now();
    await client.recall({ scope: { user }, query: text, k });
    api.push(since(t));
    t = performance.now();
    await raw.hybrid(user, text, k);
    direct.push(since(t));
  }
  const after = await cacheCounters(server);
  const cache = Object.fromEntries(["hits", "cold_reads", "warms", "warms_skipped", "loads", "evictions"].map((c) => [c, (after[c] ?? 0) - (before[c] ?? 0)]));
  // Every read a recall makes of its end-user's rows is either a cache hit or a cold read (the engine's).
  const readsPerRecall = (cache.hits + cache.cold_reads) / queries;
  const result = { phase, api: summarize(api), raw: summarize(direct), cache, readsPerRecall };
  process.stdout.write(`${phase}: api p50 ${result.api.p50} p99 ${result.api.p99} | raw p50 ${result.raw.p50} p99 ${result.raw.p99} | reads/recall ${readsPerRecall.toFixed(2)} | ${JSON.stringify(cache)}\n`);
  return result;
}

async function run(size: number, perUser: number, queries: number, k: number) {
  const users = Math.max(1, Math.round(size / perUser));
  const root = await mkdtemp(join(tmpdir(), "agentmem-bench-scale-"));
  const data = join(root, "server");
  process.stdout.write(`\n== ${size} memories: ${users} users × ${perUser} (data in ${root})\n`);
  const env = { AGENTMEM_MAINTENANCE_SECONDS: String(MAINTENANCE_SECONDS), ...(args["hot-rows-mb"] === undefined ? {} : { AGENTMEM_HOT_ROWS_MB: args["hot-rows-mb"] }) };
  let server = await startServerProcess({ data, env });
  try {
    const loaded = await ingestUsers(memoryClient(server.url), users, perUser);
    const ingestEndLog = server.logs.length;
    const watch = watchTables(server, data);
    const rssAfterIngest = server.rssMiB();
    process.stdout.write(`ingested ${loaded.rows} rows in ${loaded.seconds.toFixed(1)} s (${Math.round(loaded.rowsPerSecond)} rows/s), RSS ${rssAfterIngest} MiB\n`);
    const raw = await buildRaw(join(root, "raw"), users, perUser);
    const phases: Phase[] = args["restart-only"] ? [] : [await measure("after ingest", server, raw, users, queries, k, 99)];
    const settleSeconds = await settle(server, data, ingestEndLog, 900_000);
    if (!args["restart-only"]) phases.push(await measure("settled", server, raw, users, queries, k, 149));
    await watch.stop();
    const underThresholdSeconds = watch.underAt;
    const maintenance = compactions(server, ingestEndLog);
    const tablesAfter = await tableStats(data);
    process.stdout.write(
      `fragments under the threshold ${underThresholdSeconds === null ? "never" : `${underThresholdSeconds.toFixed(0)} s`} after ingest; ` +
        `${maintenance.count} compactions (${maintenance.optimizeSeconds.toFixed(1)} s, longest ${maintenance.maxOptimizeSeconds.toFixed(1)} s, ` +
        `${(maintenance.bytesRewritten / 2 ** 20).toFixed(0)} MiB rewritten, at most ${(maintenance.maxPassBytes / 2 ** 20).toFixed(0)} MiB in one pass), ` +
        `${maintenance.vectorIndexes} vector indexes; peak RSS ${watch.peakRss} MiB\n`,
    );
    const rss = server.rssMiB();
    const peakRssMiB = watch.peakRss;
    await server.stop();
    server = await startServerProcess({ data, env });
    phases.push(await measure("after restart", server, raw, users, queries, k, 199));
    const rssRestarted = server.rssMiB();
    raw.close();
    return {
      size, users, perUser, ingest: loaded, settleSeconds, underThresholdSeconds, maintenanceSeconds: MAINTENANCE_SECONDS, maintenance, tables: tablesAfter,
      fragmentSamples: watch.samples, rssAfterIngestMiB: rssAfterIngest, rssMiB: rss, peakRssMiB, rssRestartedMiB: rssRestarted, phases,
    };
  } finally {
    await server.stop();
    if (!args.keep) await rm(root, { recursive: true, force: true });
  }
}

const runs = [];
for (const size of args.sizes.split(",").map(Number)) runs.push(await run(size, Number(args["per-user"]), Number(args.queries), Number(args.k)));
printTable(
  `random-user recall k=${args.k} over HTTP vs raw LanceDB (ms, sequential, alternating), ingest and RSS`,
  runs.flatMap((r) =>
    r.phases.map((p) => ({
      memories: r.size,
      users: r.users,
      "ingest rows/s": Math.round(r.ingest.rowsPerSecond),
      phase: p.phase,
      "api p50": p.api.p50,
      "api p99": p.api.p99,
      "raw p50": p.raw.p50,
      "raw p99": p.raw.p99,
      "api/raw p50": p.api.p50 / p.raw.p50,
      "api p99/p50": p.api.p99 / p.api.p50,
      "cold reads": p.cache.cold_reads,
      "reads/recall": p.readsPerRecall,
      "cache hits": p.cache.hits,
      "RSS MiB": p.phase === "after restart" ? r.rssRestartedMiB : r.rssMiB,
    })),
  ),
);
printTable(
  "maintenance after ingest (shard tables of memories + episodes)",
  runs.map((r) => ({
    memories: r.size,
    tables: Object.values(r.tables).reduce((n, k) => n + k.tables, 0),
    "s to under threshold": r.underThresholdSeconds ?? NaN,
    "maintenance period s": r.maintenanceSeconds,
    "s to settled": r.settleSeconds,
    compactions: r.maintenance.count,
    "optimize s": r.maintenance.optimizeSeconds,
    "longest optimize s": r.maintenance.maxOptimizeSeconds,
    "MiB rewritten": r.maintenance.bytesRewritten / 2 ** 20,
    "max MiB per pass": r.maintenance.maxPassBytes / 2 ** 20,
    "vector indexes": r.maintenance.vectorIndexes,
    "peak RSS MiB": r.peakRssMiB,
  })),
);
process.stdout.write(`\nwrote ${writeResults("scale", { args, runs })}\n`);
