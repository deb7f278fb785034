import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const DAY = 86_400_000;
const clock = createManualClock(new Date("2026-01-01T00:00:00Z"));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

const texts = async (user: string) => (await t.client(MemoryService).listMemories({ scope: { user } })).memories.map((m) => m.text).sort();

describe("Forget", () => {
  it("expires only non-pinned memories unused for unused_for_days, even with pinned_exempt=false", async () => {
    const c = t.client(MemoryService);
    const user = "unused";
    await c.remember({ scope: { user }, content: "Alpha harbour pilots board at the breakwater" });
    await c.remember({ scope: { user }, content: "Beta berth schedule for container ships" });
    await c.remember({ scope: { user }, content: "Restated fact about tugboats" });
    await c.remember({ scope: { user }, content: "Pinned rule: report in Zulu", pinned: true });
    clock.advance(100 * DAY);
    const recalled = await c.recall({ scope: { user }, query: "alpha harbour pilots breakwater", k: 1 });
    expect(recalled.hits.map((h) => h.memory)).toEqual(["Alpha harbour pilots board at the breakwater"]);
    await t.app.deps.access.flush();
    await c.remember({ scope: { user }, content: "Restated fact about tugboats" });

    expect((await c.forget({ scope: { user }, unusedForDays: 120 })).deleted).toBe(0n);
    expect((await c.forget({ scope: { user }, unusedForDays: 90, pinnedExempt: false })).deleted).toBe(1n);
    expect(await texts(user)).toEqual(["Alpha harbour pilots board at the breakwater", "Pinned rule: report in Zulu", "Restated fact about tugboats"]);
  });

  it("keeps pinned memories unless pinned_exempt=false", async () => {
    const c = t.client(MemoryService);
    const user = "pins";
    await c.remember({ scope: { user }, content: "ordinary one" });
    await c.remember({ scope: { user }, content: "ordinary two" });
    await c.remember({ scope: { user }, content: "pinned one", pinned: true });
    expect((await c.forget({ scope: { user } })).deleted).toBe(2n);
    expect(await texts(user)).toEqual(["pinned one"]);
    expect((await c.forget({ scope: { user }, pinnedExempt: true })).deleted).toBe(0n);
    expect((await c.forget({ scope: { user }, pinnedExempt: false })).deleted).toBe(1n);
    expect(await texts(user)).toEqual([]);
  });

  it("counts uses not yet written: a memory recalled a moment ago is not unused", async () => {
    const c = t.client(MemoryService);
    const user = "fresh-use";
    await c.remember({ scope: { user }, content: "Gamma dredging permit renewed" });
    await c.remember({ scope: { user }, content: "Delta pilot ladder inspection" });
    clock.advance(100 * DAY);
    await c.recall({ scope: { user }, query: "gamma dredging permit", k: 1 });
    expect((await c.forget({ scope: { user }, unusedForDays: 90 })).deleted).toBe(1n);
    expect(await texts(user)).toEqual(["Gamma dredging permit renewed"]);
  });
});
