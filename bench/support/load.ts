import { type Client, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";

// A bounded loopback load: N concurrent clients, each with its own HTTP/1.1 connection, mixing
// Remember, Recall and Process for a fixed time. Every acknowledged write is remembered so it can
// be read back afterwards. Used by `bench/load.ts` (20 s) and a short test.

/** An operation the load mixes. */
export type LoadOp = "remember" | "recall" | "process";

/** Options for `runLoad`. */
export interface LoadOptions {
  /** Server root, e.g. `http://127.0.0.1:8080` (loopback only). */
  url: string;
  /** Concurrent clients (default 32). */
  clients?: number;
  durationMs: number;
  /** Share of each operation (default 0.4 / 0.4 / 0.2). */
  mix?: Readonly<Record<LoadOp, number>>;
  /** End-users per client (default 4). */
  usersPerClient?: number;
}

/** What one operation kind did. */
export interface OpStats {
  count: number;
  errors: number;
  latenciesMs: number[];
}

/** A write the server acknowledged: the memory text it must hold for the user. */
export interface AckedWrite {
  user: string;
  text: string;
}

/** The outcome of a run. */
export interface LoadResult {
  elapsedMs: number;
  ops: Record<LoadOp, OpStats>;
  acked: AckedWrite[];
  /** The first few error messages (code and text). */
  errors: string[];
}

const DEFAULT_MIX: Record<LoadOp, number> = { remember: 0.4, recall: 0.4, process: 0.2 };
const TOPICS = ["garden", "tea", "physio", "daughter", "surgery", "piano", "walk", "medication", "weather", "breakfast"];

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "[::1]", "::1"].includes(host)) throw new Error(`load runs against loopback only, not ${host}`);
}

function pick(mix: Readonly<Record<LoadOp, number>>, r: number): LoadOp {
  const total = mix.remember + mix.recall + mix.process;
  if (r * total < mix.remember) return "remember";
  return r * total < mix.remember + mix.recall ? "recall" : "process";
}

/** Runs the load and returns latencies, errors and every acknowledged write. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  assertLoopback(options.url);
  const clients = options.clients ?? 32;
  const mix = options.mix ?? DEFAULT_MIX;
  const usersPerClient = options.usersPerClient ?? 4;
  const ops: Record<LoadOp, OpStats> = {
    remember: { count: 0, errors: 0, latenciesMs: [] },
    recall: { count: 0, errors: 0, latenciesMs: [] },
    process: { count: 0, errors: 0, latenciesMs: [] },
  };
  const acked: AckedWrite[] = [];
  const errors: string[] = [];
  const started = performance.now();
  const deadline = started + options.durationMs;

  const client = async (c: number) => {
    const transport = createConnectTransport({ baseUrl: options.url, httpVersion: "1.1" });
    const memory = createClient(MemoryService, transport);
    const relational = createClient(RelationalService, transport);
    for (let i = 0; performance.now() < deadline; i++) {
      const user = `load-${c}-${i % usersPerClient}`;
      const topic = TOPICS[(c * 7 + i) % TOPICS.length];
      const op = pick(mix, ((c * 7919 + i * 104729) % 1000) / 1000);
      const t0 = performance.now();
      try {
        if (op === "remember") {
          const text = `client ${c} turn ${i}: talked about the ${topic}`;
          await memory.remember({ scope: { user }, content: text });
          acked.push({ user, text });
        } else if (op === "recall") {
          await memory.recall({ scope: { user }, query: `the ${topic}`, k: 5 });
        } else {
          const message = `client ${c} visit ${i}: how was the ${topic} today?`;
          await relational.process({ scope: { user }, message });
          acked.push({ user, text: `User: ${message}` });
        }
        ops[op].latenciesMs.push(performance.now() - t0);
      } catch (error) {
        ops[op].errors++;
        if (errors.length < 10) errors.push(`${op}: ${ConnectError.from(error).message}`);
      }
      ops[op].count++;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return { elapsedMs: performance.now() - started, ops, acked, errors };
}

/** Reads every acknowledged write back; returns the ones missing. */
export async function missingWrites(url: string, acked: readonly AckedWrite[]): Promise<AckedWrite[]> {
  const memory: Client<typeof MemoryService> = createClient(MemoryService, createConnectTransport({ baseUrl: url, httpVersion: "1.1" }));
  const byUser = new Map<string, AckedWrite[]>();
  for (const a of acked) byUser.set(a.user, [...(byUser.get(a.user) ?? []), a]);
  const missing: AckedWrite[] = [];
  for (const [user, writes] of byUser) {
    const texts = new Set<string>();
    let token = "";
    do {
      const page = await memory.listMemories({ scope: { user }, pageSize: 1000, pageToken: token });
      for (const m of page.memories) texts.add(m.text);
      token = page.nextPageToken;
    } while (token);
    missing.push(...writes.filter((w) => !texts.has(w.text)));
  }
  return missing;
}
