// Load bench: 32 concurrent loopback clients mixing Remember (40%), Recall (40%) and Process (20%)
// against a real `agentmem serve --embedder hash` process for 20 s; then every acknowledged write
// is read back. Prints throughput and latency per operation and writes bench/results/load.json.
// Usage: npm run bench:load -- [--seconds 20] [--clients 32] [--sources]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type LoadOp, missingWrites, runLoad } from "./support/load.js";
import { startServerProcess } from "./support/server-process.js";
import { printTable, summarize, writeResults } from "./support/stats.js";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "20" }, clients: { type: "string", default: "32" }, sources: { type: "boolean", default: false } },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);

const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-load-"));
const server = await startServerProcess({ data: dir, built: !values.sources });
try {
  const result = await runLoad({ url: server.url, clients, durationMs: seconds * 1000 });
  const missing = await missingWrites(server.url, result.acked);
  const seconds_ = result.elapsedMs / 1000;
  const rows: Record<string, string | number>[] = (Object.keys(result.ops) as LoadOp[]).map((op) => {
    const s = summarize(result.ops[op].latenciesMs);
    return { op, calls: result.ops[op].count, errors: result.ops[op].errors, "per s": result.ops[op].count / seconds_, "p50 ms": s.p50, "p99 ms": s.p99, "max ms": s.max };
  });
  const all = (Object.values(result.ops) as { latenciesMs: number[]; count: number; errors: number }[]).flatMap((o) => o.latenciesMs);
  const total = summarize(all);
  rows.push({ op: "all", calls: all.length, errors: rows.reduce((a, r) => a + Number(r.errors), 0), "per s": all.length / seconds_, "p50 ms": total.p50, "p99 ms": total.p99, "max ms": total.max });
  printTable(`load: ${clients} clients, ${seconds_.toFixed(1)} s, loopback, hash embedder, no chat model`, rows);
  process.stdout.write(`acknowledged writes ${result.acked.length}, unreadable afterwards ${missing.length}, server RSS ${server.rssMiB()} MiB\n`);
  if (result.errors.length > 0) process.stdout.write(`first errors:\n  ${result.errors.join("\n  ")}\n`);
  const file = writeResults("load", { clients, seconds: seconds_, rows, acknowledged: result.acked.length, missing: missing.length, errors: result.errors, rssMiB: server.rssMiB() });
  process.stdout.write(`wrote ${file}\n`);
  if (missing.length > 0 || rows.some((r) => Number(r.errors) > 0)) process.exitCode = 1;
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
