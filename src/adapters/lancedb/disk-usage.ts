import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Connection } from "@lancedb/lancedb";

/** The local directory behind a LanceDB URI, or null for object stores and LanceDB Cloud. */
export function localDirectory(uri: string): string | null {
  if (uri.startsWith("file://")) return fileURLToPath(uri);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? null : uri;
}

/** Sums the sizes of every file below `dir` (0 when it does not exist). */
async function directoryBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += await directoryBytes(path);
    else if (e.isFile()) total += (await stat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * Bytes a table occupies. On a local directory: every file of the table (data, deletion files,
 * indexes and the old versions not yet cleaned up), which is what the disk really holds.
 * Elsewhere: the engine's own figure for the current version's data.
 */
export async function tableBytes(db: Connection, uri: string, table: string): Promise<number> {
  const dir = localDirectory(uri);
  if (dir !== null) return directoryBytes(join(dir, `${table}.lance`));
  const stats = await (await db.openTable(table)).stats();
  return stats.totalBytes;
}
