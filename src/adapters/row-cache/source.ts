import type { AppendableCollection, Keyed, VersionedCollection } from "../../ports/collection.js";
import type { ColumnRow } from "../../core/row-filter.js";

/**
 * What the row cache asks of the storage collection it sits on. The cache never reaches into the
 * engine otherwise: reads it does not answer go through the `Collection` port, and it learns of
 * this process's writes through `CommitObserver`.
 */

/** A stored row as the engine wrote it (stored column names, vector cell included), with its id. */
export interface StoredRow {
  readonly id: string;
  readonly row: ColumnRow;
}

/** `upsert` replaces rows by id; `insertNew` adds only ids not held yet. */
export type WriteMode = "upsert" | "insertNew";

/**
 * Told by the engine collection about each commit of this process and each rewrite it makes, in
 * commit order and before the write is acknowledged, so what is held is current for every write
 * this process has acknowledged.
 */
export interface CommitObserver {
  /** A commit starts; followed by `committed`, `deleted` or `commitFailed`. */
  commitStarted(): void;
  /** Rows landed at `version` (`insertNew`: existing ids were left alone). */
  committed(version: number, rows: readonly StoredRow[], mode: WriteMode): void;
  /** A delete landed at `version`: of one end-user's rows when `user` is given, else of any rows. */
  deleted(version: number, user: string | undefined): void;
  /** The commit failed or changed nothing. */
  commitFailed(): void;
  /** This process rewrote the table outside the write path (erasure, purge): versions `(from, to]`. */
  rewritten(from: number, to: number): void;
  /** Maintenance (compaction, index builds; no row changes) starts. */
  maintenanceStarted(): void;
  /** Maintenance ended; it made versions `(from, to]`. */
  maintenanceEnded(from: number, to: number): void;
}

/** Hooks the engine asks inside its write queue (no other write of this process lands meanwhile). */
export interface WriteHooks<T> {
  /**
   * The stored ids among these rows' ids, when the cache can tell (no other writer is known: held
   * end-users know their ids, the rest are looked up by id): ids it lacks are new and may be
   * appended without a merge. `undefined` → merge on `id`.
   */
  knownIds?(rows: readonly StoredRow[]): Promise<ReadonlySet<string> | undefined>;
  /** Rows by id as the cache holds them, and the ids it does not hold (read before a patch). */
  byIds?(ids: readonly string[]): Promise<{ found: T[]; missing: string[] }>;
}

/** One end-user's stored rows, read for the cache: stored rows without the vector, vectors flat. */
export interface LoadedRows {
  rows: ColumnRow[];
  /** Row i's vector at `i·dimension` (empty when vectors were not asked for). */
  vectors: Float32Array;
}

/** A storage collection the row cache can sit on. */
export interface CacheSource<T extends Keyed> {
  /** The stored vector column, if any (absent from cached rows; held in the vector matrix). */
  readonly vectorColumn?: string;
  /** The full-text column, if any. */
  readonly textColumn?: string;
  /** The vector dimension (0 without a vector column). */
  dimension(): Promise<number>;
  /** The stored version, changed by every commit of any process. */
  version(): Promise<number>;
  /**
   * The rows whose `column` equals `value`, up to `limit + 1` (so a caller sees "too many"), with
   * vectors when asked.
   */
  load(column: string, value: string, limit: number, withVectors: boolean): Promise<LoadedRows>;
  /** Every distinct value of `column` (one read of that column). */
  distinct(column: string): Promise<Set<string>>;
  /** A record from a stored row (`vector`: the vector cell when the row does not carry it). */
  decode(row: ColumnRow, vector?: Float32Array): T;
  /** Subscribes the one observer (and its hooks) of this collection's commits. */
  observe(observer: CommitObserver, hooks?: WriteHooks<T>): void;
}

/** A collection the row cache can decorate: the storage port plus `CacheSource`. */
export type CacheableCollection<T extends Keyed> = VersionedCollection<T> & AppendableCollection<T> & CacheSource<T>;
