// Foundation bench: cold start to SERVING and p50/p99 Remember/Recall latency over HTTP with a few
// thousand memories, for the `hash` and `use` embedders. Prints a table and writes JSON.
// Usage: npm run bench:remember -- [--memories 3000] [--calls 200] [--embedders hash,use]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { AgentMem } from "../sdk/index.js";

const { values } = parseArgs({
  options: { memories: { type: "string", default: "3000" }, calls: { type: "string", default: "200" }, embedders: { type: "string", default: "hash,use" } },
});
const MEMORIES = Number(values.memories);
const CALLS = Number(values.calls);
const USERS = 10;
const WORDS = "garden travel nurse london paris coffee dog cat piano marathon sister brother birthday doctor exam recipe novel guitar beach mountain".split(" ");

function sentence(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return `Turn ${i}: I talked about ${w(1)} and ${w(2)} after the ${w(3)} with my ${w(4)} on day ${i % 365}.`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function start(dir: string, embedder: string): Promise<{ child: ChildProcess; port: number; coldMs: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ["bin/agentmem.js", "serve", "--data", dir, "--port", "0", "--embedder", embedder], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "info" },
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const e = JSON.parse(line) as { msg?: string; port?: number };
      if (e.msg === "SERVING" && e.port) resolve(e.port);
    });
    child.once("exit", (c) => reject(new Error(`serve exited ${c}`)));
  });
  const res = await fetch(`http://127.0.0.1:${port}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  if (((await res.json()) as { status: string }).status !== "SERVING") throw new Error("not serving");
  return { child, port, coldMs: performance.now() - t0 };
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

const rows: Record<string, number | string>[] = [];
for (const embedder of values.embedders.split(",")) {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-"));
  const { child, port, coldMs } = await start(dir, embedder);
  const client = new AgentMem({ baseUrl: `http://127.0.0.1:${port}` });
  const t0 = performance.now();
  for (let off = 0; off < MEMORIES; off += 500) {
    const items = Array.from({ length: Math.min(500, MEMORIES - off) }, (_, j) => ({ scope: { user: `u${(off + j) % USERS}` }, content: sentence(off + j) }));
    await client.memory.rememberBatch({ items });
  }
  const loadS = (performance.now() - t0) / 1000;
  const remember = await timed(CALLS, (i) => client.remember({ scope: { user: `u${i % USERS}` }, content: `fresh note ${i} about ${WORDS[i % WORDS.length]}` }));
  const recall = await timed(CALLS, (i) => client.recall({ scope: { user: `u${i % USERS}` }, query: `what about ${WORDS[i % WORDS.length]} and ${WORDS[(i + 3) % WORDS.length]}?`, k: 10 }));
  rows.push({
    embedder,
    memories: MEMORIES + CALLS,
    cold_start_ms: Math.round(coldMs),
    batch_rows_per_s: Math.round(MEMORIES / loadS),
    remember_p50_ms: +percentile(remember, 50).toFixed(1),
    remember_p99_ms: +percentile(remember, 99).toFixed(1),
    recall_p50_ms: +percentile(recall, 50).toFixed(1),
    recall_p99_ms: +percentile(recall, 99).toFixed(1),
  });
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  await rm(dir, { recursive: true, force: true });
}
console.table(rows);
await mkdir("bench/results", { recursive: true });
await writeFile("bench/results/remember-recall.json", JSON.stringify({ at: new Date().toISOString(), memories: MEMORIES, calls: CALLS, rows }, null, 2));
