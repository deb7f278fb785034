import type { Table } from "@lancedb/lancedb";
import { inFragments } from "./filter.js";

/**
 * Bounded compaction. LanceDB 0.31's `optimize` rewrites every fragment under its 1M-row target
 * that sits next to another with the same indexes, so once a table's indexes cover everything, a
 * compaction rewrites all of it: 10–18 s per 125k-row shard at 1M memories, and with 16 shard
 * tables under steady writes the passes never caught up. Its planner does not bin an indexed
 * fragment with an unindexed one, though. A fold moves the rows of every fragment but the largest
 * (the "base") into ONE new fragment, in one merge commit keyed on `id` (the rows are written back
 * unchanged; fragments left with no live row drop out of the manifest). The new fragment is not
 * indexed yet, so the `optimize` that follows has nothing to bin with the base: it only folds the
 * new rows into the indexes and prunes old versions. A pass then costs what was written since the
 * last full compaction, not the table; once that delta outgrows its byte bound, a full rewrite
 * runs and the cycle starts again.
 */

/** Rows per fragment id (live rows only), read from the row addresses. */
export async function fragmentRows(table: Table): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const arrow = await table.query().withRowId().select(["id"]).toArrow();
  for (const batch of arrow.batches) {
    const column = batch.getChild("_rowid");
    if (!column) throw new Error("no _rowid column in the scan");
    for (let i = 0; i < column.length; i++) {
      const fragment = Number((column.get(i) as bigint) >> 32n);
      out.set(fragment, (out.get(fragment) ?? 0) + 1);
    }
  }
  return out;
}

/** LanceDB's compaction target: fragments with at least this many rows are never rewritten for size. */
export const TARGET_FRAGMENT_ROWS = 1024 * 1024;

export interface FoldLimits {
  /** A fold moves at most this many bytes (estimated from the table's bytes per row). */
  maxBytes: number;
  /** Bytes per row of the table (its total bytes over its rows). */
  bytesPerRow: number;
  /** Below this many rows in the base, the whole table is rewritten instead (cheap). */
  minBaseRows: number;
}

/** What a fold would move: the fragments and their rows. */
export interface FoldPlan {
  base: number;
  fragments: number[];
  rows: number;
}

/**
 * The fold for a table whose live rows per fragment are `rows`, or null when a full rewrite is the
 * right pass: no second fragment to move, a base too small to be worth sparing, or a delta past
 * `maxBytes` (the merge holds what it moves in memory, and past that a full rewrite costs little
 * more than the fold). A full `optimize` leaves the rows its indexes covered and the rest in two
 * fragments, so the delta right after one can be as large as the rows written since the one
 * before; folding it (not rewriting again) is what lets the table settle. Fragments at LanceDB's
 * target size are left alone either way.
 */
export function planFold(rows: ReadonlyMap<number, number>, limits: FoldLimits): FoldPlan | null {
  const movable = [...rows].filter(([, n]) => n < TARGET_FRAGMENT_ROWS);
  if (movable.length < 2) return null;
  // The largest fragment is the base; of equals, the oldest.
  const [base, baseRows] = movable.reduce((best, f) => (f[1] > best[1] || (f[1] === best[1] && f[0] < best[0]) ? f : best));
  if (baseRows < limits.minBaseRows) return null;
  const fragments = movable.filter(([id]) => id !== base).map(([id]) => id).sort((a, b) => a - b);
  const moved = movable.filter(([id]) => id !== base).reduce((sum, [, n]) => sum + n, 0);
  if (moved * limits.bytesPerRow > limits.maxBytes) return null;
  return { base, fragments, rows: moved };
}

/**
 * Moves the rows of `plan.fragments` into one new fragment, unchanged, in one commit. The caller
 * must hold back the table's other writes meanwhile (a write landing between the read and the
 * commit would be overwritten by the row as read).
 */
export async function fold(table: Table, plan: FoldPlan): Promise<number> {
  const read = await table.query().withRowId().where(inFragments(plan.fragments)).toArrow();
  const rows = read.select(read.schema.fields.map((f) => f.name).filter((n) => n !== "_rowid"));
  if (rows.numRows === 0) return 0;
  const result = await table.mergeInsert("id").whenMatchedUpdateAll().execute(rows);
  return result.numUpdatedRows;
}
