import type { Condition } from "../core/condition.js";

/** A row with a stable primary key. */
export interface Keyed {
  id: string;
}

/** A row with its retrieval score: cosine similarity for `nearest`, BM25 for `match`. */
export interface Scored<T> {
  row: T;
  score: number;
}

/** Options for `nearest` and `match`. */
export interface ScoreOptions {
  /**
   * Rows may come with an empty vector: copying vectors is most of what a cached hit costs (and
   * each copy is off-heap memory that hastens a full GC) when the caller needs only scores.
   */
  withoutVector?: boolean;
}

/** Options for `find`. */
export interface FindOptions {
  /** Max rows (default: all). */
  limit?: number;
  /** Skip the vector column when the caller does not need it. */
  withoutVector?: boolean;
}

/**
 * One stored table of a tenant. Writes are upserts by id, grouped by the adapter into shared
 * commits; an acknowledged write is durable.
 */
export interface Collection<T extends Keyed> {
  /** Inserts or replaces rows by id. */
  upsert(rows: readonly T[]): Promise<void>;
  /** Inserts rows whose id is not stored yet; existing ids are left untouched. */
  insertNew(rows: readonly T[]): Promise<void>;
  /** Rows by id (any order; missing ids are skipped). */
  get(ids: readonly string[]): Promise<T[]>;
  /** Rows matching a condition (unordered). */
  find(condition: Condition, options?: FindOptions): Promise<T[]>;
  /**
   * Just these columns (stored names, as in conditions) of the matching rows, read by the engine:
   * how a page is chosen without loading every row's content (then `get` the page's ids).
   */
  project(condition: Condition, columns: readonly string[]): Promise<Record<string, string | number | null>[]>;
  count(condition: Condition): Promise<number>;
  /** Nearest rows by cosine similarity among rows matching the condition (a condition on `id` scores just those rows). */
  nearest(vector: Float32Array, condition: Condition, limit: number, options?: ScoreOptions): Promise<Scored<T>[]>;
  /** BM25 full-text matches among rows matching the condition. */
  match(text: string, condition: Condition, limit: number, options?: ScoreOptions): Promise<Scored<T>[]>;
  /** Deletes matching rows; returns how many went. */
  delete(condition: Condition): Promise<number>;
  /**
   * True when reads that `condition` pins (e.g. to one end-user) are answered from memory right
   * now, without a storage round trip; lets a caller pick lookups that are cheap only there.
   * Absent: treat as false.
   */
  inMemory?(condition: Condition): boolean;
}

/** A collection whose rows can be changed in place, read and written inside the write queue. */
export interface PatchableCollection<T extends Keyed> extends Collection<T> {
  /**
   * Reads the rows with these ids, applies `change` to each (return `undefined` to leave a row
   * alone) and writes them back in one commit, serialised with every other write of the table so
   * no concurrent write is lost. Rows in `insert` are upserted in the same commit, so a change
   * and the rows it depends on land together or not at all. Returns the changed rows.
   */
  patch(ids: readonly string[], change: (row: T) => T | undefined, insert?: readonly T[]): Promise<T[]>;
}

/** A collection that can also append rows whose ids are new by construction (log ids), unchecked. */
export interface AppendableCollection<T extends Keyed> extends Collection<T> {
  append(rows: readonly T[]): Promise<void>;
}

/** A collection that reports its stored version, so a reader can cache it and notice other writers. */
export interface VersionedCollection<T extends Keyed> extends PatchableCollection<T> {
  /** The current stored version (changes with every commit, by any process). */
  version(): Promise<number>;
}
