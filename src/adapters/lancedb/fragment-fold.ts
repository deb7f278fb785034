import type { Table } from "@lancedb/lancedb";
import { inFragments } from "./filter.js";

/**
 * Bounded compaction. LanceDB 0.31's `optimize` rewrites every fragment under its 1M-row target
 * that sits next to another with the same indexes, so once a table's indexes cover a few
 * fragments, each compaction rewrites all of them (the whole of a 125k-row shard at 1M memories,
 * every pass). Its planner does not bin an indexed fragment with an unindexed one, though. A fold
 * moves the rows of every fragment but the largest (the "base") into ONE new fragment, unchanged,
 * in one commit (an `update` that sets `id` to itself, filtered on the row addresses; fragments
 * left with no live row drop out of the manifest). The new fragment is not indexed yet, so the
 * `optimize` that follows has nothing to bin: it folds the moved rows into the indexes and prunes
 * old versions. A pass then costs the rows written since the last full compaction, not the table;
 * once they outnumber the base, a full rewrite makes a new base twice the size, so rows are
 * rewritten O(log n) times over a table's life.
 *
 * The `update` scans and writes in the engine (measured on a 125k-row `memories` table with a
 * 45k-row delta, 512-d, quiet: fold + optimize 1.4–1.6 s, full rewrite 2.3–3.0 s); moving rows
 * with `mergeInsert` instead took ~5× as long per row (a hash join within a 100 MB pool, which a
 * 20k-row move exhausted).
 */

/** Rows per fragment id (live rows only), read from the row addresses. */
export async function fragmentRows(table: Table): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  // The row ids alone: reading `id` beside them took twice as long (125k rows, 2026-12-07).
  const arrow = await table.query().withRowId().select([]).toArrow();
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
 * right pass: no second fragment, a base too small to be worth sparing, or more to move than the
 * base holds or than `maxBytes`. Fragments at LanceDB's target size are left alone either way.
 */
export function planFold(rows: ReadonlyMap<number, number>, limits: FoldLimits): FoldPlan | null {
  const candidates = [...rows].filter(([, n]) => n < TARGET_FRAGMENT_ROWS);
  if (candidates.length < 2) return null;
  // The largest fragment is the base; of equals, the oldest.
  const [base, baseRows] = candidates.reduce((best, f) => (f[1] > best[1] || (f[1] === best[1] && f[0] < best[0]) ? f : best));
  if (baseRows < limits.minBaseRows) return null;
  const movable = candidates.filter(([id]) => id !== base);
  const moved = movable.reduce((sum, [, n]) => sum + n, 0);
  if (moved > baseRows || moved * limits.bytesPerRow > limits.maxBytes) return null;
  return { base, fragments: movable.map(([id]) => id).sort((a, b) => a - b), rows: moved };
}

/**
 * The tidy fold for a table between full passes: the fragments written since its last `optimize`
 * (ids above `indexedUpTo`, the highest fragment id after it; fragment ids only grow) moved into
 * one, or null when fewer than `minFragments` of them are there. The largest of them stays where it
 * is when it holds more rows than the others together (as a fold's base does), so the last tidy's
 * fragment is not moved again with every few new rows: a row is moved O(log n) times before the next
 * `optimize`, not once per tidy. Fragments the indexes cover are never moved, so no row leaves an
 * index, and the base and the last fold stay as they are: the next `optimize` finds them next to
 * one or two unindexed fragments, as after a fold. `base` is the kept fragment, or -1.
 */
export function planTidy(rows: ReadonlyMap<number, number>, indexedUpTo: number, minFragments: number): FoldPlan | null {
  const fresh = [...rows].filter(([id, n]) => id > indexedUpTo && n < TARGET_FRAGMENT_ROWS);
  if (fresh.length < Math.max(2, minFragments)) return null;
  const total = fresh.reduce((sum, [, n]) => sum + n, 0);
  const [largest, largestRows] = fresh.reduce((a, b) => (b[1] > a[1] ? b : a));
  const keep = largestRows > total - largestRows ? largest : -1;
  const moved = fresh.filter(([id]) => id !== keep);
  return { base: keep, fragments: moved.map(([id]) => id).sort((a, b) => a - b), rows: moved.reduce((sum, [, n]) => sum + n, 0) };
}

/**
 * Moves the rows of `plan.fragments` into one new fragment, unchanged, in one commit (one per
 * `MAX_FRAGMENT_RUNS` runs of consecutive fragment ids, see `inFragments`). The caller holds back
 * the table's other writes meanwhile, so no write of this process preempts it.
 */
export async function fold(table: Table, plan: FoldPlan): Promise<number> {
  let moved = 0;
  for (const where of inFragments(plan.fragments)) moved += (await table.update({ where, valuesSql: { id: "id" } })).rowsUpdated;
  return moved;
}
