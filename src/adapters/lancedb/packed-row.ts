/**
 * A row-store column beside the columnar ones. LanceDB reads each selected column of each row it
 * returns on its own, so reading the ~40 whole memory rows of a recall's neighbour lookup costs
 * about as much as the lookup itself, and every search pays the same per column: on a 125k-row
 * shard (1M memories, 8 shards), a user-filtered vector search and full-text search read in
 * parallel took 10.6 ms p50 with every column and 7.1 ms selecting four, and the neighbour lookup
 * 5.0 against 3.3 ms, decoding included (`xp`, 300 random users, 2026-12-07, quiet 2-core VM).
 * So a table kind may keep every column but its key, text and vector columns once more, as one
 * JSON string written with the row (`packed`); reads of whole records select that string and the
 * direct columns instead of every column. The columns stay as they are: filters, indexes,
 * `project` and the row cache read them.
 */
export interface PackedColumns {
  /** The JSON column (nullable: rows written before it existed read it as null). */
  column: string;
  /** The columns read directly beside it (the key and the full-text column). */
  direct: readonly string[];
  /**
   * The columns it holds, in order: a JSON array of their values, not an object (half the bytes
   * written per row). Only ever appended to, as the schema is: a row packed before a column was
   * added reads it as null.
   */
  holds: readonly string[];
  /**
   * A row with every direct and packed column unset: unpacked rows start as copies of it, so they
   * share one hidden class and the codec's reads of them stay monomorphic (adding ~30 properties
   * one by one to each row, and deleting the packed one after, cost ~1 ms of a cold recall's main
   * thread at 1M memories).
   */
  shape: Readonly<Record<string, undefined>>;
}

/** The columns a kind packs: every column of `columns` but the packed one, the direct ones and the vector. */
export function packedColumns(columns: readonly string[], column: string, direct: readonly string[], vectorColumn: string | undefined): PackedColumns {
  const holds = columns.filter((c) => c !== column && c !== vectorColumn && !direct.includes(c));
  return { column, direct, holds, shape: Object.fromEntries([...direct, ...holds].map((c) => [c, undefined])) };
}

/** The JSON of a row's packed columns. */
export function packRow(row: Readonly<Record<string, unknown>>, packed: PackedColumns): string {
  return JSON.stringify(packed.holds.map((c) => row[c] ?? null));
}

/** A row of `cells` (all but the packed column) and the packed columns back from their JSON. */
export function unpackRow(json: string, packed: PackedColumns, cells: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const values: unknown = JSON.parse(json);
  if (!Array.isArray(values)) throw new Error("a packed row is a JSON array");
  const row: Record<string, unknown> = { ...packed.shape };
  for (const c in cells) if (c !== packed.column) row[c] = cells[c];
  const { holds } = packed;
  for (let i = 0; i < holds.length; i++) row[holds[i]] = i < values.length ? values[i] : null;
  return row;
}
