import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LanceStore } from "../../src/adapters/lancedb/lance-store.js";
import { decodeTenant, encodeTenant } from "../../src/adapters/lancedb/table-names.js";
import { runCollectionContract } from "./collection-contract.js";

const dirs: string[] = [];
const stores: LanceStore[] = [];
async function freshStore(dimension = 8, hotRowsBytes?: number): Promise<LanceStore> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-store-"));
  dirs.push(dir);
  const store = new LanceStore({ uri: dir, dimension, hotRowsBytes });
  stores.push(store);
  return store;
}
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// One suite, both layers: the engine collection alone (cache off) and the row cache layer over it.
runCollectionContract("LanceDB engine (row cache off)", async () => ({ collection: await (await freshStore(8, 0)).episodes("t1"), dimension: 8 }), { layered: false });
runCollectionContract("row cache layer over LanceDB", async () => ({ collection: await (await freshStore(8)).episodes("t1"), dimension: 8 }), { layered: true });

describe("LanceStore", () => {
  it("keeps tenants in separate physical tables with reversible names", async () => {
    const store = await freshStore();
    await (await store.memories("acme:eu@x_y")).count({ op: "true" });
    await (await store.memories("globex")).count({ op: "true" });
    expect((await store.tenants()).sort()).toEqual(["acme:eu@x_y", "globex"]);
    expect(decodeTenant(encodeTenant("a_5f__b:@."))).toBe("a_5f__b:@.");
    expect(encodeTenant("a__b")).not.toContain("__");
  });

  it("refuses to open tables made with another embedding dimension", async () => {
    const store = await freshStore(8);
    await (await store.episodes("t")).count({ op: "true" });
    await store.close();
    const other = new LanceStore({ uri: dirs[dirs.length - 1], dimension: 16 });
    stores.push(other);
    await expect(other.episodes("t")).rejects.toThrow(/8-d vectors but the embedder makes 16-d/);
  });
});
