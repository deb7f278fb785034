import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";

// The real server process (`node bin/agentmem.js serve`) is SIGKILLed in the middle of a stream
// of RememberBatch calls and restarted on the same directory: every acknowledged memory must be
// there exactly once, nothing may be duplicated, and retrying the unacknowledged batches (same
// texts, same times) must store each exactly once.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WRITERS = 4;
const BATCH = 25;
const KILL_AFTER_ACKS = 12;
const USER = "crash";

interface Server {
  child: ChildProcess;
  client: Client<typeof MemoryService>;
  exited: Promise<void>;
}

function serve(dir: string): Promise<Server> {
  const child = spawn(process.execPath, [join(ROOT, "bin", "agentmem.js"), "serve", "--data", dir, "--port", "0", "--embedder", "hash"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "info", LANCEDB_LOG: "error" },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === "SERVING" && entry.port) {
        const transport = createConnectTransport({ baseUrl: `http://127.0.0.1:${entry.port}`, httpVersion: "1.1" });
        resolve({ child, client: createClient(MemoryService, transport), exited });
      }
    });
    void exited.then(() => reject(new Error("agentmem serve exited before SERVING")));
  });
}

/** One batch: distinct texts and fixed times, so a retry is the same write. */
function batch(writer: number, n: number) {
  return Array.from({ length: BATCH }, (_, i) => ({
    scope: { user: USER },
    content: `crash writer ${writer} batch ${n} item ${i}`,
    observedAt: { seconds: BigInt(1_767_225_600 + writer * 100_000 + n * 100 + i), nanos: 0 },
    traceNumber: BigInt(i),
  }));
}

async function stored(client: Client<typeof MemoryService>): Promise<{ memories: Map<string, number>; turns: Map<string, number> }> {
  const memories = new Map<string, number>();
  let token = "";
  do {
    const page = await client.listMemories({ scope: { user: USER }, pageSize: 1000, pageToken: token });
    for (const m of page.memories) memories.set(m.text, (memories.get(m.text) ?? 0) + 1);
    token = page.nextPageToken;
  } while (token);
  const turns = new Map<string, number>();
  for (let from = 0; ; from += 1000) {
    const page = await client.history({ scope: { user: USER }, from, size: 1000 });
    for (const t of page.turns) turns.set(t.content, (turns.get(t.content) ?? 0) + 1);
    if (page.turns.length < 1000) break;
  }
  return { memories, turns };
}

let dir: string;
beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist", "src", "cli.js"))) execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT });
  dir = await mkdtemp(join(tmpdir(), "agentmem-crash-"));
}, 180_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("crash safety", () => {
  it("keeps every acknowledged RememberBatch exactly once across a SIGKILL", { timeout: 120_000 }, async () => {
    const first = await serve(dir);
    const acked: string[][] = [];
    const sent: ReturnType<typeof batch>[] = [];
    let killed = false;
    let inFlightAtKill = 0;
    let inFlight = 0;
    const writer = async (w: number) => {
      for (let n = 0; !killed; n++) {
        const items = batch(w, n);
        sent.push(items);
        inFlight++;
        try {
          await first.client.rememberBatch({ items });
          if (!killed) acked.push(items.map((i) => i.content));
        } catch {
          // The server died under this call: unacknowledged.
        } finally {
          inFlight--;
        }
        if (!killed && acked.length >= KILL_AFTER_ACKS) {
          killed = true;
          inFlightAtKill = inFlight;
          first.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    await first.exited;
    expect(inFlightAtKill).toBeGreaterThan(0);

    const second = await serve(dir);
    const after = await stored(second.client);
    const ackedTexts = acked.flat();
    const lost = ackedTexts.filter((t) => after.memories.get(t) !== 1 || after.turns.get(t) !== 1);
    const duplicated = [...after.memories.values(), ...after.turns.values()].filter((n) => n > 1).length;
    process.stdout.write(
      `crash: ${ackedTexts.length} acknowledged memories, ${lost.length} lost, ${duplicated} duplicated; ` +
        `${inFlightAtKill} batches in flight at SIGKILL, ${after.memories.size - ackedTexts.length} unacknowledged memories stored\n`,
    );
    expect(lost).toEqual([]);
    expect(duplicated).toBe(0);

    // A client retrying what was never acknowledged stores each text exactly once.
    const ackedSet = new Set(ackedTexts);
    for (const items of sent.filter((b) => !ackedSet.has(b[0].content))) await second.client.rememberBatch({ items });
    const retried = await stored(second.client);
    const all = sent.flat().map((i) => i.content);
    expect(all.filter((t) => retried.memories.get(t) !== 1 || retried.turns.get(t) !== 1)).toEqual([]);
    expect(retried.memories.size).toBe(all.length);
    second.child.kill("SIGTERM");
    await second.exited;
  });
});
