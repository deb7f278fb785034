import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LanceStore, MEMORIES } from "../../src/adapters/lancedb/lance-store.js";
import { decodeTenant, encodeTenant } from "../../src/adapters/lancedb/table-names.js";
import { episode, runCollectionContract } from "./collection-contract.js";

const dirs: string[] = [];
const stores: LanceStore[] = [];
async function freshStore(dimension = 8, hotRowsBytes?: number, tableShards?: number): Promise<LanceStore> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-store-"));
  dirs.push(dir);
  const store = new LanceStore({ uri: dir, dimension, hotRowsBytes, tableShards });
  stores.push(store);
  return store;
}
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// One suite, both layers: the engine collection alone (cache off) and the row cache layer over it,
// each as one table and as a tenant's shard tables (`ShardedCollection`, 8 shards by end-user).
runCollectionContract("LanceDB engine (row cache off)", async () => ({ collection: await (await freshStore(8, 0, 1)).episodes("t1"), dimension: 8 }), { layered: false });
runCollectionContract("row cache layer over LanceDB", async () => ({ collection: await (await freshStore(8, undefined, 1)).episodes("t1"), dimension: 8 }), { layered: true });
runCollectionContract("8 shard tables, row cache off", async () => ({ collection: await (await freshStore(8, 0, 8)).episodes("t1"), dimension: 8 }), { layered: false });
runCollectionContract("8 shard tables under the row cache layer", async () => ({ collection: await (await freshStore(8, undefined, 8)).episodes("t1"), dimension: 8 }), { layered: true });

describe("LanceStore", () => {
  it("keeps tenants in separate physical tables with reversible names", async () => {
    const store = await freshStore();
    // Shard tables are created by the first write that lands in them.
    await (await store.memories("acme:eu@x_y")).count({ op: "true" });
    expect(await store.tenants()).toEqual([]);
    for (const tenant of ["acme:eu@x_y", "globex"]) await (await store.episodes(tenant)).upsert([episode("e", "u", "hello", 0, 8)]);
    await (await store.collection("globex", MEMORIES)).count({ op: "true" }); // the unsharded layout counts too
    await (await store.memories("acme:eu@x_y")).upsert([{ ...memoryRow(), user: "u" }]);
    expect((await store.tenants()).sort()).toEqual(["acme:eu@x_y", "globex"]);
    expect(decodeTenant(encodeTenant("a_5f__b:@."))).toBe("a_5f__b:@.");
    expect(encodeTenant("a__b")).not.toContain("__");
  });

  it("refuses to open tables made with another embedding dimension", async () => {
    const store = await freshStore(8);
    await (await store.episodes("t")).upsert([episode("e", "u", "hello", 0, 8)]);
    await store.close();
    const other = new LanceStore({ uri: dirs[dirs.length - 1], dimension: 16 });
    stores.push(other);
    // A shard table is opened (and checked) on the first read or write that reaches it.
    await expect((await other.episodes("t")).forUser("u").count({ op: "true" })).rejects.toThrow(/8-d vectors but the embedder makes 16-d/);
  });
});

/** A memory row of 8-d (the fields every test leaves alone). */
function memoryRow() {
  return {
    id: "m", namespace: "", agent: "", session: "", user: "", text: "hello", factType: "semantic" as const, category: "", importance: 5,
    entities: [], tags: {}, pinned: false, contentHash: "", vector: new Float32Array(8).fill(0.5), sourceIds: [], parentId: "", createdAt: 1,
    validFrom: 1, validTo: null, supersededBy: "", eventDate: null, lastAccessedAt: 1, accessCount: 0, channel: "", emotions: [], intent: "",
    embedModel: "t", role: "", name: "", traceNumber: 0,
  };
}
