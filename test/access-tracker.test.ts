import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../src/gen/agentmem/v1/privacy_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { where } from "../src/core/condition.js";
import { AccessTracker } from "../src/services/memory/access-tracker.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const clock = createManualClock(new Date("2026-01-01T00:00:00Z"));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

const memoryRows = async (ids: readonly string[]) => (await t.app.store.memories("default")).get(ids);
/** The stored use of a memory (0 when none is recorded). */
const storedUses = async (id: string) => (await (await t.app.store.memoryUse("default")).get([id]))[0]?.accessCount ?? 0;

describe("access marks", () => {
  it("writes every buffered mark to memory_use, and never rewrites a memory row", async () => {
    const c = t.client(MemoryService);
    const user = "marks";
    const items = Array.from({ length: 1300 }, (_, i) => ({ scope: { user }, content: `harbour note number ${i}` }));
    const memoryIds = [...(await c.rememberBatch({ items: items.slice(0, 650) })).memoryIds, ...(await c.rememberBatch({ items: items.slice(650) })).memoryIds];
    const memories = await t.app.store.memories("default");
    const versionBefore = await memories.version();
    const records = new Map((await memoryRows(memoryIds)).map((m) => [m.id, m]));
    const touched = memoryIds.slice(0, 1234).map((id) => records.get(id)!);
    const at = clock.now().getTime() + 60_000;
    t.app.deps.access.touch("default", touched, at);
    t.app.deps.access.touch("default", touched.slice(0, 10), at - 1000);
    await t.app.deps.access.flush();
    expect(await memories.version()).toBe(versionBefore);
    expect(await (await t.app.store.memoryUse("default")).count(where.eq("user", user))).toBe(1234);
    const rows = new Map<string, Awaited<ReturnType<typeof c.listMemories>>["memories"][number]>();
    let pageToken = "";
    do {
      const page = await c.listMemories({ scope: { user }, pageSize: 1000, pageToken });
      for (const m of page.memories) rows.set(m.id, m);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(rows.size).toBe(1300);
    for (const [i, id] of memoryIds.entries()) {
      const m = rows.get(id)!;
      expect(Number(m.accessCount)).toBe(i < 10 ? 2 : i < 1234 ? 1 : 0);
      if (i < 1234) expect(Number(m.lastAccessedAt!.seconds) * 1000).toBe(at);
    }
  });

  it("shows buffered uses on reads at once, and counts each use once when written", async () => {
    const c = t.client(MemoryService);
    const scope = { user: "overlay" };
    const { memoryId } = await c.remember({ scope, content: "the lighthouse keeper logs the fog horn" });
    await c.recall({ scope, query: "lighthouse fog horn", k: 1 });
    await c.recall({ scope, query: "lighthouse keeper", k: 1 });
    // Not written yet (the tracker waits for a quiet moment), yet every read reports the uses.
    expect(await storedUses(memoryId)).toBe(0);
    expect(Number((await c.getMemory({ scope, id: memoryId })).memory!.accessCount)).toBe(2);
    expect((await c.listMemories({ scope })).memories.map((m) => Number(m.accessCount))).toEqual([2]);
    await t.app.deps.access.flush();
    expect(await storedUses(memoryId)).toBe(2);
    expect((await memoryRows([memoryId]))[0].accessCount).toBe(0);
    expect(Number((await c.getMemory({ scope, id: memoryId })).memory!.accessCount)).toBe(2);
    await c.recall({ scope, query: "lighthouse keeper", k: 1 });
    await t.app.deps.access.flush();
    expect(await storedUses(memoryId)).toBe(3);
    expect(Number((await c.getMemory({ scope, id: memoryId })).memory!.accessCount)).toBe(3);
  });

  it("adds recorded uses to a row's own stored marks (rows written before memory_use), and a re-stored id starts afresh", async () => {
    const c = t.client(MemoryService);
    const scope = { user: "baseline" };
    const { memoryId } = await c.remember({ scope, content: "the tide table for the old pier" });
    const memories = await t.app.store.memories("default");
    const old = clock.now().getTime() - 5_000;
    await memories.patch([memoryId], (row) => ({ ...row, accessCount: 7, lastAccessedAt: old }));
    expect(Number((await c.getMemory({ scope, id: memoryId })).memory!.accessCount)).toBe(7);
    await c.recall({ scope, query: "tide table pier", k: 1 });
    await t.app.deps.access.flush();
    const got = (await c.getMemory({ scope, id: memoryId })).memory!;
    expect(Number(got.accessCount)).toBe(8);
    expect(Number(got.lastAccessedAt!.seconds) * 1000).toBe(clock.now().getTime());

    await c.forget({ scope });
    clock.advance(1_000);
    await c.remember({ scope, content: "the tide table for the old pier" });
    expect(Number((await c.getMemory({ scope, id: memoryId })).memory!.accessCount)).toBe(0);
  });

  it("writes marks once recall has been quiet, or after the longest delay under steady recall", async () => {
    const c = t.client(MemoryService);
    const { memoryIds } = await c.rememberBatch({ items: [{ scope: { user: "quiet" }, content: "first buoy" }, { scope: { user: "quiet" }, content: "second buoy" }] });
    const [first, second] = await memoryRows(memoryIds).then((rows) => memoryIds.map((id) => rows.find((r) => r.id === id)!));
    const quiet = new AccessTracker(t.app.store, t.app.deps.logger, { checkMs: 10, quietMs: 100, maxDelayMs: 60_000 });
    quiet.start();
    quiet.touch("default", [first], clock.now().getTime());
    await new Promise((r) => setTimeout(r, 40));
    expect(await storedUses(first.id)).toBe(0);
    await expect.poll(() => storedUses(first.id), { timeout: 2_000, interval: 20 }).toBe(1);
    await quiet.stop();

    const busy = new AccessTracker(t.app.store, t.app.deps.logger, { checkMs: 10, quietMs: 60_000, maxDelayMs: 300 });
    busy.start();
    const started = performance.now();
    while ((await storedUses(second.id)) === 0 && performance.now() - started < 3_000) {
      busy.touch("default", [second], clock.now().getTime());
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(await storedUses(second.id)).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    await busy.stop();
  });

  it("Erase drops the end-user's buffered marks: none lands after it, later memories count again", async () => {
    const c = t.client(MemoryService);
    const scope = { user: "erased-marks" };
    const uses = await t.app.store.memoryUse("default");
    const { memoryId } = await c.remember({ scope, content: "the locker code for the boathouse" });
    await c.recall({ scope, query: "locker code boathouse", k: 1 });
    await t.app.deps.access.flush();
    await c.recall({ scope, query: "locker code boathouse", k: 1 });
    expect(await uses.count(where.eq("user", scope.user))).toBe(1);
    const erased = await t.client(PrivacyService).erase({ externalId: scope.user });
    expect(erased.memories).toBe(1n);
    // A recall that read the rows before the erasure and marks them after it.
    t.app.deps.access.touch("default", [{ id: memoryId, user: scope.user, createdAt: clock.now().getTime() }], clock.now().getTime());
    await t.app.deps.access.flush();
    expect(await uses.count(where.eq("user", scope.user))).toBe(0);

    clock.advance(1_000);
    await c.remember({ scope, content: "the locker code for the boathouse" });
    await c.recall({ scope, query: "locker code boathouse", k: 1 });
    await t.app.deps.access.flush();
    expect(await uses.count(where.eq("user", scope.user))).toBe(1);
    expect(Number((await c.getMemory({ scope, id: memoryId })).memory!.accessCount)).toBe(1);
  });
});
