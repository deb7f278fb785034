import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LanceStore, MEMORIES } from "../../src/adapters/lancedb/lance-store.js";
import { ftsTerms } from "../../src/adapters/row-cache/fts-terms.js";
import type { MemoryRecord } from "../../src/core/records.js";
import { type Condition, where } from "../../src/core/condition.js";

const DIM = 8;
const dirs: string[] = [];
const stores: LanceStore[] = [];

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-hot-"));
  dirs.push(dir);
  return dir;
}
function open(dir: string, hotRowsBytes?: number): LanceStore {
  // Another store on the same directory stands for another process: look for its versions on every read.
  // A user read once is loaded (the default waits for a second read, see warmer.test.ts): these tests are about what is held.
  const s = new LanceStore({ uri: dir, dimension: DIM, hotRowsBytes, soleWriterCheckSeconds: 0, warmer: { admitAfterReads: 1 } });
  stores.push(s);
  return s;
}
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A memory row; the vector is a deterministic function of `seed`. */
function memory(id: string, user: string, text: string, seed: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  const vector = Float32Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));
  return {
    id, namespace: "", agent: "", session: "", user, text, factType: "semantic", category: "", importance: 5, entities: [],
    tags: {}, pinned: false, contentHash: "", vector, sourceIds: [], parentId: "", createdAt: 1, validFrom: 1, validTo: null,
    supersededBy: "", eventDate: null, lastAccessedAt: 1, accessCount: 0, channel: "", emotions: [], intent: "", embedModel: "t",
    role: "user", name: "", traceNumber: 0, ...extra,
  };
}

const TEXTS = [
  "My sister Anna is running the Berlin marathon in April",
  "We talked about the dogs and their walks",
  "The café near the station serves great coffee",
  "I'm being careful with my knee after the surgery",
  "Dinner plans: pasta, wine, and a movie about running dogs",
  "Their flight to Tokyo was delayed; they were tired",
  "Tom's birthday party is on Saturday at 7pm",
  "This is it: the theirs and the ours of things",
];

function rows(user: string, n: number): MemoryRecord[] {
  return Array.from({ length: n }, (_, i) =>
    memory(`${user}-${i}`, user, `${TEXTS[i % TEXTS.length]} #${i}`, i, {
      validTo: i % 5 === 4 ? 2 : null,
      tags: i % 3 === 0 ? { topic: "health" } : {},
      factType: i % 4 === 0 ? "preference" : "semantic",
      eventDate: i % 2 === 0 ? 100 + i : null,
    }),
  );
}

const ids = (hits: { row: MemoryRecord }[]) => hits.map((h) => h.row.id).sort();

describe("hot-row cache", () => {
  it("analyses text exactly as LanceDB's default full-text index does", async () => {
    const dir = await freshDir();
    const cold = await open(dir, 0).collection("t", MEMORIES);
    const hot = await open(dir).collection("t", MEMORIES);
    await cold.upsert(rows("u", 16));
    for (const q of ["running", "runs", "dog", "the", "theirs", "being", "cafe", "café", "knee surgery", "Tom", "7pm", "were tired", "walk"]) {
      const engine = await cold.forUser("u").match(q, where.all(), 100);
      const memory = await hot.forUser("u").match(q, where.all(), 100);
      expect(ids(memory), q).toEqual(ids(engine));
    }
    expect(ftsTerms("The Runners' dogs, being tired")).toEqual(["runner", "dog", "tire"]);
  });

  it("keeps its word statistics right as rows are rewritten in memory (scores agree with the engine)", async () => {
    const dir = await freshDir();
    const hot = await open(dir).collection("t", MEMORIES);
    const cold = await open(dir, 0).collection("t", MEMORIES);
    await hot.upsert(rows("r", 24));
    expect(await hot.forUser("r").count(where.all())).toBe(24); // held from here on: rewrites apply in memory
    // New texts for a scattered set of rows (first, middle, last slots), twice over.
    for (const round of [0, 1]) {
      await hot.upsert([0, 5, 11, 23, 17].map((i) => memory(`r-${i}`, "r", `${TEXTS[(i + round + 3) % TEXTS.length]} rewritten ${round}`, i)));
    }
    for (const q of ["running dogs", "rewritten", "coffee station", "Tokyo flight delayed", "birthday"]) {
      const [h, c] = [await hot.forUser("r").match(q, where.all(), 100), await cold.forUser("r").match(q, where.all(), 100)];
      expect(ids(h), q).toEqual(ids(c));
      const engine = new Map(c.map((x) => [x.row.id, x.score]));
      for (const x of h) expect(x.score, `${q} ${x.row.id}`).toBeCloseTo(engine.get(x.row.id)!, 4);
    }
  });

  it("answers nearest, match, find, get and count like the engine, filters included", async () => {
    const dir = await freshDir();
    const cold = await open(dir, 0).collection("t", MEMORIES);
    const hot = await open(dir).collection("t", MEMORIES);
    await cold.upsert([...rows("u1", 40), ...rows("u2", 10)]);
    const conditions: Condition[] = [
      where.eq("user", "u1"),
      where.and(where.eq("user", "u1"), where.isNull("valid_to")),
      where.and(where.eq("user", "u1"), where.hasAll("tag_pairs", ["topic=health"]), where.in("fact_type", ["preference"])),
      where.and(where.eq("user", "u1"), where.or(where.lte("event_date", 110), where.and(where.isNull("event_date"), where.lte("valid_from", 5)))),
      where.and(where.eq("user", "u1"), where.not(where.gt("event_date", 120))),
    ];
    const query = memory("q", "", "", 3).vector;
    const u1 = hot.forUser("u1"); // the end-user named at the port: answered from memory once held
    for (const c of conditions) {
      const [en, hn] = [await cold.nearest(query, c, 7), await u1.nearest(query, c, 7)];
      expect(hn.map((h) => h.row.id)).toEqual(en.map((h) => h.row.id));
      hn.forEach((h, i) => expect(h.score).toBeCloseTo(en[i].score, 5));
      expect(ids(await u1.match("running dogs", c, 100))).toEqual(ids(await cold.match("running dogs", c, 100)));
      expect((await u1.find(c)).map((r) => r.id).sort()).toEqual((await cold.find(c)).map((r) => r.id).sort());
      expect(await u1.count(c)).toBe(await cold.count(c));
    }
    // Scoring a few named rows only (the recall's similarity pass), with and without vectors.
    const named = where.and(where.eq("user", "u1"), where.isNull("valid_to"), where.in("id", ["u1-1", "u1-7", "u1-22", "u1-39", "u2-1", "nope"]));
    const [en, hn] = [await cold.nearest(query, named, 3), await u1.nearest(query, named, 3, { withoutVector: true })];
    expect(hn.map((h) => h.row.id)).toEqual(en.map((h) => h.row.id));
    hn.forEach((h, i) => expect(h.score).toBeCloseTo(en[i].score, 5));
    expect(hn.every((h) => h.row.vector.length === 0)).toBe(true);
    expect(ids(await u1.match("running dogs", conditions[0], 100, { withoutVector: true }))).toEqual(ids(await cold.match("running dogs", conditions[0], 100)));
    const got = await hot.get(["u1-3", "u2-1", "nope"]);
    expect(got.map((r) => r.id).sort()).toEqual(["u1-3", "u2-1"]);
    expect(Array.from(got.find((r) => r.id === "u1-3")!.vector)).toEqual(Array.from((await cold.get(["u1-3"]))[0].vector));
  });

  it("sees its own writes at once and hands out copies", async () => {
    const hot = await open(await freshDir()).collection("t", MEMORIES);
    expect(await hot.forUser("u").count(where.all())).toBe(0);
    await hot.upsert(rows("u", 5));
    expect((await hot.forUser("u").nearest(rows("u", 5)[2].vector, where.all(), 1))[0].score).toBeCloseTo(1, 5);
    expect(await hot.forUser("u").count(where.all())).toBe(5);
    await hot.upsert([memory("u-new", "u", "penguins on the ice", 99)]);
    await hot.insertNew([memory("u-new", "u", "must not replace", 99), memory("u-0", "u", "nor this", 1)]);
    expect((await hot.forUser("u").match("penguins", where.all(), 5)).map((h) => h.row.id)).toEqual(["u-new"]);
    expect(await hot.forUser("u").match("replace", where.all(), 5)).toEqual([]);
    await hot.patch(["u-1"], (r) => ({ ...r, accessCount: 9 }));
    expect((await hot.forUser("u").find(where.and(where.eq("access_count", 9)))).map((r) => r.id)).toEqual(["u-1"]);
    expect(await hot.forUser("u").delete(where.and(where.eq("id", "u-2")))).toBe(1);
    expect(await hot.forUser("u").count(where.all())).toBe(5);
    const [first] = await hot.forUser("u").find(where.and(where.eq("id", "u-3")));
    first.tags.x = "mutated";
    first.vector[0] = 42;
    const [again] = await hot.get(["u-3"]);
    expect(again.tags.x).toBeUndefined();
    expect(again.vector[0]).not.toBe(42);
  });

  it("stays correct when another process writes, deletes or compacts the table", async () => {
    const dir = await freshDir();
    const readerStore = open(dir);
    const reader = await readerStore.collection("t", MEMORIES);
    const writer = await open(dir, 0).collection("t", MEMORIES);
    await writer.upsert(rows("u", 8));
    const c = where.all();
    const mine = reader.forUser("u");
    expect(await mine.count(c)).toBe(8);
    await writer.upsert([memory("u-x", "u", "zebras crossing", 50)]);
    expect((await mine.match("zebras", c, 5)).map((h) => h.row.id)).toEqual(["u-x"]);
    await writer.patch(["u-x"], (r) => ({ ...r, text: "giraffes now" }));
    expect((await mine.match("giraffes", c, 5)).map((h) => h.row.id)).toEqual(["u-x"]);
    await writer.delete(where.eq("id", "u-x"));
    expect(await mine.count(c)).toBe(8);
    const compacted = await writer.engine.lanceTable.optimize();
    expect(compacted.compaction.fragmentsAdded).toBeLessThanOrEqual(compacted.compaction.fragmentsRemoved);
    expect((await mine.nearest(memory("q", "", "", 2).vector, c, 3)).map((h) => h.row.id)[0]).toBe("u-2");
    expect(await mine.count(c)).toBe(8);
    expect(readerStore.cacheCounters.invalidations).toBeGreaterThanOrEqual(4);
  });

  it("appends new ids and merges known ones when the end-user is held (one row per id, in memory and on disk)", async () => {
    const dir = await freshDir();
    const hot = await open(dir).collection("t", MEMORIES);
    await hot.upsert(rows("w", 4));
    expect(await hot.forUser("w").count(where.all())).toBe(4); // loads the user
    const versions: number[] = [await hot.engine.lanceTable.version()];
    await hot.upsert([memory("w-1", "w", "rewritten text", 1), memory("w-new", "w", "brand new", 9)]);
    versions.push(await hot.engine.lanceTable.version());
    await hot.insertNew([memory("w-2", "w", "must not replace", 2), memory("w-new2", "w", "another new", 10)]);
    expect(versions[1] - versions[0]).toBe(2); // one append, one merge
    expect(await hot.engine.lanceTable.countRows("id = 'w-1'")).toBe(1);
    expect(await hot.engine.lanceTable.countRows("`user` = 'w'")).toBe(6);
    expect(await hot.forUser("w").count(where.all())).toBe(6);
    expect((await hot.get(["w-1"]))[0].text).toBe("rewritten text");
    expect((await hot.get(["w-2"]))[0].text).not.toBe("must not replace");
    const engine = await open(dir, 0).collection("t", MEMORIES); // no cache: the engine's view
    expect((await engine.get(["w-1"]))[0].text).toBe("rewritten text");
    expect((await engine.forUser("w").find(where.all())).length).toBe(6);
  });

  it("keeps its held users through this process's maintenance, and learns of another writer from its first version", async () => {
    const dir = await freshDir();
    const store = open(dir);
    const hot = await store.collection("t", MEMORIES);
    for (let i = 0; i < 6; i++) await hot.upsert([memory(`m-${i}`, "m", `${TEXTS[i]} #${i}`, i)]);
    expect(await hot.forUser("m").count(where.all())).toBe(6);
    const loads = store.cacheCounters.loads;
    const result = await hot.engine.maintain((t) => t.optimize());
    expect(result.compaction.fragmentsRemoved).toBeGreaterThan(0);
    expect(await hot.forUser("m").count(where.all())).toBe(6);
    expect(store.cacheCounters.loads).toBe(loads); // no reload: compaction changed no row
    expect(store.cacheCounters.invalidations).toBe(0);
    await hot.upsert([memory("m-new", "m", "after maintenance", 7)]); // appended: the partition knows every id
    const other = await open(dir, 0).collection("t", MEMORIES);
    await other.upsert([memory("m-0", "m", "changed by another process", 0)]);
    expect((await hot.forUser("m").find(where.and(where.eq("id", "m-0"))))[0].text).toBe("changed by another process");
    expect(store.cacheCounters.invalidations).toBe(1);
    await hot.upsert([memory("m-0", "m", "merged now", 0)]); // another writer is known: merge on id
    expect(await other.count(where.eq("id", "m-0"))).toBe(1);
    expect(await hot.forUser("m").count(where.all())).toBe(7);
  });

  it("with the default admission, loads nobody read once, yet learns which users exist so a new one starts empty", async () => {
    const dir = await freshDir();
    const earlier = open(dir);
    await (await earlier.collection("t", MEMORIES)).upsert(rows("old", 3));
    await earlier.close();
    const store = new LanceStore({ uri: dir, dimension: DIM, soleWriterCheckSeconds: 0 });
    stores.push(store);
    const hot = await store.collection("t", MEMORIES);
    expect(await hot.forUser("old").count(where.all())).toBe(3); // the engine answers
    await store.warmed();
    expect([store.cacheCounters.coldReads, store.cacheCounters.loads, store.cacheCounters.warms]).toEqual([1, 0, 0]); // read once: not loaded
    // The user directory was read after that answer: a new user's first read (a write looking for
    // the rows it replaces) starts them empty here, without going to the engine.
    expect(await hot.forUser("new").get(["new-0"])).toEqual([]);
    expect([store.cacheCounters.coldReads, store.cacheCounters.fresh]).toEqual([1, 1]);
    await hot.upsert(rows("new", 4));
    expect(await hot.forUser("new").count(where.all())).toBe(4);
    expect(store.cacheCounters.coldReads).toBe(1);
  });

  it("warmUp before any request learns which users exist, and reads nothing into the cache nor changes a row", async () => {
    const dir = await freshDir();
    const earlier = new LanceStore({ uri: dir, dimension: DIM, soleWriterCheckSeconds: 0, tableShards: 2 });
    await (await earlier.memories("t")).upsert([...rows("old", 5), ...rows("other", 3)]);
    await (await earlier.episodes("t")).count(where.all()); // opens, creates nothing
    await earlier.close();
    const store = new LanceStore({ uri: dir, dimension: DIM, soleWriterCheckSeconds: 0, tableShards: 2 });
    stores.push(store);
    expect(await store.warmUp(0)).toMatchObject({ tables: 0 }); // no time given: nothing opened
    const warm = await store.warmUp(60_000);
    expect(warm.tables).toBeGreaterThanOrEqual(2); // both shard tables (one user in each, or both in one and an empty one)
    const memories = await store.memories("t");
    expect([store.cacheCounters.coldReads, store.cacheCounters.loads]).toEqual([0, 0]);
    // A new user's first read starts empty here without going to the engine; stored ones are read as before.
    expect(await memories.forUser("new").count(where.all())).toBe(0);
    expect(store.cacheCounters.coldReads).toBe(0);
    expect(await memories.forUser("old").count(where.all())).toBe(5);
    expect(await memories.forUser("other").count(where.all())).toBe(3);
    expect(store.cacheCounters.coldReads).toBe(2);
    expect((await memories.forUser("old").match("marathon", where.all(), 10)).map((h) => h.row.id)).toEqual(["old-0"]);
  });

  it("pauses a background load between its slices while a request is in flight, and finishes it after", async () => {
    const dir = await freshDir();
    const earlier = open(dir);
    await (await earlier.collection("t", MEMORIES)).upsert(rows("big", 450)); // five slices of 100
    await earlier.close();
    const store = open(dir);
    const hot = await store.collection("t", MEMORIES);
    const engine = await store.engine("t", MEMORIES);
    // The engine's read of the user's rows, observed: the slices start right after it returns.
    const read = engine.load.bind(engine);
    let loaded!: () => void;
    const engineRead = new Promise<void>((r) => (loaded = r));
    engine.load = async (...args) => {
      const out = await read(...args);
      loaded();
      return out;
    };
    expect(await hot.forUser("big").count(where.all())).toBe(450); // cold: the engine answers, a load is asked for
    await engineRead;
    let release!: () => void;
    const request = store.serving(() => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 150));
    expect(store.cacheCounters.loads).toBe(0); // the first slice at most: the rest wait for the request
    release();
    await request;
    await store.warmed();
    expect(store.cacheCounters.loads).toBe(1);
    expect(await hot.forUser("big").count(where.all())).toBe(450);
    expect(store.cacheCounters.coldReads).toBe(1); // held now
  });

  it("starts an end-user the table never held empty, without a scan, and still finds every stored one", async () => {
    const dir = await freshDir();
    const earlier = open(dir);
    await (await earlier.collection("t", MEMORIES)).upsert(rows("old", 3));
    await earlier.close();
    const store = open(dir);
    const hot = await store.collection("t", MEMORIES);
    expect(await hot.forUser("old").count(where.all())).toBe(3); // held on disk before this store opened: the engine answers
    expect([store.cacheCounters.coldReads, store.cacheCounters.loads]).toEqual([1, 0]);
    await store.warmed(); // …and the rows are loaded after the answer
    const loads = store.cacheCounters.loads;
    expect(loads).toBe(1);
    await hot.upsert(rows("new", 4)); // a new end-user's first write
    expect(await hot.forUser("new").count(where.all())).toBe(4);
    expect(await hot.forUser("nobody").count(where.all())).toBe(0);
    expect([store.cacheCounters.fresh, store.cacheCounters.loads]).toEqual([2, loads]);
    expect(await open(dir, 0).collection("t", MEMORIES).then((engine) => engine.forUser("new").count(where.all()))).toBe(4);
    // Another process's rows for a user this one has not seen: its version is noticed, the user scanned.
    await (await open(dir, 0).collection("t", MEMORIES)).upsert(rows("late", 2));
    expect(await hot.forUser("late").count(where.all())).toBe(2);
    expect(store.cacheCounters.fresh).toBe(2);
  });

  it("answers from memory only for an end-user named at the port, never one recovered from a condition", async () => {
    const store = open(await freshDir());
    const hot = await store.collection("t", MEMORIES);
    await hot.upsert(rows("p", 5));
    expect(await hot.forUser("p").count(where.all())).toBe(5); // held from here on
    const hits = store.cacheCounters.hits;
    // The same rows asked for by a condition on `user`: the engine answers, the cache is not asked.
    expect(await hot.count(where.eq("user", "p"))).toBe(5);
    expect((await hot.find(where.eq("user", "p"))).length).toBe(5);
    expect(store.cacheCounters.hits).toBe(hits);
    expect(await hot.forUser("p").count(where.isNull("valid_to"))).toBe(4);
    expect(store.cacheCounters.hits).toBe(hits + 1);
    // A view never reads another end-user's rows, whatever its condition says.
    await hot.upsert(rows("q", 2));
    expect(await hot.forUser("p").count(where.eq("user", "q"))).toBe(0);
    expect(await hot.forUser("p").get(["q-0", "p-0"]).then((r) => r.map((m) => m.id))).toEqual(["p-0"]);
    expect(hot.forUser("p").inMemory()).toBe(true);
    expect(hot.forUser("nobody-yet").inMemory()).toBe(false);
  });

  it("once its budget is full, does not keep a bulk import for an end-user nobody has read since holding them", async () => {
    const roomy = open(await freshDir());
    const hot1 = await roomy.collection("t", MEMORIES);
    await hot1.upsert(rows("bulk", 300)); // with room, a new end-user's bulk import is held
    expect(hot1.forUser("bulk").inMemory()).toBe(true);

    const store = open(await freshDir(), 400_000); // room for ~400 rows
    const hot = await store.collection("t", MEMORIES);
    await hot.upsert(rows("small", 3)); // a new end-user's first write: held (empty) and kept current
    expect(hot.forUser("small").inMemory()).toBe(true);
    await hot.upsert(rows("filler", 260)); // fits: held
    expect(hot.forUser("filler").inMemory()).toBe(true);
    await hot.upsert(rows("bulk", 300)); // a new end-user imported in one bulk batch, never read, does not fit
    expect(hot.forUser("bulk").inMemory()).toBe(false);
    expect(hot.forUser("filler").inMemory()).toBe(true); // nobody evicted for it
    const fresh = store.cacheCounters.fresh;
    expect(await hot.forUser("bulk").count(where.all())).toBe(300); // the engine answers
    expect(store.cacheCounters.fresh).toBe(fresh);
  });

  it("keeps within its byte budget by evicting whole end-users", async () => {
    const store = open(await freshDir(), 15_000);
    const hot = await store.collection("t", MEMORIES);
    await hot.upsert([...rows("a", 6), ...rows("b", 6), ...rows("c", 6)]);
    for (const u of ["a", "b", "c", "a"]) expect(await hot.forUser(u).count(where.all())).toBe(6);
    expect(store.cacheCounters.bytes).toBeLessThanOrEqual(15_000);
    expect(store.cacheCounters.evictions).toBeGreaterThan(0);
  });
});
