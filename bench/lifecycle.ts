// Lifecycle bench: drift scoring (pure math and the Check RPC with the `use` embedder), Rollup of
// 100-source scopes and the Usage RPC, in process over a real LanceDB in a temp dir.
// Prints a table and writes bench/results/lifecycle.json.
// Usage: npx tsx bench/lifecycle.ts [--checks 200] [--users 20] [--per-user 100]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@connectrpc/connect";
import { pino } from "pino";
import { createUseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { createApp } from "../src/app.js";
import { createApiInterceptors, createInProcessTransport } from "../src/compose/api-interceptors.js";
import { loadConfig } from "../src/config.js";
import { USE_CALIBRATION } from "../src/core/drift/calibration.js";
import { scoreDrift } from "../src/core/drift/drift-score.js";
import { DriftService } from "../src/gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { DRIFT_CALIBRATION } from "../test/fixtures/drift-calibration.js";
import { printTable, since, summarize, writeResults } from "./support/stats.js";

const { values } = parseArgs({ options: { checks: { type: "string", default: "200" }, users: { type: "string", default: "20" }, "per-user": { type: "string", default: "100" } } });
const CHECKS = Number(values.checks);
const USERS = Number(values.users);
const PER_USER = Number(values["per-user"]);

const now = new Date("2026-06-01T00:00:00Z");
const clock = createManualClock(now);
const dir = await mkdtemp(join(tmpdir(), "agentmem-lifecycle-"));
const embedder = createUseEmbedder();
await embedder.warmUp();
const config = loadConfig({ data: dir, embedder: "use" }, { AGENTMEM_LOG_LEVEL: "silent" });
const app = await createApp(config, { embedder, clock, logger: pino({ level: "silent" }) });
const transport = createInProcessTransport(config, app, createApiInterceptors(config, app, app.deps.logger));
const drift = createClient(DriftService, transport);
const memory = createClient(MemoryService, transport);
const rows: Record<string, string | number>[] = [];

// Pure scoring: goal + 3 constraints + centroid, 512-d.
const v = await embedder.embed(["Assess vessel traffic in the Port of Long Beach.", "report times in Zulu", "cite AIS sources", "no speculation", "Ships queue at Long Beach."]);
const ref = { goal: { text: "g", vector: v[0] }, constraints: [1, 2, 3].map((i) => ({ text: `c${i}`, vector: v[i] })), centroid: v[4] };
const pure: number[] = [];
for (let i = 0; i < 10_000; i++) {
  const t = performance.now();
  scoreDrift(v[4], ref, USE_CALIBRATION);
  pure.push(since(t));
}
rows.push({ op: "scoreDrift (pure, 512-d, 5 refs)", ...summarize(pure) });

// Check RPC: response-only checks alternating on- and off-topic answers.
const set = DRIFT_CALIBRATION[0];
await drift.check({ scope: { session: "bench" }, goal: set.goal, constraints: set.constraints });
const answers = [...set.onTopic, ...set.offTopic];
const checks: number[] = [];
for (let i = 0; i < CHECKS; i++) {
  const t = performance.now();
  await drift.check({ scope: { session: "bench" }, response: `${answers[i % answers.length]} (${i})` });
  checks.push(since(t));
}
rows.push({ op: "DriftService.Check (use)", ...summarize(checks) });

// Rollup: USERS scopes of PER_USER aged memories each.
const observedAt = { seconds: BigInt(Math.floor(now.getTime() / 1000) - 60 * 86_400), nanos: 0 };
for (let u = 0; u < USERS; u++) {
  const items = Array.from({ length: PER_USER }, (_, i) => ({ scope: { user: `u${u}` }, content: `${answers[i % answers.length]} Note ${i} of user ${u}.`, observedAt }));
  await memory.rememberBatch({ items });
}
const rollups: number[] = [];
for (let u = 0; u < USERS; u++) {
  const t = performance.now();
  const r = await memory.rollup({ scope: { user: `u${u}` }, maxSources: PER_USER });
  rollups.push(since(t));
  if (r.consolidated !== PER_USER) throw new Error(`rollup consolidated ${r.consolidated}`);
}
rows.push({ op: `Rollup (${PER_USER} sources, merge)`, ...summarize(rollups) });

const usage: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  await memory.usage({ scope: { user: `u${i % USERS}` } });
  usage.push(since(t));
}
rows.push({ op: "Usage (with user bytes)", ...summarize(usage) });

printTable(`lifecycle bench (ms), ${CHECKS} checks, ${USERS}×${PER_USER} rollup sources`, rows);
console.log(`\nresults: ${writeResults("lifecycle", { checks: CHECKS, users: USERS, perUser: PER_USER, rows })}`);
await app.close();
await rm(dir, { recursive: true, force: true });
