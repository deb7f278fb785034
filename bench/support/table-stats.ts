import * as lancedb from "@lancedb/lancedb";

/** Fragments, versions and rows of each table in a data directory (read through a separate connection). */
export async function tableStats(dir: string): Promise<Record<string, { rows: number; fragments: number; versions: number }>> {
  const db = await lancedb.connect(dir);
  const out: Record<string, { rows: number; fragments: number; versions: number }> = {};
  for (const name of await db.tableNames()) {
    if (!name.startsWith("memories__") && !name.startsWith("episodes__")) continue;
    const table = await db.openTable(name);
    const stats = await table.stats();
    out[name.slice(0, name.indexOf("__"))] = { rows: stats.numRows, fragments: stats.fragmentStats.numFragments, versions: (await table.listVersions()).length };
    table.close();
  }
  db.close();
  return out;
}
