import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { EPISODES, LanceStore, MEMORIES } from "../../src/adapters/lancedb/lance-store.js";
import { Maintainer } from "../../src/adapters/lancedb/maintenance.js";
import { where } from "../../src/core/condition.js";
import { episode } from "./collection-contract.js";

const dirs: string[] = [];
const stores: LanceStore[] = [];
async function freshStore(dimension: number): Promise<LanceStore> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-maint-"));
  dirs.push(dir);
  const store = new LanceStore({ uri: dir, dimension });
  stores.push(store);
  return store;
}
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const silent = pino({ level: "silent" });

/** 600 memories of three users, 16-d vectors, written in one commit (enough for a vector index at 500 rows). */
async function storedMemories(store: LanceStore) {
  const memories = await store.collection("t", MEMORIES);
  const rows = Array.from({ length: 600 }, (_, i) => ({ ...episode(`m${i}`, `u${i % 3}`, `memory ${i}`, i, 16) }));
  await memories.upsert(
    rows.map((e) => ({
      id: e.id, namespace: "", agent: "", session: "", user: e.user, text: e.content, factType: "semantic" as const, category: "", importance: 5,
      entities: [], tags: {}, pinned: false, contentHash: "", vector: Float32Array.from(e.vector, (x, j) => x + (j === 15 ? 0.01 * (Number(e.id.slice(1)) % 7) : 0)),
      sourceIds: [], parentId: "", createdAt: 1, validFrom: 1, validTo: null, supersededBy: "", eventDate: null, lastAccessedAt: 1,
      accessCount: 0, channel: "", emotions: [], intent: "", embedModel: "t", role: "", name: "", traceNumber: 0,
    })),
  );
  return memories;
}

describe("Maintainer", () => {
  it("compacts small fragments and folds new rows into the indexes once past the thresholds", async () => {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    for (let i = 0; i < 12; i++) await episodes.upsert([episode(`e${i}`, "u", `walking the dog number ${i}`, i, 8)]);
    const table = episodes.engine.lanceTable;
    expect((await table.stats()).fragmentStats.numFragments).toBe(12);
    const runs: string[] = [];
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 20, unindexedRows: 1000, unindexedShare: 0 });
    maintainer.onRun((task, outcome) => runs.push(`${task}:${outcome}`));
    expect(await maintainer.runOnce()).toBe(0);
    const eager = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 8 });
    eager.onRun((task, outcome) => runs.push(`${task}:${outcome}`));
    expect(await eager.runOnce()).toBe(1);
    expect(runs).toEqual(["optimize:ok"]);
    expect((await table.stats()).fragmentStats.numFragments).toBe(1);
    const fts = (await table.listIndices()).find((i) => i.indexType === "FTS");
    expect(fts?.numUnindexedRows).toBe(0);
    expect(eager.counters.fragmentsRemoved).toBe(12);
    expect((await episodes.match("dog", where.eq("user", "u"), 20)).length).toBe(12);
  });

  it("folds a small table's new rows into the full-text index once they are a share of it", async () => {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    await episodes.upsert(Array.from({ length: 10 }, (_, i) => episode(`s${i}`, "u", `small table ${i}`, i, 8)));
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 20, unindexedRows: 1000 });
    expect(await maintainer.runOnce()).toBe(1);
    const fts = (await episodes.engine.lanceTable.listIndices()).find((i) => i.indexType === "FTS");
    expect(fts?.numUnindexedRows).toBe(0);
  });

  /** A tenant's episodes in `fragments` one-row fragments, and a lull that never comes (counting who waits for it). */
  async function fragmentedWithoutLull(fragments: number) {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    for (let i = 0; i < fragments; i++) await episodes.upsert([episode(`f${i}`, "u", `fragment ${i}`, i, 8)]);
    const lull = { asked: 0 };
    const never = new Promise<void>(() => undefined);
    const maintainer = (boundedRows: number) =>
      new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, boundedRows, whenQuiet: () => (lull.asked++, never) });
    const fragmentCount = async () => (await episodes.engine.lanceTable.stats()).fragmentStats.numFragments;
    return { lull, maintainer, fragmentCount };
  }

  it("waits for a lull before compacting, and stop() ends a pass still waiting for one", async () => {
    const { lull, maintainer, fragmentCount } = await fragmentedWithoutLull(4);
    const waiting = maintainer(0);
    const pass = waiting.runOnce();
    await new Promise((r) => setTimeout(r, 200));
    expect(lull.asked).toBe(1);
    await waiting.stop();
    expect(await pass).toBe(0);
    expect(await fragmentCount()).toBe(4);
  });

  it("does not wait for a lull to compact a table far behind (4× the small-fragment threshold)", async () => {
    const { lull, maintainer, fragmentCount } = await fragmentedWithoutLull(8);
    expect(await maintainer(0).runOnce()).toBe(1);
    expect(lull.asked).toBe(0);
    expect(await fragmentCount()).toBe(1);
  });

  it("does not wait for a lull to compact a table small enough that its pass is bounded (boundedRows)", async () => {
    const { lull, maintainer, fragmentCount } = await fragmentedWithoutLull(4);
    // 4 rows: with `boundedRows` 3 the table waits for the lull; with 4 it compacts at once.
    const waiting = maintainer(3);
    const pass = waiting.runOnce();
    await new Promise((r) => setTimeout(r, 200));
    await waiting.stop();
    expect(await pass).toBe(0);
    expect(lull.asked).toBe(1);
    expect(await maintainer(4).runOnce()).toBe(1);
    expect(lull.asked).toBe(1);
    expect(await fragmentCount()).toBe(1);
  });

  it("compacts a changed table under the thresholds only while requests are quiet, and once per change", async () => {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    for (let i = 0; i < 3; i++) await episodes.upsert([episode(`e${i}`, "u", `text ${i}`, i, 8)]);
    const fragments = async () => (await episodes.engine.lanceTable.stats()).fragmentStats.numFragments;
    let quiet = false;
    // Far under the thresholds: only quiet makes a pass compact it.
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 100, unindexedRows: 1_000, unindexedShare: 0, minIntervalMs: 0, isQuiet: () => quiet });
    expect(await maintainer.runOnce()).toBe(0);
    expect(await fragments()).toBe(3);
    quiet = true;
    expect(await maintainer.runOnce()).toBe(1);
    expect(await fragments()).toBe(1);
    expect(await maintainer.runOnce()).toBe(0); // unchanged since: nothing to do
    expect(await episodes.count(where.all())).toBe(3);
  });

  it("runs next to concurrent writers without losing a write (conflicts are retried)", async () => {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, unindexedRows: 1 });
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 60; i++) await Promise.all([0, 1].map((j) => episodes.upsert([episode(`e${i}-${j}`, "u", `text ${i}`, i, 8)])));
      writing = false;
    })();
    let passes = 0;
    while (writing) {
      await maintainer.runOnce(true);
      passes++;
    }
    await writer;
    expect(passes).toBeGreaterThan(1);
    expect(maintainer.counters.errors).toBe(0);
    expect(await episodes.count(where.all())).toBe(120);
    expect(await episodes.count(where.eq("user", "u"))).toBe(120);
  });

  it("builds a cosine vector index once a table is large enough, and pinned reads stay exact", async () => {
    const store = await freshStore(16);
    const memories = await storedMemories(store);
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, vectorIndexRows: 500 });
    await maintainer.runOnce();
    await maintainer.indexed();
    expect(maintainer.counters.vectorIndexes).toBe(1);
    const indices = await memories.engine.lanceTable.listIndices();
    expect(indices.find((i) => i.columns.includes("vector"))?.indexType).toMatch(/ivf/i);
    const query = new Float32Array(16);
    query[4] = 1;
    const cold = await new LanceStore({ uri: dirs[dirs.length - 1], dimension: 16, hotRowsBytes: 0 }).collection("t", MEMORIES);
    const exact = await cold.nearest(query, where.eq("user", "u1"), 5);
    const served = await memories.nearest(query, where.eq("user", "u1"), 5);
    expect(served.map((h) => h.score)).toEqual(exact.map((h) => expect.closeTo(h.score, 5)));
    expect(exact[0].score).toBeCloseTo(1, 5);
    expect(served.every((h) => h.row.user === "u1")).toBe(true);
  });

  it("builds a vector index beside the passes: a pass compacts another table while the build waits", async () => {
    const store = await freshStore(16);
    const memories = await storedMemories(store);
    const episodes = await store.collection("t", EPISODES);
    for (let i = 0; i < 8; i++) await episodes.upsert([episode(`b${i}`, "u", `behind ${i}`, i, 16)]);
    let release!: () => void;
    const lull = new Promise<void>((r) => (release = r));
    // Only the build waits for a lull: the episodes are far behind (8 ≥ 4 × 2 small fragments).
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, vectorIndexRows: 500, smallFragments: 2, unindexedShare: 0, boundedRows: 0, whenQuiet: () => lull });
    await maintainer.runOnce();
    expect((await episodes.engine.lanceTable.stats()).fragmentStats.numFragments).toBe(1);
    expect(maintainer.counters.vectorIndexes).toBe(0);
    expect(await maintainer.runOnce()).toBe(0); // the table being indexed is left alone
    release();
    await maintainer.indexed();
    expect(maintainer.counters.vectorIndexes).toBe(1);
  });
  it("renews the LanceDB session once a pass after work finds nothing to do: every table reopened, no row lost", async () => {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    for (let i = 0; i < 3; i++) await episodes.upsert([episode(`r${i}`, "u", `renewed ${i}`, i, 8)]);
    const old = episodes.engine.lanceTable;
    const small = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, renewAfterRows: 4 });
    expect(await small.runOnce()).toBe(1);
    expect(await small.runOnce()).toBe(0);
    expect(small.counters.rowsRewritten).toBe(3);
    expect(small.counters.sessionRenewals).toBe(0); // 3 rows rewritten, under the 4 it takes
    expect(episodes.engine.lanceTable).toBe(old);
    for (let i = 4; i < 7; i++) await episodes.upsert([episode(`r${i}`, "u", `renewed ${i}`, i, 8)]);
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, renewAfterRows: 0 });
    expect(await maintainer.runOnce()).toBe(1);
    expect(maintainer.counters.sessionRenewals).toBe(0); // still working: at most once a minute
    expect(await maintainer.runOnce()).toBe(0);
    expect(maintainer.counters.sessionRenewals).toBe(1);
    expect(episodes.engine.lanceTable).not.toBe(old);
    expect(await maintainer.runOnce()).toBe(0); // no work since: no renewal
    expect(maintainer.counters.sessionRenewals).toBe(1);
    await episodes.upsert([episode("r3", "u", "renewed 3", 3, 8)]);
    expect(await episodes.count(where.all())).toBe(7);
    expect((await episodes.match("renewed", where.eq("user", "u"), 10)).length).toBe(7);
    expect(await old.countRows()).toBe(7); // the old handle still reads (work started on it finishes)
    const never = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, renewSessionMs: 0, renewAfterRows: 0 });
    expect(await never.runOnce()).toBe(1);
    expect(await never.runOnce()).toBe(0);
    expect(never.counters.sessionRenewals).toBe(0);
  });

  it("warms a renewed session's handle of a table read lately before handing it over, and only those", async () => {
    const store = await freshStore(8);
    const read = await store.collection("a", EPISODES);
    const unread = await store.collection("b", EPISODES); // opened, never written or read
    for (let i = 0; i < 3; i++) await read.upsert([episode(`w${i}`, "u", `warm ${i}`, i, 8)]);
    expect((await read.match("warm", where.eq("user", "u"), 10)).length).toBe(3);
    const renewal = await store.renewSession();
    expect([renewal.tables, renewal.warmed]).toEqual([2, 1]);
    expect((await read.match("warm", where.eq("user", "u"), 10)).length).toBe(3);
    expect(await unread.count(where.all())).toBe(0);
  });

  it("loses no write when the session is renewed while writes are in flight", async () => {
    const store = await freshStore(8);
    const episodes = await store.collection("t", EPISODES);
    const writes = Array.from({ length: 40 }, (_, i) => episodes.upsert([episode(`w${i}`, `u${i % 4}`, `in flight ${i}`, i, 8)]));
    const renewals = await Promise.all([store.renewSession(), store.renewSession()]);
    expect(renewals[0]).toBe(renewals[1]); // one renewal at a time: the second joins the first
    expect(renewals[0].tables).toBeGreaterThanOrEqual(1);
    await Promise.all(writes);
    expect(await episodes.count(where.all())).toBe(40);
    expect(await (await store.episodes("t")).count(where.eq("user", "u1"))).toBe(10);
  });
});
