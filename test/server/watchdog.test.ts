import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { WriteWatchdog } from "../../src/adapters/lancedb/write-watchdog.js";
import { MEMORIES } from "../../src/adapters/lancedb/lance-store.js";
import { loadConfig } from "../../src/config.js";
import { type RunningServer, startServer } from "../../src/compose/start-server.js";

let server: RunningServer;
let dir: string;
const lines: string[] = [];
const logger = pino(
  { level: "warn" },
  new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  }),
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-watchdog-"));
  const config = loadConfig({ data: dir, port: 0, embedder: "hash" }, { AGENTMEM_WRITE_STALL_SECONDS: "0.3", AGENTMEM_LOG_LEVEL: "silent" });
  server = await startServer(config, { embedder: createHashEmbedder(), logger });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function health(): Promise<string> {
  const res = await fetch(`${server.url}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  return ((await res.json()) as { status: string }).status;
}

async function gauge(name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1] ?? NaN);
}

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("write watchdog", () => {
  it("turns health NOT_SERVING while an engine commit is stuck, and back when it returns", async () => {
    // One table (the unsharded layout) whose write queue the test holds.
    const memories = await server.app.store.collection("acme", MEMORIES);
    await memories.insertNew([]); // opened, nothing queued
    expect(await health()).toBe("SERVING");
    expect(await gauge("agentmem_store_oldest_commit_seconds")).toBe(0);

    // A commit that does not return: an exclusive task holds the table's write queue.
    let release!: () => void;
    const held = memories.engine.exclusive(() => new Promise<void>((r) => (release = r)));
    await until(async () => (await health()) === "NOT_SERVING");
    expect(await gauge("agentmem_store_oldest_commit_seconds")).toBeGreaterThanOrEqual(0.3);
    expect(await gauge("agentmem_store_commit_stalls")).toBe(1);
    expect(lines.some((l) => l.includes("engine commit stuck") && l.includes('"table":"memories__'))).toBe(true);

    release();
    await held;
    await until(async () => (await health()) === "SERVING");
    expect(await gauge("agentmem_store_oldest_commit_seconds")).toBe(0);
    expect(lines.some((l) => l.includes("SERVING again"))).toBe(true);
  });

  it("leaves health alone for commits under the limit, and clears when it returns", () => {
    let oldest: { table: string; ms: number } | null = { table: "t", ms: 999 };
    const quiet = pino({ level: "silent" });
    const dog = new WriteWatchdog({ oldestCommit: () => oldest }, quiet, { limitMs: 1_000 });
    dog.check();
    expect(dog.stalled).toBe(false);
    oldest = { table: "t", ms: 1_000 };
    dog.check();
    dog.check();
    expect([dog.stalled, dog.stalls]).toEqual([true, 1]);
    oldest = null;
    dog.check();
    expect([dog.stalled, dog.oldestSeconds()]).toEqual([false, 0]);
  });
});
