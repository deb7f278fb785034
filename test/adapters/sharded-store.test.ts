import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, describe, expect, it } from "vitest";
import { LanceStore } from "../../src/adapters/lancedb/lance-store.js";
import { fnv1a, shardOf } from "../../src/adapters/lancedb/sharded-collection.js";
import { encodeTenant, parseTableName, tableName } from "../../src/adapters/lancedb/table-names.js";
import { where } from "../../src/core/condition.js";
import type { MemoryRecord } from "../../src/core/records.js";

// A tenant's `memories` and `episodes` split into shard tables by end-user (issue 22/26: a
// compaction pass rewrites one shard, not the tenant). Real LanceDB in temp directories.

const DIM = 8;
const dirs: string[] = [];
const stores: LanceStore[] = [];
const connections: lancedb.Connection[] = [];

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-shards-"));
  dirs.push(dir);
  return dir;
}
function open(dir: string, tableShards?: number, hotRowsBytes?: number): LanceStore {
  const store = new LanceStore({ uri: dir, dimension: DIM, tableShards, hotRowsBytes });
  stores.push(store);
  return store;
}
async function raw(dir: string): Promise<lancedb.Connection> {
  const db = await lancedb.connect(dir);
  connections.push(db);
  return db;
}
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const c of connections) c.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function memory(id: string, user: string, text: string, axis = 0): MemoryRecord {
  const vector = new Float32Array(DIM);
  vector[axis % DIM] = 1;
  return {
    id, namespace: "", agent: "", session: "", user, text, factType: "semantic", category: "", importance: 5, entities: [], tags: {},
    pinned: false, contentHash: "", vector, sourceIds: [], parentId: "", createdAt: 1, validFrom: 1, validTo: null, supersededBy: "",
    eventDate: null, lastAccessedAt: 1, accessCount: 0, channel: "", emotions: [], intent: "", embedModel: "t", role: "", name: "", traceNumber: 0,
  };
}

/** The tenant's `memories` tables on disk (by name) with their row count per user. */
async function memoryTables(dir: string, tenant: string): Promise<Map<string, Map<string, number>>> {
  const db = await raw(dir);
  const out = new Map<string, Map<string, number>>();
  for (const name of (await db.tableNames()).sort()) {
    const parsed = parseTableName(name);
    if (parsed?.kind !== "memories" || parsed.tenant !== tenant) continue;
    const rows = (await (await db.openTable(name)).query().select(["user"]).toArray()) as { user: string }[];
    const byUser = new Map<string, number>();
    for (const r of rows) byUser.set(r.user, (byUser.get(r.user) ?? 0) + 1);
    out.set(name, byUser);
  }
  return out;
}

const USERS = Array.from({ length: 24 }, (_, i) => `person-${i}`);

describe("shard tables by end-user", () => {
  it("routes by a stable hash: FNV-1a of the end-user id mod the count", () => {
    expect(fnv1a("")).toBe(0x811c9dc5);
    expect(fnv1a("a")).toBe(0xe40c292c); // the published FNV-1a 32-bit test vector
    expect(shardOf("anyone", 1)).toBe(0);
    expect(new Set(USERS.map((u) => shardOf(u, 8))).size).toBeGreaterThan(4);
    expect(tableName("memories", "a:b", { index: 3, count: 8 })).toBe(`memories.s03of08__${encodeTenant("a:b")}`);
    expect(parseTableName(tableName("episodes", "a:b", { index: 3, count: 8 }))).toEqual({ kind: "episodes", tenant: "a:b", shard: { index: 3, count: 8 } });
    expect(parseTableName("memories__x")).toEqual({ kind: "memories", tenant: "x" });
  });

  it("a tenant with one end-user has one table per kind; end-users land in their own shard, and only there", async () => {
    const dir = await freshDir();
    const store = open(dir, 8);
    const memories = await store.memories("t");
    await memories.upsert([memory("solo-1", "solo", "first"), memory("solo-2", "solo", "second")]);
    const only = await memoryTables(dir, "t");
    expect([...only.keys()]).toEqual([tableName("memories", "t", { index: shardOf("solo", 8), count: 8 })]);

    await memories.upsert(USERS.flatMap((u, i) => [memory(`${u}-1`, u, `note one of ${u}`, i), memory(`${u}-2`, u, `note two of ${u}`, i + 1)]));
    const tables = await memoryTables(dir, "t");
    expect(tables.size).toBe(new Set([...USERS, "solo"].map((u) => shardOf(u, 8))).size);
    for (const [name, byUser] of tables) {
      const index = parseTableName(name)!.shard!.index;
      for (const [user, n] of byUser) {
        expect(shardOf(user, 8), `${user} in ${name}`).toBe(index);
        expect(n).toBe(2);
      }
    }
    // Reads of one end-user go to their shard; tenant-wide reads see every shard.
    expect((await memories.forUser("person-5").find(where.all())).map((r) => r.id).sort()).toEqual(["person-5-1", "person-5-2"]);
    expect(await memories.count(where.all())).toBe(USERS.length * 2 + 2);
    expect(await memories.forUser("nobody-here").count(where.all())).toBe(0);
    // Each shard is its own maintained table, and the write totals add up per kind.
    const maintained = [...(await store.maintainedTables()).keys()].filter((n) => n.startsWith("memories"));
    expect(maintained.sort()).toEqual([...tables.keys()].sort());
    expect((await store.writeTotals()).get("memories")?.tasks).toBeGreaterThanOrEqual(tables.size);
    expect(await store.tenants()).toEqual(["t"]);
    expect(await store.bytesOnDisk("t")).toBeGreaterThan(0);
  });

  it("patch finds rows in any shard; rows inserted with a change land in the same commit of their shard", async () => {
    const dir = await freshDir();
    const store = open(dir, 8);
    const memories = await store.memories("t");
    const [a, b] = USERS.filter((u, _, all) => shardOf(u, 8) !== shardOf(all[0], 8) || u === all[0]);
    await memories.upsert([memory("a-old", a, "old fact of a"), memory("b-old", b, "old fact of b")]);
    const changed = await memories.patch(
      ["a-old", "b-old", "missing"],
      (row) => ({ ...row, validTo: 5, supersededBy: `${row.user}-new` }),
      [memory(`${a}-new`, a, "new fact of a")],
    );
    expect(changed.map((r) => r.id).sort()).toEqual(["a-old", "b-old"]);
    expect((await memories.get(["a-old", "b-old"])).map((r) => r.validTo)).toEqual([5, 5]);
    expect((await memories.forUser(a).get([`${a}-new`])).map((r) => r.text)).toEqual(["new fact of a"]);
    expect(await memories.patch([], () => undefined)).toEqual([]);
  });

  it("erasure removes an end-user's rows from their shard and rewrites no other shard", async () => {
    const dir = await freshDir();
    const store = open(dir, 8);
    const memories = await store.memories("t");
    await memories.upsert(USERS.flatMap((u, i) => [memory(`${u}-1`, u, `note one of ${u}`, i), memory(`${u}-2`, u, `note two of ${u}`, i)]));
    const victim = USERS[3];
    const db = await raw(dir);
    const versions = async () => new Map(await Promise.all([...(await memoryTables(dir, "t")).keys()].map(async (n) => [n, await (await db.openTable(n)).version()] as const)));
    const before = await versions();
    const personal = (await store.personalTables("t")).filter((p) => p.kind === "memories");
    expect(personal.length).toBe(1); // the shards are one personal table of the kind
    expect((await personal[0].rowsOf(victim)).map((r) => r.id)).toEqual([`${victim}-1`, `${victim}-2`]);
    expect(await personal[0].erase(victim)).toBe(2);
    expect(await personal[0].rowsOf(victim)).toEqual([]);
    const after = await versions();
    const home = tableName("memories", "t", { index: shardOf(victim, 8), count: 8 });
    for (const [name, version] of after) {
      if (name === home) expect(version).toBeGreaterThan(before.get(name)!);
      else expect(version, name).toBe(before.get(name));
    }
    const tables = await memoryTables(dir, "t");
    expect(tables.get(home)?.get(victim)).toBeUndefined();
    for (const u of USERS.filter((x) => x !== victim)) expect(await memories.forUser(u).count(where.all())).toBe(2);
    expect(await personal[0].erase("never-seen")).toBe(0);
  });

  it("a tenant whose unsharded table exists keeps using it; new tenants in the same directory are sharded", async () => {
    const dir = await freshDir();
    const legacy = open(dir, 1);
    await (await legacy.memories("old")).upsert([memory("o-1", "alice", "from before shards"), memory("o-2", "bob", "also before")]);
    await legacy.close();
    const store = open(dir, 8);
    const memories = await store.memories("old");
    await memories.upsert([memory("o-3", "carol", "written after the upgrade")]);
    expect([...(await memoryTables(dir, "old")).keys()]).toEqual(["memories__old"]);
    expect((await memories.find(where.all())).map((r) => r.id).sort()).toEqual(["o-1", "o-2", "o-3"]);
    expect((await memories.forUser("alice").find(where.all())).map((r) => r.id)).toEqual(["o-1"]);
    await (await store.memories("new")).upsert([memory("n-1", "alice", "fresh tenant")]);
    expect([...(await memoryTables(dir, "new")).keys()]).toEqual([tableName("memories", "new", { index: shardOf("alice", 8), count: 8 })]);
    expect((await store.tenants()).sort()).toEqual(["new", "old"]);
  });

  it("a tenant keeps the shard count it was created with when the setting changes", async () => {
    const dir = await freshDir();
    const first = open(dir, 8);
    await (await first.memories("t")).upsert(USERS.map((u) => memory(`${u}-1`, u, `note of ${u}`)));
    await first.close();
    const second = open(dir, 3);
    const memories = await second.memories("t");
    for (const u of USERS) expect((await memories.forUser(u).get([`${u}-1`])).length, u).toBe(1);
    await memories.upsert([memory("late", "late-user", "after the change")]);
    expect([...(await memoryTables(dir, "t")).keys()].every((n) => parseTableName(n)?.shard?.count === 8)).toBe(true);
  });

  it("nothing crosses tenants: the same end-user id in two tenants", async () => {
    const dir = await freshDir();
    const store = open(dir, 8);
    const [a, b] = [await store.memories("acme"), await store.memories("globex")];
    await a.upsert([memory("a-1", "sam", "acme secret")]);
    await b.upsert([memory("b-1", "sam", "globex secret")]);
    expect((await a.forUser("sam").find(where.all())).map((r) => r.id)).toEqual(["a-1"]);
    expect((await a.find(where.all())).map((r) => r.id)).toEqual(["a-1"]);
    expect((await a.get(["b-1"])).length).toBe(0);
    expect((await a.match("secret", where.all(), 10)).map((s) => s.row.id)).toEqual(["a-1"]);
    const erase = (await store.personalTables("acme")).find((p) => p.kind === "memories")!;
    expect(await erase.erase("sam")).toBe(1);
    expect((await b.forUser("sam").find(where.all())).map((r) => r.id)).toEqual(["b-1"]);
  });

  it("finds a shard table another process created after this one looked", async () => {
    const dir = await freshDir();
    const reader = open(dir, 8, 0);
    const writer = open(dir, 8, 0);
    const mine = (await reader.memories("t")).forUser("late");
    expect(await mine.count(where.all())).toBe(0);
    await (await writer.memories("t")).upsert([memory("l-1", "late", "written elsewhere")]);
    await new Promise((r) => setTimeout(r, 1_100)); // the table listing is at most a second old
    expect(await mine.count(where.all())).toBe(1);
    expect(await (await reader.memories("t")).count(where.all())).toBe(1);
  });
});
