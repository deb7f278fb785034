/**
 * Process overhead without a model, cold start to SERVING, and server RSS at scale (`hash` embedder).
 *
 *   npm run bench:process                 # 100k memories (~1.5 min on 2 cores)
 *   npm run bench:process -- --million    # also 1M memories (opt-in: ~30+ min)
 *
 * Runs the built CLI (`bin/agentmem.js`; the npm script builds first). Prints tables and writes
 * bench/results/process.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { memoryClient } from "./support/client.js";
import { createRandom, createVocabulary, query, sentence, userId } from "./support/corpus.js";
import { cacheSettled, startServerProcess } from "./support/server-process.js";
import { pool, printTable, since, summarize, type Summary, writeResults } from "./support/stats.js";

const { values: args } = parseArgs({ options: { million: { type: "boolean", default: false }, calls: { type: "string", default: "300" } } });

interface Run {
  memories: number;
  ingestSeconds: number;
  coldStartEmptyMs: number;
  coldStartFullMs: number;
  rssAfterIngestMiB: number;
  rssWarmMiB: number;
  /** Milliseconds from the warm-up recalls' answers to the cache holding their users. */
  warmWaitMs: number;
  recall: Summary;
  process: Summary;
  /** Each end-user's first turn after a restart (nothing of theirs held). */
  processCold: Summary;
}

async function run(users: number): Promise<Run> {
  const root = await mkdtemp(join(tmpdir(), "agentmem-bench-process-"));
  const data = join(root, "data");
  try {
    let server = await startServerProcess({ data });
    const coldStartEmptyMs = server.startMillis;
    const memory = memoryClient(server.url);
    const vocabulary = createVocabulary(5000);
    const start = performance.now();
    await pool(users, 2, async (u) => {
      const random = createRandom(1000 + u);
      await memory.rememberBatch({ items: Array.from({ length: 1000 }, (_, i) => ({ scope: { user: userId(u) }, content: sentence(vocabulary, random), role: "user", traceNumber: BigInt(i) })) });
    });
    const ingestSeconds = since(start) / 1000;
    const rssAfterIngestMiB = server.rssMiB();
    await server.stop();
    // Cold start over the full directory, then warm every user's rows and measure.
    server = await startServerProcess({ data });
    const coldStartFullMs = server.startMillis;
    const m = memoryClient(server.url);
    const relational = createClient(RelationalService, createConnectTransport({ baseUrl: server.url, httpVersion: "2", useBinaryFormat: true }));
    // The cache admits an end-user read twice lately, and loads them after the read answers (in
    // the background): measure once it holds them, else the first calls time the loading.
    for (let round = 0; round < 2; round++) await pool(users, 4, async (u) => void (await m.recall({ scope: { user: userId(u) }, query: "warm", k: 10 })));
    const warmWaitMs = await cacheSettled(server);
    const random = createRandom(9);
    const calls = Number(args.calls);
    const recallTimes: number[] = [];
    const processTimes: number[] = [];
    for (let i = 0; i < calls; i++) {
      const user = userId(Math.floor(random() * users));
      const text = query(vocabulary, random);
      let t = performance.now();
      await m.recall({ scope: { user }, query: text, k: 3 });
      recallTimes.push(since(t));
      t = performance.now();
      await relational.process({ scope: { user }, message: `I keep thinking about ${text}`, channel: "bench" });
      processTimes.push(since(t));
    }
    const rssWarmMiB = server.rssMiB();
    await server.stop();
    // Cold: after a restart, each end-user's first turn (none held; one turn of another user
    // first, so opening the tables is not timed).
    server = await startServerProcess({ data });
    const cold = createClient(RelationalService, createConnectTransport({ baseUrl: server.url, httpVersion: "2", useBinaryFormat: true }));
    await cold.process({ scope: { user: "bench-opener" }, message: "hello", channel: "bench" });
    const coldTimes: number[] = [];
    for (let u = 0; u < users; u++) {
      const t = performance.now();
      await cold.process({ scope: { user: userId(u) }, message: `I keep thinking about ${query(vocabulary, random)}`, channel: "bench" });
      coldTimes.push(since(t));
    }
    await server.stop();
    return { memories: users * 1000, ingestSeconds, coldStartEmptyMs, coldStartFullMs, rssAfterIngestMiB, rssWarmMiB, warmWaitMs, recall: summarize(recallTimes), process: summarize(processTimes), processCold: summarize(coldTimes) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const runs = [await run(100)];
if (args.million) runs.push(await run(1000));
printTable(
  "server process (built CLI, hash embedder, no model)",
  runs.map((r) => ({
    memories: r.memories,
    "ingest s": r.ingestSeconds,
    "cold start empty ms": r.coldStartEmptyMs,
    "cold start full ms": r.coldStartFullMs,
    "RSS after ingest MiB": r.rssAfterIngestMiB,
    "RSS warm MiB": r.rssWarmMiB,
    "warm wait ms": r.warmWaitMs,
    "recall k=3 p50": r.recall.p50,
    "Process p50": r.process.p50,
    "Process p99": r.process.p99,
    "Process − recall p50": r.process.p50 - r.recall.p50,
    "cold Process p50": r.processCold.p50,
    "cold Process p99": r.processCold.p99,
  })),
);
process.stdout.write(`\nwrote ${writeResults("process", { args, runs })}\n`);
