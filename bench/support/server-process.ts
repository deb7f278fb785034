import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** One JSON log line of the server. */
export type LogLine = Record<string, unknown> & { msg?: string; time?: number };

/** A server child process started by a bench. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Every JSON log line so far. */
  readonly logs: LogLine[];
  /** Milliseconds from spawn to the `SERVING` log line. */
  readonly startMillis: number;
  /** Resident set size now, in MiB (from /proc). */
  rssMiB(): number;
  /** The exit code or signal once the process has ended (`null` while it runs). */
  exited(): string | null;
  /** The last 4,000 characters the process wrote to stderr. */
  stderrTail(): string;
  /** Resolves with the first log line (after `fromIndex`) that `match` accepts. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number, fromIndex?: number): Promise<LogLine>;
  stop(): Promise<void>;
}

/** The allocator settings `npm start` uses (see docs/operations.md "Memory"), unless the caller's environment sets them. */
const MALLOC_ENV = { MALLOC_ARENA_MAX: "2" };

/** The V8 flags `npm start` passes (see docs/operations.md "Memory"): a 64 MiB young generation. */
const NODE_ARGS = ["--max-semi-space-size=64"];

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Options for `startServerProcess`. */
export interface ServerProcessOptions {
  data: string;
  /** Extra environment (e.g. AGENTMEM_MAINTENANCE_SECONDS). */
  env?: Record<string, string>;
  /**
   * Run the built CLI (`bin/agentmem.js`, as `npm start` does; the `bench:*` scripts build first)
   * rather than the sources via tsx. Default true: tsx's loader cost ~15% more server CPU on ingest.
   */
  built?: boolean;
}

/** Spawns `agentmem serve --embedder hash` on a free port and waits for `SERVING`. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const port = await freePort();
  const built = options.built ?? true;
  if (built && !existsSync(join(ROOT, "dist", "src", "cli.js"))) throw new Error("dist/ is missing: run `npm run build` first (or use the npm run bench:* scripts, which build)");
  const cli = built ? [join(ROOT, "bin", "agentmem.js")] : ["--import", "tsx", join(ROOT, "bench", "support", "serve.ts")];
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    // BENCH_SERVER_NODE_ARGS: node flags NODE_OPTIONS refuses (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
    [...NODE_ARGS, ...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean), ...cli, "serve", "--data", options.data, "--port", String(port), "--embedder", "hash"],
    {
      cwd: ROOT,
      // BENCH_SERVER_NODE_OPTIONS reaches the server only (e.g. `--import` of a GC observer).
      env: { ...MALLOC_ENV, ...process.env, NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? "", LANCEDB_LOG: "error", AGENTMEM_LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? "info", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const logs: LogLine[] = [];
  const waiters: { match: (l: LogLine) => boolean; from: number; resolve: (l: LogLine) => void }[] = [];
  let buffer = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      // BENCH_SERVER_LOG=path keeps every server line (a timeline to read beside the figures);
      // BENCH_SERVER_LOG_LEVEL=debug adds each recall's steps in ms (`recall steps`).
      if (process.env.BENCH_SERVER_LOG) appendFileSync(process.env.BENCH_SERVER_LOG, `${text}\n`);
      // One line per call: parsing and keeping them all would load the measuring process (its GC
      // pauses land in every latency it reports), and no bench reads them.
      if (text.includes('"msg":"rpc"') && text.includes('"code":"ok"')) continue;
      try {
        logs.push(JSON.parse(text) as LogLine);
      } catch {
        continue;
      }
      for (const w of [...waiters]) {
        const i = logs.length - 1;
        if (i >= w.from && w.match(logs[i])) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(logs[i]);
        }
      }
    }
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    stderr = (stderr + c).slice(-4000);
    if (process.env.BENCH_SERVER_LOG) appendFileSync(`${process.env.BENCH_SERVER_LOG}.stderr`, c);
  });
  let ended: string | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      ended = signal ?? String(code);
      resolve();
    }),
  );
  const waitForLog = (match: (l: LogLine) => boolean, timeoutMs: number, fromIndex = 0) =>
    new Promise<LogLine>((resolve, reject) => {
      const found = logs.slice(fromIndex).find(match);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a log line; stderr: ${stderr}`)), timeoutMs);
      waiters.push({ match, from: fromIndex, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      void exited.then(() => reject(new Error(`server exited; stderr: ${stderr}`)));
    });
  await waitForLog((l) => l.msg === "SERVING", 60_000);
  const startMillis = performance.now() - started;
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    logs,
    startMillis,
    rssMiB: () => rssMiB(child.pid ?? 0),
    exited: () => ended,
    stderrTail: () => stderr,
    waitForLog,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident set size of a process in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

/** CPU seconds (user + system) a process has used, from /proc (Linux, 100 Hz ticks). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The server's hot-row cache counters (from `/metrics`). */
export async function cacheCounters(server: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^agentmem_hot_rows\{counter="(\w+)"\} (\S+)$/gm)) out[m[1]] = Math.round(Number(m[2]));
  return out;
}

/**
 * Waits until the hot-row cache has finished loading the end-users reads asked for (the loads
 * run in the background after those reads answer): its counters unchanged for `quietMs`.
 * Returns the milliseconds waited.
 */
export async function cacheSettled(server: ServerProcess, quietMs = 1000, timeoutMs = 120_000): Promise<number> {
  const start = performance.now();
  let last = JSON.stringify(await cacheCounters(server));
  while (performance.now() - start < timeoutMs) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = JSON.stringify(await cacheCounters(server));
    if (now === last) break;
    last = now;
  }
  return performance.now() - start;
}
