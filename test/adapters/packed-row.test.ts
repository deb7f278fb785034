import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, describe, expect, it } from "vitest";
import type { LanceCollection } from "../../src/adapters/lancedb/lance-collection.js";
import { LanceStore, MEMORIES } from "../../src/adapters/lancedb/lance-store.js";
import { packedColumns, packRow, unpackRow } from "../../src/adapters/lancedb/packed-row.js";
import { where } from "../../src/core/condition.js";
import type { MemoryRecord } from "../../src/core/records.js";

const dirs: string[] = [];
const stores: LanceStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const DIMENSION = 8;

function memory(id: string, user: string, text: string, axis: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  const vector = new Float32Array(DIMENSION);
  vector[axis % DIMENSION] = 1;
  return {
    id, namespace: "ns", agent: "coach", session: "s1", user, text, factType: "semantic", category: "work", importance: 7,
    entities: ["Ines", "Lisbon"], tags: { plan: "gold", "a=b": "c,d" }, pinned: true, contentHash: `h-${id}`, vector, sourceIds: [`e-${id}`],
    parentId: "", createdAt: 1_700_000_000_123, validFrom: 1_700_000_000_456, validTo: null, supersededBy: "", eventDate: 1_690_000_000_000,
    lastAccessedAt: 1_700_000_000_789, accessCount: 3, channel: "chat", emotions: ["joy", "trust"], intent: "inform", embedModel: "t", role: "user",
    name: "Ines \"the boss\" Ñúñez", traceNumber: axis + 1, ...extra,
  };
}

/** A record as reads give it back: the vector compared apart, no `unkeyedTurn`. */
const comparable = (m: MemoryRecord) => ({ ...m, vector: Array.from(m.vector) });

async function open(): Promise<{ dir: string; engine: LanceCollection<MemoryRecord> }> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-packed-"));
  dirs.push(dir);
  const store = new LanceStore({ uri: dir, dimension: DIMENSION, hotRowsBytes: 0, tableShards: 1 });
  stores.push(store);
  return { dir, engine: (await store.collection("t1", MEMORIES)) as unknown as LanceCollection<MemoryRecord> };
}

describe("packRow / unpackRow", () => {
  it("packs every column but the direct, vector and packed ones, in order, and reads a column added later as null", () => {
    const before = packedColumns(["id", "a", "text", "v", "b", "p"], "p", ["id", "text"], "v");
    expect(before.holds).toEqual(["a", "b"]);
    const json = packRow({ id: "x", a: [1, "two"], text: "t", v: [0.5], b: null, p: "old" }, before);
    expect(JSON.parse(json)).toEqual([[1, "two"], null]);
    const after = packedColumns(["id", "a", "text", "v", "b", "p", "c"], "p", ["id", "text"], "v");
    expect(unpackRow(json, after, { id: "x" })).toEqual({ id: "x", a: [1, "two"], b: null, c: null });
  });
});

describe("memory rows with a packed column", () => {
  const rows = [
    memory("a", "u1", "moved to Lisbon for the new job", 0),
    memory("b", "u1", "the quick brown fox", 1, { validTo: 1_710_000_000_000, supersededBy: "a", eventDate: null, tags: {}, entities: [], emotions: [], traceNumber: 0 }),
    memory("c", "u2", "lisbon again, but another user", 2, { pinned: false, importance: 1, traceNumber: null }),
  ];

  it("stores every other column once more as JSON, and reads give back whole records by every route", async () => {
    const { dir, engine } = await open();
    await engine.upsert(rows);
    const table = await (await lancedb.connect(dir)).openTable("memories__t1");
    const stored = (await table.query().select(["id", "fields", "importance", "name"]).toArray()) as { id: string; fields: string; importance: number; name: string }[];
    const a = stored.find((r) => r.id === "a")!;
    const holds = MEMORIES.codec.packed!.holds;
    expect(holds).not.toContain("id");
    expect(holds).not.toContain("text");
    expect(holds).not.toContain("vector");
    const packed = Object.fromEntries((JSON.parse(a.fields) as unknown[]).map((v, i) => [holds[i], v]));
    expect(packed).toMatchObject({ importance: 7, name: rows[0].name, entities: ["Ines", "Lisbon"], valid_to: null, trace_number: 1, user: "u1" });

    const byId = new Map(rows.map((r) => [r.id, comparable(r)]));
    for (const found of await engine.find(where.all())) expect(comparable(found)).toEqual(byId.get(found.id));
    expect((await engine.forUser("u1").get(["a", "c"])).map(comparable)).toEqual([byId.get("a")]);
    const near = await engine.forUser("u1").nearest(rows[0].vector, where.isNull("valid_to"), 5);
    expect(near.map((s) => comparable(s.row))).toEqual([byId.get("a")]);
    expect(near[0].score).toBeCloseTo(1, 5);
    const withoutVector = await engine.forUser("u1").nearest(rows[0].vector, where.all(), 5, { withoutVector: true });
    expect(withoutVector.map((s) => s.row.id)).toEqual(["a", "b"]);
    expect(withoutVector[0].row.importance).toBe(7);
    const words = await engine.match("lisbon", where.all(), 5);
    expect(words.map((s) => s.row.id).sort()).toEqual(["a", "c"]);
    for (const s of words) expect(comparable(s.row)).toEqual(byId.get(s.row.id));
  });

  it("reads rows stored without it (an older release), or with a copy that does not parse, whole, by id, on every route", async () => {
    const { engine } = await open();
    await engine.upsert(rows);
    // As an older release wrote them: the packed column empty.
    await engine.exclusive((table) => table.update({ where: "id IN ('a', 'c')", valuesSql: { fields: "NULL" } }));
    // And one whose copy does not parse (written by something else): read whole as well.
    await engine.exclusive((table) => table.update({ where: "id = 'b'", valuesSql: { fields: "'not json'" } }));
    const byId = new Map(rows.map((r) => [r.id, comparable(r)]));
    const found = await engine.find(where.all());
    expect(found.map((r) => r.id).sort()).toEqual(["a", "b", "c"]);
    for (const r of found) expect(comparable(r)).toEqual(byId.get(r.id));
    const near = await engine.forUser("u1").nearest(rows[0].vector, where.all(), 5);
    expect(near.map((s) => comparable(s.row))).toEqual([byId.get("a"), byId.get("b")]);
    const noVector = await engine.forUser("u1").nearest(rows[0].vector, where.all(), 5, { withoutVector: true });
    expect(noVector.map((s) => ({ id: s.row.id, name: s.row.name }))).toEqual([
      { id: "a", name: rows[0].name },
      { id: "b", name: rows[1].name },
    ]);
    const words = await engine.forUser("u2").match("lisbon", where.all(), 5);
    expect(words.map((s) => comparable(s.row))).toEqual([byId.get("c")]);
  });
});
