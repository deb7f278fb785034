import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { purgeRows } from "../../src/adapters/lancedb/purge.js";
import { where } from "../../src/core/condition.js";
import { filesContaining } from "../support/byte-scan.js";

const SECRET = "wqzvmarker";
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-purge-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** 300 rows in one compacted fragment; rows 7, 107 and 207 (1%) belong to the victim. */
async function sharedTable(): Promise<lancedb.Table> {
  const db = await lancedb.connect(dir);
  const rows = Array.from({ length: 300 }, (_, i) => ({
    id: `r${i}`,
    user: i % 100 === 7 ? "victim" : `u${i % 10}`,
    text: i % 100 === 7 ? `code ${SECRET}${i}` : `ordinary note ${i} about the weather`,
    vector: Array.from({ length: 16 }, (_, j) => Math.sin(i * 7 + j)),
  }));
  const table = await db.createTable("t", rows.slice(0, 100));
  await table.add(rows.slice(100, 200));
  await table.add(rows.slice(200));
  await table.createIndex("text", { config: lancedb.Index.fts({ withPosition: false }) });
  await table.createIndex("user", { config: lancedb.Index.btree() });
  await table.createIndex("vector", { config: lancedb.Index.ivfPq({ distanceType: "cosine", numPartitions: 2, numSubVectors: 4 }) });
  await table.optimize({ cleanupOlderThan: new Date() });
  return table;
}

describe("purgeRows", () => {
  it("control: LanceDB's delete + compaction + cleanup leaves the deleted bytes in a shared fragment", async () => {
    const table = await sharedTable();
    await table.delete("`user` = 'victim'");
    await table.optimize({ cleanupOlderThan: new Date() });
    expect(await table.countRows("`user` = 'victim'")).toBe(0);
    expect((await filesContaining(dir, SECRET)).length).toBeGreaterThan(0);
  });

  it("leaves no byte of the rows on disk, keeps every other row searchable and rebuilds the indexes", async () => {
    const table = await sharedTable();
    // An older copy of a row deleted earlier (as Forget or an upsert leaves one) must go too.
    await table.delete("id = 'r207'");
    await table.optimize({ cleanupOlderThan: new Date() });
    expect((await filesContaining(dir, `${SECRET}207`)).length).toBeGreaterThan(0);

    const result = await purgeRows(table, where.eq("user", "victim"), join(dir, "t.lance"));
    expect(result.deleted).toBe(2);
    expect(await filesContaining(dir, SECRET)).toEqual([]);
    expect(await filesContaining(dir, "victim")).toEqual([]);
    expect(await table.countRows()).toBe(297);
    expect((await table.query().fullTextSearch("weather").limit(1000).toArray()).length).toBe(297);
    const near = await table.vectorSearch(Array.from({ length: 16 }, (_, j) => Math.sin(50 * 7 + j))).distanceType("cosine").limit(1).toArray();
    expect(near[0].id).toBe("r50");
    const indexes = await table.listIndices();
    expect(indexes.map((i) => i.indexType).sort()).toEqual(["BTree", "FTS", "IvfPq"]);
    expect(indexes.every((i) => (i as { numUnindexedRows?: number }).numUnindexedRows === 0)).toBe(true);
    expect(await purgeRows(table, where.eq("user", "victim"), join(dir, "t.lance"))).toMatchObject({ deleted: 0 });
  });
});
