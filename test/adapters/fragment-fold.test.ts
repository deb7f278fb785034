import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { fold, fragmentRows, planFold, planTidy, TARGET_FRAGMENT_ROWS } from "../../src/adapters/lancedb/fragment-fold.js";
import { EPISODES, LanceStore } from "../../src/adapters/lancedb/lance-store.js";
import { Maintainer } from "../../src/adapters/lancedb/maintenance.js";
import { where } from "../../src/core/condition.js";
import { episode } from "./collection-contract.js";

const dirs: string[] = [];
const stores: LanceStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const silent = pino({ level: process.env.FOLD_LOG ?? "silent" });

async function emptyStore(): Promise<LanceStore> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-fold-"));
  dirs.push(dir);
  const store = new LanceStore({ uri: dir, dimension: 8 });
  stores.push(store);
  return store;
}

const limits = { maxBytes: 1_000_000, bytesPerRow: 100, minBaseRows: 1_000 };

describe("planFold", () => {
  it("moves every fragment but the largest", () => {
    const plan = planFold(new Map([[3, 5], [0, 4_000], [7, 1], [5, 20]]), limits);
    expect(plan).toEqual({ base: 0, fragments: [3, 5, 7], rows: 26 });
  });

  it("rewrites whole (null) a table with one fragment, a small base, or a delta past the byte bound", () => {
    expect(planFold(new Map([[0, 4_000]]), limits)).toBeNull();
    expect(planFold(new Map([[0, 999], [1, 2]]), limits)).toBeNull();
    expect(planFold(new Map([[0, 40_000], [1, 10_001]]), limits)).toBeNull();
    expect(planFold(new Map([[0, 40_000], [1, 6_000], [2, 4_000]]), limits)).toEqual({ base: 0, fragments: [1, 2], rows: 10_000 });
  });

  it("rewrites whole (null) once the rows to move outnumber the base, so the next base is twice the size", () => {
    expect(planFold(new Map([[0, 2_000], [5, 1_500], [8, 500]]), limits)).toEqual({ base: 0, fragments: [5, 8], rows: 2_000 });
    expect(planFold(new Map([[0, 2_000], [5, 1_500], [8, 501]]), limits)).toBeNull();
  });

  it("leaves fragments at LanceDB's target size alone and takes the largest below it as the base", () => {
    const plan = planFold(new Map([[0, TARGET_FRAGMENT_ROWS], [1, 3_000], [2, 10]]), limits);
    expect(plan).toEqual({ base: 1, fragments: [2], rows: 10 });
  });
});

describe("planTidy", () => {
  it("moves the fragments written since the last optimize, once there are enough of them", () => {
    const rows = new Map([[0, 4_000], [3, 500], [5, 1], [6, 1], [7, 2]]);
    expect(planTidy(rows, 3, 3)).toEqual({ base: -1, fragments: [5, 6, 7], rows: 4 });
    expect(planTidy(rows, 3, 4)).toBeNull();
    expect(planTidy(rows, 6, 1)).toBeNull(); // one fragment is already one
    expect(planTidy(new Map([[9, TARGET_FRAGMENT_ROWS], [10, 1], [11, 1]]), 8, 2)).toEqual({ base: -1, fragments: [10, 11], rows: 2 });
  });

  it("leaves the largest new fragment where it is when it holds more rows than the others together", () => {
    expect(planTidy(new Map([[0, 4_000], [4, 60], [5, 1], [6, 2], [7, 1]]), 3, 3)).toEqual({ base: 4, fragments: [5, 6, 7], rows: 4 });
    expect(planTidy(new Map([[0, 4_000], [4, 4], [5, 1], [6, 2], [7, 1]]), 3, 3)).toEqual({ base: -1, fragments: [4, 5, 6, 7], rows: 8 });
  });
});

describe("fold before optimize (real LanceDB)", () => {
  /** Episodes: a base of `baseRows` compacted and indexed, then `singles` one-row commits. */
  async function shardWithDelta(baseRows: number, singles: number) {
    const store = await emptyStore();
    const episodes = await store.collection("t", EPISODES);
    for (let b = 0; b < 4; b++) {
      await episodes.upsert(Array.from({ length: baseRows / 4 }, (_, i) => episode(`b${b}-${i}`, `u${i % 5}`, `base walk ${b} ${i}`, i, 8)));
    }
    const options = { intervalMs: 0, smallFragments: 4, unindexedShare: 0, foldMinRows: 100 };
    await new Maintainer(store, silent, { ...options, foldBytes: 0 }).runOnce(true);
    for (let i = 0; i < singles; i++) await episodes.upsert([episode(`n${i}`, `u${i % 5}`, `new dog walk ${i}`, i, 8)]);
    return { store, episodes, table: episodes.engine.lanceTable, options };
  }

  it("moves only the rows written since the last full compaction, and the optimize after it rewrites nothing", async () => {
    const { store, episodes, table, options } = await shardWithDelta(400, 12);
    const before = await fragmentRows(table);
    const [base, baseRows] = [...before].sort((a, b) => b[1] - a[1])[0];
    expect(baseRows).toBe(400);
    expect(before.size).toBe(13);
    const sample = await episodes.get(["n3", "b2-7"]);

    const maintainer = new Maintainer(store, silent, options);
    expect(await maintainer.runOnce()).toBe(1);
    const after = await fragmentRows(table);
    expect(after.get(base)).toBe(400); // the base was not rewritten
    expect(after.size).toBe(2);
    expect(maintainer.counters.folds).toBe(1);
    expect(maintainer.counters.rowsRewritten).toBe(12);
    expect(maintainer.counters.fragmentsRemoved).toBe(0);
    expect(maintainer.counters.bytesRewritten).toBeGreaterThan(0);

    expect(await episodes.count(where.all())).toBe(412);
    expect(await episodes.get(["n3", "b2-7"])).toEqual(sample);
    expect((await episodes.match("dog", where.eq("user", "u3"), 20)).map((h) => h.row.id).sort()).toEqual(["n3", "n8"]);
    const fts = (await table.listIndices()).find((i) => i.indexType === "FTS");
    expect(fts?.numUnindexedRows).toBe(0);

    // The next round moves the last fold's fragment with the new ones, still sparing the base.
    for (let i = 12; i < 20; i++) await episodes.upsert([episode(`n${i}`, `u${i % 5}`, `new dog walk ${i}`, i, 8)]);
    await maintainer.runOnce(true);
    const again = await fragmentRows(table);
    expect(again.get(base)).toBe(400);
    expect(again.size).toBe(2);
    expect(maintainer.counters.rowsRewritten).toBe(12 + 20);
    expect(await episodes.count(where.all())).toBe(420);
  });

  it("folds a table that single writes left in 600 fragments (one filter naming each was refused)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentmem-fold-many-"));
    dirs.push(dir);
    const db = await lancedb.connect(dir);
    const table = await db.createTable("t", [{ id: "base", n: 0 }]);
    await table.createIndex("id", { config: lancedb.Index.btree() });
    for (let i = 1; i <= 600; i++) await table.add([{ id: `r${i}`, n: i }]);
    const rows = await fragmentRows(table);
    const fragments = [...rows.keys()].filter((f) => f !== 0);
    expect(fragments.length).toBe(600);
    // LanceDB refuses a filter of more than 500 conditions; consecutive fragments are one range.
    expect(await fold(table, { base: 0, fragments, rows: 600 })).toBe(600);
    expect((await fragmentRows(table)).size).toBe(2);
    expect(await table.countRows()).toBe(601);
    table.close();
  });

  it("rewrites the table whole when folds are off, and counts the rows it rewrote", async () => {
    const { store, episodes, table, options } = await shardWithDelta(400, 6);
    const base = [...(await fragmentRows(table))].sort((a, b) => b[1] - a[1])[0][0];
    const maintainer = new Maintainer(store, silent, { ...options, foldBytes: 0 });
    // The first optimize folds the unindexed rows into one fragment; once the indexes cover it too,
    // the next one rewrites it and the base together.
    await maintainer.runOnce(true);
    await episodes.upsert([episode("late", "u1", "late walk", 1, 8)]);
    await maintainer.runOnce(true);
    expect(maintainer.counters.folds).toBe(0);
    expect(maintainer.counters.rowsRewritten).toBeGreaterThanOrEqual(406);
    expect((await fragmentRows(table)).has(base)).toBe(false);
  });

  it("loses no write and no update that lands while folds run", async () => {
    const { store, episodes, options } = await shardWithDelta(400, 10);
    const maintainer = new Maintainer(store, silent, { ...options, smallFragments: 2 });
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 40; i++) {
        await Promise.all([
          episodes.upsert([episode(`w${i}`, "u9", `written ${i}`, i, 8)]),
          // Rewrites a row the fold may be moving: the newest content must win.
          episodes.upsert([episode(`n${i % 10}`, `u${i % 5}`, `updated ${i}`, i, 8)]),
        ]);
      }
      writing = false;
    })();
    while (writing) await maintainer.runOnce(true);
    await writer;
    await maintainer.runOnce(true);
    expect(maintainer.counters.folds).toBeGreaterThan(0);
    expect(maintainer.counters.errors).toBe(0);
    expect(await episodes.count(where.all())).toBe(450);
    const updated = await episodes.get(Array.from({ length: 10 }, (_, i) => `n${i}`));
    expect(updated.map((e) => e.content).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `updated ${30 + i}`).sort());
  });
  it("tidies the fragments written since the last optimize into one without an optimize, never moving indexed rows", async () => {
    const { store, episodes, table } = await shardWithDelta(400, 0);
    const options = { intervalMs: 0, smallFragments: 24, unindexedShare: 0, foldMinRows: 100, tidyFragments: 4, minIntervalMs: 0 };
    const maintainer = new Maintainer(store, silent, options);
    await maintainer.runOnce(true); // an optimize: the tidy folds start from the fragments it leaves
    const indexed = await fragmentRows(table);
    const ftsName = (await table.listIndices()).find((i) => i.indexType === "FTS")!.name;
    const fts = () => table.indexStats(ftsName);
    const covered = (await fts())?.numIndexedRows;
    for (let i = 0; i < 3; i++) await episodes.upsert([episode(`t${i}`, `u${i % 5}`, `tidy dog walk ${i}`, i, 8)]);
    expect(await maintainer.runOnce()).toBe(0); // three new fragments: under tidyFragments
    for (let i = 3; i < 6; i++) await episodes.upsert([episode(`t${i}`, `u${i % 5}`, `tidy dog walk ${i}`, i, 8)]);
    expect(await maintainer.runOnce()).toBe(1);
    expect(maintainer.counters.tidyFolds).toBe(1);
    expect(maintainer.counters.optimizations).toBe(1);
    const after = await fragmentRows(table);
    for (const [id, rows] of indexed) expect(after.get(id)).toBe(rows); // indexed fragments untouched
    expect(after.size).toBe(indexed.size + 1);
    expect((await fts())?.numIndexedRows).toBe(covered);
    expect((await fts())?.numUnindexedRows).toBe(6);
    expect((await episodes.match("tidy", where.eq("user", "u1"), 20)).map((h) => h.row.id).sort()).toEqual(["t1"]);
    // The next tidy leaves the last tidy's fragment (6 rows, more than the 4 new ones together)
    // where it is and moves the new ones; the indexed ones still stay.
    const tidied = [...after.keys()].find((id) => !indexed.has(id))!;
    for (let i = 6; i < 10; i++) await episodes.upsert([episode(`t${i}`, `u${i % 5}`, `tidy dog walk ${i}`, i, 8)]);
    expect(await maintainer.runOnce()).toBe(1);
    const again = await fragmentRows(table);
    for (const [id, rows] of indexed) expect(again.get(id)).toBe(rows);
    expect(again.get(tidied)).toBe(6);
    expect(again.size).toBe(indexed.size + 2);
    expect(maintainer.counters.rowsRewritten).toBe(6 + 4);
    expect(await episodes.count(where.all())).toBe(410);
    // A full pass then folds and indexes them as before.
    await maintainer.runOnce(true);
    expect((await fts())?.numUnindexedRows).toBe(0);
    expect(await episodes.count(where.all())).toBe(410);
  });
  it("past the small-fragment threshold alone, tidies instead of a full pass; unindexed rows past their threshold still get one", async () => {
    const { store, episodes } = await shardWithDelta(400, 0);
    const options = { intervalMs: 0, smallFragments: 4, unindexedRows: 12, unindexedShare: 0, foldMinRows: 100, tidyFragments: 4, minIntervalMs: 0 };
    const maintainer = new Maintainer(store, silent, options);
    await maintainer.runOnce(true);
    for (let i = 0; i < 5; i++) await episodes.upsert([episode(`s${i}`, `u${i % 5}`, `steady walk ${i}`, i, 8)]);
    expect(await maintainer.runOnce()).toBe(1);
    expect(maintainer.counters.tidyFolds).toBe(1);
    expect(maintainer.counters.optimizations).toBe(1);
    for (let i = 5; i < 13; i++) await episodes.upsert([episode(`s${i}`, `u${i % 5}`, `steady walk ${i}`, i, 8)]);
    expect(await maintainer.runOnce()).toBe(1); // 13 unindexed rows ≥ 12: a full pass
    expect(maintainer.counters.optimizations).toBe(2);
    expect(await episodes.count(where.all())).toBe(413);
  });
});

describe("tidy folds between full passes (real LanceDB)", () => {
  it("tidies a table past the small-fragment line before another table's full pass, not after it", async () => {
    const store = await emptyStore();
    const behind = await store.collection("a", EPISODES);
    const waiting = await store.collection("b", EPISODES);
    for (const [c, tag] of [[behind, "a"], [waiting, "b"]] as const) {
      await c.upsert(Array.from({ length: 200 }, (_, i) => episode(`${tag}-base-${i}`, `u${i % 5}`, `base walk ${i}`, i, 8)));
    }
    const lines: { msg: string; table?: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; table?: string }) });
    const options = { intervalMs: 0, smallFragments: 4, unindexedRows: 12, unindexedShare: 0, foldMinRows: 100, tidyFragments: 4, minIntervalMs: 0 };
    const maintainer = new Maintainer(store, logger, options);
    await maintainer.runOnce(true);
    // `a`: 18 unindexed rows in 6 commits (a full pass, first in line); `b`: 5 single rows (a tidy).
    for (let i = 0; i < 6; i++) await behind.upsert(Array.from({ length: 3 }, (_, k) => episode(`a${i}-${k}`, "u1", `walk ${i} ${k}`, i, 8)));
    for (let i = 0; i < 5; i++) await waiting.upsert([episode(`b${i}`, "u2", `walk ${i}`, i, 8)]);
    lines.length = 0;
    expect(await maintainer.runOnce()).toBe(2);
    const order = lines.filter((l) => l.msg === "fragments tidied" || l.msg === "table maintained").map((l) => `${l.msg}: ${l.table?.split("__")[1]}`);
    expect(order).toEqual(["fragments tidied: b", "table maintained: a"]);
    expect(maintainer.counters.tidyFolds).toBe(1);
    expect(maintainer.counters.optimizations).toBe(3);
    expect(await waiting.count(where.all())).toBe(205);
    expect((await waiting.engine.lanceTable.stats()).fragmentStats.numFragments).toBeLessThan(4);
    expect(await behind.count(where.all())).toBe(218);
  });

  it("between passes, a tidy round folds a table at half the small-fragment line, and a pass asked for meanwhile runs after it", async () => {
    const store = await emptyStore();
    const episodes = await store.collection("t", EPISODES);
    await episodes.upsert(Array.from({ length: 200 }, (_, i) => episode(`base-${i}`, `u${i % 5}`, `base walk ${i}`, i, 8)));
    // Passes every minute (none runs during the test), tidy rounds every 40 ms.
    const options = { intervalMs: 60_000, tidyEveryMs: 40, smallFragments: 12, tidyFragments: 4, unindexedShare: 0, foldMinRows: 100, minIntervalMs: 0 };
    const maintainer = new Maintainer(store, silent, options);
    await maintainer.runOnce(true);
    for (let i = 0; i < 4; i++) await episodes.upsert([episode(`s${i}`, "u1", `steady walk ${i}`, i, 8)]);
    // 5 small fragments (the base and 4): under half the line (6), so no round tidies them.
    expect(await maintainer.tidyRound()).toBe(0);
    await episodes.upsert([episode("s4", "u1", "steady walk 4", 4, 8)]);
    maintainer.start();
    try {
      const deadline = Date.now() + 10_000;
      while (maintainer.counters.tidyFolds === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(maintainer.counters.tidyFolds).toBe(1);
      expect(maintainer.counters.optimizations).toBe(1); // no pass ran: the tidy round did it
      expect((await episodes.engine.lanceTable.stats()).fragmentStats.numFragments).toBeLessThanOrEqual(3);
      // A pass asked for while a round runs waits for it, then runs in full.
      for (let i = 5; i < 11; i++) await episodes.upsert([episode(`s${i}`, "u1", `steady walk ${i}`, i, 8)]);
      const round = maintainer.tidyRound();
      const pass = maintainer.runOnce(true);
      await round;
      expect(await pass).toBeGreaterThan(0);
      expect(maintainer.counters.optimizations).toBe(2);
    } finally {
      await maintainer.stop();
    }
    expect(await episodes.count(where.all())).toBe(211);
  });
});
