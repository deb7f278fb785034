import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryRecord } from "../src/core/records.js";
import { FactType } from "../src/gen/agentmem/v1/common_pb.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import type { PatchableCollection } from "../src/ports/collection.js";
import { createManualClock } from "../src/ports/clock.js";
import type { Store } from "../src/ports/store.js";
import type { ServiceDeps } from "../src/services/deps.js";
import { rollupScope } from "../src/services/memory/rollup.js";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const DAY = 86_400_000;
const NOW = new Date("2026-06-01T12:00:00Z");
const clock = createManualClock(NOW);
const daysAgo = (n: number) => ({ seconds: BigInt(Math.floor((NOW.getTime() - n * DAY) / 1000)), nanos: 0 });

const AGED = [
  "The area of interest is the Port of Long Beach.",
  "Report all times in Zulu.",
  "The analyst prefers tables over charts.",
  "Berth 7 was closed for dredging in March.",
  "The weekly briefing is on Thursdays at 0900Z.",
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

async function seed(user: string, texts: readonly string[], ageDays: number, extra: { pinned?: boolean } = {}): Promise<string[]> {
  const c = t.client(MemoryService);
  const ids: string[] = [];
  for (const content of texts) ids.push((await c.remember({ scope: { user }, content, observedAt: daysAgo(ageDays), ...extra })).memoryId);
  return ids;
}

describe("Rollup", () => {
  it("folds five aged memories into one summary, keeping every text; pinned and fresh are untouched", async () => {
    const c = t.client(MemoryService);
    const user = "analyst-7";
    const sourceIds = await seed(user, AGED, 60);
    const [pinnedId] = await seed(user, ["Never share data with third parties."], 60, { pinned: true });
    const [freshId] = await seed(user, ["Today the queue is eleven ships."], 0);

    const res = await c.rollup({ scope: { user } });
    expect(res.rolledUp).toBe(true);
    expect(res.consolidated).toBe(5);
    expect([...res.sourceIds].sort()).toEqual([...sourceIds].sort());
    for (const text of AGED) expect(res.summary).toContain(text);
    expect(res.summary.startsWith("Consolidated summary of 5 memories:")).toBe(true);

    const list = await c.listMemories({ scope: { user } });
    expect(list.memories.map((m) => m.id).sort()).toEqual([res.summaryId, pinnedId, freshId].sort());
    const summary = list.memories.find((m) => m.id === res.summaryId)!;
    expect(summary.factType).toBe(FactType.SUMMARY);
    expect(summary.sourceIds.slice().sort()).toEqual([...sourceIds].sort());
    const pinned = await c.getMemory({ scope: { user }, id: pinnedId });
    expect(pinned.memory?.text).toBe("Never share data with third parties.");

    const hits = await c.recall({ scope: { user }, query: "which port is the area of interest?" });
    expect(hits.hits[0].id).toBe(res.summaryId);

    const history = await c.history({ scope: { user } });
    expect(history.turns.length).toBe(7);
    const times = history.turns.map((turn) => Number(turn.observedAt!.seconds));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    const again = await c.rollup({ scope: { user } });
    expect(again).toMatchObject({ rolledUp: false, consolidated: 0, summaryId: "" });
  });

  it("leaves a scope with fewer than three aged memories alone", async () => {
    const c = t.client(MemoryService);
    await seed("few", AGED.slice(0, 2), 60);
    await seed("few", AGED.slice(2), 5);
    const res = await c.rollup({ scope: { user: "few" } });
    expect(res).toMatchObject({ rolledUp: false, consolidated: 0, summaryId: "", summary: "", sourceIds: [] });
    expect((await c.listMemories({ scope: { user: "few" } })).memories.length).toBe(5);
  });

  it("measures age from observation and honours older_than_days and max_sources", async () => {
    const c = t.client(MemoryService);
    const texts = Array.from({ length: 7 }, (_, i) => `Observation number ${i} about the harbour`);
    for (let i = 0; i < texts.length; i++) await seed("ages", [texts[i]], 40 + i);
    await seed("ages", ["A note from ten days ago"], 10);
    const first = await c.rollup({ scope: { user: "ages" }, maxSources: 4 });
    expect(first.consolidated).toBe(4);
    for (const i of [6, 5, 4, 3]) expect(first.summary).toContain(texts[i]);
    const second = await c.rollup({ scope: { user: "ages" } });
    expect(second.consolidated).toBe(3);
    expect(second.summary).not.toContain("ten days ago");
    const third = await c.rollup({ scope: { user: "ages" }, olderThanDays: 5 });
    expect(third.rolledUp).toBe(false);
  });

  it("rejects a global scope and bad counts with INVALID_ARGUMENT", async () => {
    const c = t.client(MemoryService);
    for (const req of [{}, { scope: {} }, { scope: { user: "x" }, olderThanDays: -1 }, { scope: { user: "x" }, maxSources: -2 }]) {
      const err = await c.rollup(req).catch((e: unknown) => e);
      expect(ConnectError.from(err).code).toBe(Code.InvalidArgument);
    }
  });
});

/** The real store, except that the memories table fails the writes `fail` names. */
function faultyStore(store: Store, fail: { summaryWrite?: boolean; delete?: boolean }): Store {
  const wrap = (real: PatchableCollection<MemoryRecord>): PatchableCollection<MemoryRecord> => ({
    upsert: (rows) => (fail.summaryWrite && rows.some((r) => r.factType === "summary") ? Promise.reject(new Error("injected: disk full")) : real.upsert(rows)),
    insertNew: (rows) => real.insertNew(rows),
    get: (ids) => real.get(ids),
    find: (condition, options) => real.find(condition, options),
    project: (condition, columns) => real.project(condition, columns),
    count: (condition) => real.count(condition),
    nearest: (vector, condition, limit) => real.nearest(vector, condition, limit),
    match: (text, condition, limit) => real.match(text, condition, limit),
    delete: (condition) => (fail.delete ? Promise.reject(new Error("injected: crash before delete")) : real.delete(condition)),
    patch: (ids, change, insert) => real.patch(ids, change, insert),
    forUser: (user) => {
      const mine = real.forUser(user);
      return {
        user,
        get: (ids) => mine.get(ids),
        find: (condition, options) => mine.find(condition, options),
        project: (condition, columns) => mine.project(condition, columns),
        count: (condition) => mine.count(condition),
        nearest: (vector, condition, limit, options) => mine.nearest(vector, condition, limit, options),
        match: (text, condition, limit, options) => mine.match(text, condition, limit, options),
        delete: (condition) => (fail.delete ? Promise.reject(new Error("injected: crash before delete")) : mine.delete(condition)),
        inMemory: () => mine.inMemory(),
      };
    },
  });
  return new Proxy(store, {
    get(target, prop) {
      if (prop === "memories") return async (tenant: string) => wrap(await target.memories(tenant));
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("Rollup crash safety (fault injection)", () => {
  const input = (user: string) => ({ key: { namespace: "", agent: "", session: "", user }, olderThanDays: 30, maxSources: 100 });

  it("never loses a memory when the write of the summary fails", async () => {
    const c = t.client(MemoryService);
    const ids = await seed("fault-write", AGED, 60);
    const deps: ServiceDeps = { ...t.app.deps, store: faultyStore(t.app.deps.store, { summaryWrite: true }) };
    await expect(rollupScope(deps, "default", input("fault-write"))).rejects.toThrow("injected: disk full");
    const left = await c.listMemories({ scope: { user: "fault-write" } });
    expect(left.memories.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(left.memories.every((m) => m.factType !== FactType.SUMMARY)).toBe(true);
  });

  it("leaves both summary and sources when it dies between the write and the delete, and the next pass finishes", async () => {
    const c = t.client(MemoryService);
    const ids = await seed("fault-delete", AGED, 60);
    const deps: ServiceDeps = { ...t.app.deps, store: faultyStore(t.app.deps.store, { delete: true }) };
    await expect(rollupScope(deps, "default", input("fault-delete"))).rejects.toThrow("injected: crash before delete");
    const both = await c.listMemories({ scope: { user: "fault-delete" } });
    const summaries = both.memories.filter((m) => m.factType === FactType.SUMMARY);
    expect(summaries.length).toBe(1);
    expect(both.memories.length).toBe(6);
    for (const text of AGED) expect(summaries[0].text).toContain(text);

    const next = await c.rollup({ scope: { user: "fault-delete" } });
    expect(next.rolledUp).toBe(false);
    const after = await c.listMemories({ scope: { user: "fault-delete" } });
    expect(after.memories.map((m) => m.id)).toEqual([summaries[0].id]);
    expect(ids).not.toContain(summaries[0].id);
  });
});

describe("Rollup with a chat model", () => {
  let fake: FakeOpenAI;
  let llm: TestApp;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    llm = await createTestApp({ clock, env: { AGENTMEM_LLM: "openai", OPENAI_BASE_URL: fake.baseURL } });
  });
  afterAll(async () => {
    await llm.close();
    await fake.close();
  });

  it("writes the model's abstractive summary", async () => {
    const c = llm.client(MemoryService);
    for (const content of AGED) await c.remember({ scope: { user: "abs" }, content, observedAt: daysAgo(45) });
    fake.setChat((body) => {
      expect(body.messages.at(-1)?.content).toContain(AGED[0]);
      return "The analyst watches the Port of Long Beach, wants Zulu times and tables, and is briefed on Thursdays at 0900Z; berth 7 was dredged in March.";
    });
    const res = await c.rollup({ scope: { user: "abs" } });
    expect(res.consolidated).toBe(5);
    expect(res.summary.startsWith("The analyst watches the Port of Long Beach")).toBe(true);
    expect((await c.listMemories({ scope: { user: "abs" } })).memories.map((m) => m.id)).toEqual([res.summaryId]);
  });

  it("falls back to the merge when the model fails", async () => {
    const c = llm.client(MemoryService);
    for (const content of AGED) await c.remember({ scope: { user: "fallback" }, content, observedAt: daysAgo(45) });
    fake.setChat(() => ({ status: 500, body: JSON.stringify({ error: { message: "boom" } }) }));
    const res = await c.rollup({ scope: { user: "fallback" } });
    expect(res.consolidated).toBe(5);
    expect(res.summary.startsWith("Consolidated summary of 5 memories:")).toBe(true);
    for (const text of AGED) expect(res.summary).toContain(text);
  });
});
