import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Index, type IndexConfig, type Table } from "@lancedb/lancedb";
import { type Condition, where } from "../../core/condition.js";
import { inFragments, renderCondition } from "./filter.js";

// Erasure that reaches the disk. A LanceDB delete only adds a deletion vector to the fragment
// holding the row, and compaction rewrites a fragment only when about 10% of it is deleted, so
// the bytes of a deleted row normally stay in a data file shared with other end-users. Here
// every fragment that held the end-user's rows — live now, or deleted earlier (older copies
// left by upserts, Forget, retention) — is rewritten, so the old fragment is wholly deleted;
// then old versions are pruned and the indexes rebuilt from the surviving rows.
// Transaction records and manifests of pruned versions go with them; the current one never
// names the end-user (rows are deleted by address).

/** A row address is `fragment << 32 | offset`. */
const FRAGMENT_SPAN = 2 ** 32;
const ROW_ADDRESS = "_rowaddr";
const DELETE_CHUNK = 2_000;

/** Row addresses of the rows matching `sql` (all rows when undefined). */
async function addressesOf(table: Table, sql: string | undefined): Promise<number[]> {
  let q = table.query().withRowId().select([ROW_ADDRESS]);
  if (sql) q = q.where(sql);
  return ((await q.toArray()) as Record<string, unknown>[]).map((row) => Number(row[ROW_ADDRESS]));
}

function fragmentOf(address: number): number {
  return Math.floor(address / FRAGMENT_SPAN);
}

/**
 * Fragment ids that carry a deletion vector, read from the deletion files' names
 * (`_deletions/<fragment>-<read version>-<n>.arrow|bin`), so rows deleted long ago — whose
 * versions may already be pruned — are found too.
 */
async function fragmentsWithDeletions(tableDir: string): Promise<Set<number>> {
  const out = new Set<number>();
  let names: string[];
  try {
    names = await readdir(join(tableDir, "_deletions"));
  } catch {
    return out;
  }
  for (const name of names) {
    const id = /^(\d+)-\d+-\d+\.(arrow|bin)$/.exec(name)?.[1];
    if (id !== undefined) out.add(Number(id));
  }
  return out;
}

interface IndexDetails {
  with_position?: boolean;
  metric_type?: string;
  compression?: { num_sub_vectors?: number; num_bits?: number };
}

/** The config that rebuilds an existing index from the surviving rows, or null when unknown. */
function rebuildOf(index: IndexConfig): Index | null {
  const details = (index as { indexDetails?: IndexDetails }).indexDetails;
  switch (index.indexType.toLowerCase()) {
    case "ivfpq":
      return Index.ivfPq({
        distanceType: (details?.metric_type?.toLowerCase() ?? "cosine") as "cosine" | "l2" | "dot",
        numSubVectors: details?.compression?.num_sub_vectors,
        numBits: details?.compression?.num_bits,
      });
    case "fts":
    case "inverted":
      return Index.fts({ withPosition: details?.with_position ?? false });
    case "btree":
      return Index.btree();
    case "bitmap":
      return Index.bitmap();
    case "labellist":
      return Index.labelList();
    default:
      return null;
  }
}

function isVectorIndex(index: IndexConfig): boolean {
  return /^ivf|hnsw/i.test(index.indexType);
}

/** What `purgeRows` did. */
export interface PurgeResult {
  /** Rows that matched and were deleted. */
  deleted: number;
  /** Fragments rewritten so their old files could go. */
  fragmentsRewritten: number;
}

/**
 * Deletes the rows matching `condition` so no byte of them stays on disk: deletes them, rewrites
 * the surviving rows of every fragment that held them (and, on a local directory, of every
 * fragment with older deletions; elsewhere of every fragment), prunes all old versions and
 * rebuilds every index. Runs inside the table's write queue (`LanceCollection.exclusive`) so no
 * write of this process interleaves; files not yet in any version (another writer's in-flight
 * commit) are left alone, so concurrent maintenance or replicas are safe.
 */
export async function purgeRows(table: Table, condition: Condition, tableDir: string | null): Promise<PurgeResult> {
  // Listed first: rewriting every fragment an index covered drops that index from the table.
  const indexes = await table.listIndices();
  const addresses = await addressesOf(table, renderCondition(condition) ?? "TRUE");
  // Deleting by address keeps the end-user's id out of the delete's transaction record.
  for (let i = 0; i < addresses.length; i += DELETE_CHUNK) {
    await table.delete(renderCondition(where.in(ROW_ADDRESS, addresses.slice(i, i + DELETE_CHUNK))) ?? "FALSE");
  }
  const deleted = addresses.length;
  const older = tableDir === null ? (await addressesOf(table, undefined)).map(fragmentOf) : await fragmentsWithDeletions(tableDir);
  const fragments = [...new Set([...addresses.map(fragmentOf), ...older])].sort((a, b) => a - b);
  if (fragments.length > 0) {
    // Setting a column to itself rewrites each row into a new fragment, atomically per commit (one
    // per 200 runs of fragment ids, see `inFragments`), so readers never miss a surviving row and
    // the old fragments end up wholly deleted.
    for (const rows of inFragments(fragments, ROW_ADDRESS)) await table.update({ where: rows, valuesSql: { id: "id" } });
  }
  await table.optimize({ cleanupOlderThan: new Date(), deleteUnverified: false });
  if (deleted > 0 || fragments.length > 0) {
    // Old index segments keep entries (tokens, keys, vector codes) for deleted rows: rebuild
    // each index from the surviving rows, or drop it when it cannot be rebuilt (e.g. too few
    // rows left to train a vector index); queries then scan.
    const present = new Set((await table.listIndices()).map((i) => i.name));
    for (const index of indexes) {
      const config = rebuildOf(index);
      const rebuild = () => table.createIndex(index.columns[0], { config: config ?? undefined, replace: true, name: index.name });
      if (isVectorIndex(index)) {
        const rebuilt = config !== null && (await rebuild().then(() => true, () => false));
        if (!rebuilt && present.has(index.name)) await table.dropIndex(index.name);
      } else if (config) {
        await rebuild();
      }
    }
    await table.optimize({ cleanupOlderThan: new Date(), deleteUnverified: false });
  }
  return { deleted, fragmentsRewritten: fragments.length };
}
