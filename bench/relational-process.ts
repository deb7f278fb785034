// Process latency without a chat model: the in-process app over a real LanceDB temp dir, hash
// embedder, end-users with growing histories. Prints p50/p95/max per phase of the run and writes
// bench/results/relational-process.json.
// Usage: npx tsx bench/relational-process.ts [turns per user = 50] [users = 4]
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";

const turns = Number(process.argv[2] ?? 50);
const users = Number(process.argv[3] ?? 4);
const MESSAGES = [
  "I'm worried about my knee surgery tomorrow morning",
  "My boss Tom keeps piling work on me and I'm fed up",
  "Thanks for listening yesterday, it helped a lot",
  "What time does the pharmacy open on Sundays?",
  "I had a lovely dinner with my daughter Lea",
  "Can you remind me to take my pills at 8pm?",
];

const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-"));
const config = loadConfig({ data: dir, embedder: "hash" }, { AGENTMEM_LOG_LEVEL: "silent" });
const app = await createApp(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
const transport = createRouterTransport((r) => app.routes(r));
const client = createClient(RelationalService, transport);
const memory = createClient(MemoryService, transport);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const sequential: number[] = [];
for (let i = 0; i < turns; i++) {
  for (let u = 0; u < users; u++) {
    const started = performance.now();
    await client.process({ scope: { user: `user-${u}` }, message: `${MESSAGES[(i + u) % MESSAGES.length]} (${i})` });
    sequential.push(performance.now() - started);
  }
}
// Baseline: one plain Remember (one embedding, one episode and one memory commit) per call.
const remember: number[] = [];
for (let i = 0; i < turns; i++) {
  const started = performance.now();
  await memory.remember({ scope: { user: "baseline" }, content: `${MESSAGES[i % MESSAGES.length]} (baseline ${i})` });
  remember.push(performance.now() - started);
}
const concurrent: number[] = [];
const started = performance.now();
await Promise.all(
  Array.from({ length: users * 5 }, async (_, i) => {
    const t0 = performance.now();
    await client.process({ scope: { user: `user-${i % users}` }, message: `${MESSAGES[i % MESSAGES.length]} (concurrent ${i})` });
    concurrent.push(performance.now() - t0);
  }),
);
const wall = performance.now() - started;
const row = (name: string, xs: number[]) => ({
  run: name,
  calls: xs.length,
  p50_ms: +quantile(xs, 0.5).toFixed(1),
  p95_ms: +quantile(xs, 0.95).toFixed(1),
  max_ms: +Math.max(...xs).toFixed(1),
});
const table = [
  row("Process, sequential", sequential),
  row(`Process, ${users * 5} at once`, concurrent),
  row("Remember baseline, sequential", remember),
];
console.table(table);
console.log(`concurrent wall ${wall.toFixed(0)} ms → ${((users * 5) / (wall / 1000)).toFixed(1)} turns/s`);
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/relational-process.json", JSON.stringify({ turns, users, embedder: "hash", llm: "none", table, concurrentWallMs: wall }, null, 2));
await app.close();
await rm(dir, { recursive: true, force: true });
