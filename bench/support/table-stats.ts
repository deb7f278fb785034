import * as lancedb from "@lancedb/lancedb";

/** One kind's tables summed (a sharded tenant has several per kind): rows, fragments, small fragments, versions, and the worst table. */
export interface KindStats {
  rows: number;
  fragments: number;
  /** Small fragments summed over the kind's tables. */
  small: number;
  versions: number;
  tables: number;
  /** The most small fragments any one table of the kind has (what a compaction threshold is checked against). */
  maxSmall: number;
  /** Tables of the kind at or over 200,000 rows (the server's default vector-index threshold) without a vector index yet. */
  awaitingVectorIndex: number;
}

/** Fragments, versions and rows of the `memories` and `episodes` tables in a data directory, per kind (read through a separate connection). */
export async function tableStats(dir: string): Promise<Record<string, KindStats>> {
  const db = await lancedb.connect(dir);
  const out: Record<string, KindStats> = {};
  for (const name of await db.tableNames()) {
    const kind = name.slice(0, name.indexOf("__")).replace(/\.s\d+of\d+$/, "");
    if (kind !== "memories" && kind !== "episodes") continue;
    const table = await db.openTable(name);
    const stats = await table.stats();
    const sum = (out[kind] ??= { rows: 0, fragments: 0, small: 0, versions: 0, tables: 0, maxSmall: 0, awaitingVectorIndex: 0 });
    if (stats.numRows >= 200_000 && !(await table.listIndices()).some((i) => i.columns.includes("vector"))) sum.awaitingVectorIndex++;
    sum.rows += stats.numRows;
    sum.fragments += stats.fragmentStats.numFragments;
    sum.small += stats.fragmentStats.numSmallFragments;
    sum.versions += (await table.listVersions()).length;
    sum.tables++;
    sum.maxSmall = Math.max(sum.maxSmall, stats.fragmentStats.numSmallFragments);
    table.close();
  }
  db.close();
  return out;
}
