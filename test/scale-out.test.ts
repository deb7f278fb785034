import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryClient } from "../bench/support/client.js";
import { type ServerProcess, startServerProcess } from "../bench/support/server-process.js";

// Two real server processes (`node bin/agentmem.js serve`, built by `npm run build`) on one data
// directory: every write made through one is read through the other, including writes to an
// end-user whose rows the reader already holds in its hot-row cache.
let dir: string;
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-replicas-"));
  const env = { AGENTMEM_MAINTENANCE_SECONDS: "1", AGENTMEM_SHARED_WRITERS: "1" };
  // One after the other: the first creates the tables, the second opens them.
  a = await startServerProcess({ data: dir, built: true, env });
  await memoryClient(a.url).remember({ scope: { user: "setup" }, content: "tables exist" });
  b = await startServerProcess({ data: dir, built: true, env });
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

const texts = async (c: ReturnType<typeof memoryClient>, user: string, query: string) =>
  (await c.recall({ scope: { user }, query, k: 100 })).hits.map((h) => h.memory).sort();
const listed = async (c: ReturnType<typeof memoryClient>, user: string) =>
  (await c.listMemories({ scope: { user }, pageSize: 1000 })).memories.length;

describe("two server processes on one data directory", () => {
  it("each reads what the other wrote, also for end-users it already holds in memory", async () => {
    const [ca, cb] = [memoryClient(a.url), memoryClient(b.url)];
    await ca.remember({ scope: { user: "maya" }, content: "Maya's knee surgery is on Friday" });
    expect(await texts(cb, "maya", "knee surgery")).toEqual(["Maya's knee surgery is on Friday"]);
    expect(await texts(ca, "maya", "knee surgery")).toEqual(["Maya's knee surgery is on Friday"]);
    // Both now hold maya's rows; a write through B must show through A at once, and back.
    await cb.remember({ scope: { user: "maya" }, content: "Maya moved the surgery to Monday" });
    expect(await texts(ca, "maya", "surgery")).toEqual(["Maya moved the surgery to Monday", "Maya's knee surgery is on Friday"]);
    await ca.remember({ scope: { user: "maya" }, content: "After the surgery Maya wants physiotherapy" });
    expect(await texts(cb, "maya", "surgery")).toHaveLength(3);
  });

  it("serves concurrent writes through both without losing or duplicating any", async () => {
    const [ca, cb] = [memoryClient(a.url), memoryClient(b.url)];
    const writes = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? ca : cb).remember({ scope: { user: "sam" }, content: `Sam note number ${i}` }));
    // The same turns through both at once: content-addressed ids keep one row each.
    const batch = Array.from({ length: 10 }, (_, i) => ({ scope: { user: "sam" }, content: `Shared turn ${i}` }));
    await Promise.all([...writes, ca.rememberBatch({ items: batch }), cb.rememberBatch({ items: batch })]);
    expect(await listed(ca, "sam")).toBe(50);
    expect(await listed(cb, "sam")).toBe(50);
    expect(await texts(cb, "sam", "note number 7")).toContain("Sam note number 7");
    expect(await texts(ca, "sam", "shared turn")).toContain("Shared turn 3");
  });

  it("sees a forget through the other process", async () => {
    const [ca, cb] = [memoryClient(a.url), memoryClient(b.url)];
    await ca.remember({ scope: { user: "lee" }, content: "Lee likes green tea" });
    expect(await texts(cb, "lee", "green tea")).toEqual(["Lee likes green tea"]);
    expect((await ca.forget({ scope: { user: "lee" } })).deleted).toBe(1n);
    expect(await texts(cb, "lee", "green tea")).toEqual([]);
    expect(await listed(cb, "lee")).toBe(0);
  });
});
