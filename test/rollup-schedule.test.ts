import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { FactType } from "../src/gen/agentmem/v1/common_pb.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { RollupScheduler } from "../src/services/memory/rollup-scheduler.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const NOW = new Date("2026-06-01T12:00:00Z");
const clock = createManualClock(NOW);
const aged = { seconds: BigInt(Math.floor(NOW.getTime() / 1000) - 45 * 86_400), nanos: 0 };
const K1 = "tenant-one-key-0123456789";
const K2 = "tenant-two-key-0123456789";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock, apiKeys: `${K1}:t1:write,${K2}:t2:write` });
});
afterAll(() => t.close());

async function seed(key: string, scope: { user?: string; session?: string }, n: number): Promise<void> {
  const c = t.client(MemoryService, key);
  for (let i = 0; i < n; i++) await c.remember({ scope, content: `${JSON.stringify(scope)} note ${i}`, observedAt: aged });
}

describe("scheduled rollup", () => {
  it("is off by default and configured from the environment", () => {
    expect(loadConfig({}, {}).rollup).toEqual({ intervalMinutes: 0, tenants: [], olderThanDays: 30, maxSources: 100 });
    const on = loadConfig({}, { AGENTMEM_ROLLUP_INTERVAL_MINUTES: "15", AGENTMEM_ROLLUP_TENANTS: "t1, t2", AGENTMEM_ROLLUP_OLDER_THAN_DAYS: "7", AGENTMEM_ROLLUP_MAX_SOURCES: "50" });
    expect(on.rollup).toEqual({ intervalMinutes: 15, tenants: ["t1", "t2"], olderThanDays: 7, maxSources: 50 });
    expect(() => loadConfig({}, { AGENTMEM_ROLLUP_MAX_SOURCES: "2" })).toThrow(/rollup/);
  });

  it("rolls up each scope of the configured tenants, never across sessions, never the global scope", async () => {
    await seed(K1, { user: "a", session: "s1" }, 3);
    await seed(K1, { user: "a", session: "s2" }, 4);
    await seed(K1, { user: "b" }, 2);
    await seed(K1, {}, 3);
    await seed(K2, { user: "c" }, 3);
    const scheduler = new RollupScheduler(t.app.deps, { intervalMs: 0, tenants: ["t1"], olderThanDays: 30, maxSources: 100 });
    const sweep = await scheduler.runOnce();
    expect(sweep).toEqual({ tenants: 1, summaries: 2, consolidated: 7, failed: 0 });

    const one = t.client(MemoryService, K1);
    const list = (await one.listMemories({ pageSize: 100 })).memories;
    const summaries = list.filter((m) => m.factType === FactType.SUMMARY);
    expect(summaries.map((s) => [s.scope?.session, s.sourceIds.length]).sort()).toEqual([["s1", 3], ["s2", 4]]);
    expect(list.filter((m) => m.scope?.user === "b").length).toBe(2);
    expect(list.filter((m) => m.scope?.user === "" && m.factType !== FactType.SUMMARY).length).toBe(3);
    expect((await t.client(MemoryService, K2).listMemories({})).memories.length).toBe(3);

    expect((await scheduler.runOnce()).summaries).toBe(0);
    await scheduler.stop();
  });
});
