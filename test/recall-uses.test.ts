import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { AccessTracker } from "../src/services/memory/access-tracker.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const DAY = 86_400_000;
const clock = createManualClock(new Date("2026-03-01T00:00:00Z"));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

/** Salience of an importance-5, unpinned memory used `n` times (core/ranking.salience). */
const salienceAfter = (n: number) => 0.6 * 0.5 + 0.2 * Math.min(1, Math.log1p(n) / Math.log(11));

describe("recall reads recorded uses (memory_use), not only the memory row", () => {
  it("decays from the last use and raises salience with each use, buffered or stored", async () => {
    const c = t.client(MemoryService);
    const scope = { user: "decay" };
    const { memoryId } = await c.remember({ scope, content: "the ferry leaves at dawn from pier nine" });
    clock.advance(60 * DAY);
    const hit = async () => (await c.recall({ scope, query: "ferry dawn pier", k: 1 })).hits[0];

    const first = await hit();
    expect(first.id).toBe(memoryId);
    expect(first.components!.decay).toBeCloseTo(0.25, 6);
    expect(first.components!.salience).toBeCloseTo(salienceAfter(0), 6);
    // The first recall's use is buffered: the next one sees it.
    const second = await hit();
    expect(second.components!.decay).toBeCloseTo(1, 6);
    expect(second.components!.salience).toBeCloseTo(salienceAfter(1), 6);
    await t.app.deps.access.flush();
    clock.advance(30 * DAY);
    const third = await hit();
    expect(third.components!.decay).toBeCloseTo(0.5, 6);
    expect(third.components!.salience).toBeCloseTo(salienceAfter(2), 6);

    // Another tracker over the same store (a restarted process) reads the stored uses from the table.
    await t.app.deps.access.flush();
    const restarted = new AccessTracker(t.app.store, t.app.deps.logger, { checkMs: 0 });
    const [row] = await (await t.app.store.memories("default")).get([memoryId]);
    expect(row.accessCount).toBe(0);
    const [seen] = await restarted.current("default", [row]);
    expect(seen.accessCount).toBe(3);
    expect(seen.lastAccessedAt).toBe(clock.now().getTime());
  });

  it("include_history: the closed rows an open hit replaced travel with it, with their own uses", async () => {
    const c = t.client(MemoryService);
    const scope = { user: "history" };
    const { memoryId: oldId } = await c.remember({ scope, content: "my office is in the harbour tower" });
    expect((await c.recall({ scope, query: "office harbour tower", k: 1 })).hits[0].id).toBe(oldId);
    await t.app.deps.access.flush();
    clock.advance(DAY);
    const { memoryId: newId } = await c.remember({ scope, content: "my office moved to the river tower" });
    const now = clock.now().getTime();
    await (await t.app.store.memories("default")).patch([oldId], (row) => ({ ...row, validTo: now, supersededBy: newId }));

    const { hits } = await c.recall({ scope, query: "office tower", k: 5, includeHistory: true });
    expect(hits.map((h) => h.id)).toEqual([newId]);
    expect(hits[0].history.map((m) => m.id)).toEqual([oldId]);
    expect(Number(hits[0].history[0].accessCount)).toBe(1);
    const plain = await c.recall({ scope, query: "office tower", k: 5 });
    expect(plain.hits[0].history).toEqual([]);
  });
});
