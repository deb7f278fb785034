import type { Table } from "@lancedb/lancedb";
import type { CacheBudget } from "./cache-budget.js";
import { renderCondition } from "./filter.js";
import { Partition, type PartitionHit } from "./partition.js";
import type { ColumnRow } from "./row-filter.js";
import type { Warmer } from "./warmer.js";
import { where } from "../../core/condition.js";

/** What the cache needs to know about its table. */
export interface HotRowsOptions {
  table: Table;
  /** Unique name of the table in this process (budget key prefix). */
  name: string;
  /** The column whose equality selects a partition (e.g. `user`). */
  partitionColumn: string;
  /** Absent for a table without vectors (then `vectors` must be false). */
  vectorColumn?: string;
  textColumn?: string;
  budget: CacheBudget;
  /** Hold vectors, so `nearest` and reads with vectors are served (default true). */
  vectors?: boolean;
  /** The table's full-text index uses the analyzer `fts-terms.ts` mirrors, so `match` is served (default false). */
  analyzerMatches?: boolean;
  /** Partitions with more rows than this are served by the engine (default 50,000). */
  maxRowsPerPartition?: number;
  /**
   * Other processes write this table (default false). Also turned on by itself the first time a
   * version shows up that neither this process's writes nor its maintenance made.
   */
  sharedWriters?: boolean;
  /**
   * While no other writer is known, milliseconds a version check stays good for (default 1,000).
   * This process's own writes reach the cache as they commit, so the check only exists to notice
   * a writer that should have been declared (`sharedWriters`); with one known, every read checks.
   */
  soleWriterCheckMs?: number;
  /** Loads partitions that reads found cold, off the request path (see `cached`); none → reads load them in line. */
  warmer?: Warmer;
}

/** A row write already committed at `version`, to apply to cached partitions. */
export interface CommittedRow {
  id: string;
  row: ColumnRow;
  vector: Float32Array;
}

/** `upsert` replaces rows by id; `insertNew` adds only ids not held yet. */
export type WriteMode = "upsert" | "insertNew";

function apply(p: Partition, rows: readonly CommittedRow[], mode: WriteMode): void {
  for (const r of rows) if (mode === "upsert" || !p.has(r.id)) p.put(r.id, r.row, r.vector);
}

interface Loading {
  /** Writes committed while the load ran; re-applied after it (both modes are idempotent). */
  pending: { rows: readonly CommittedRow[]; mode: WriteMode }[];
  dead: boolean;
  promise?: Promise<Partition | undefined>;
}

/**
 * The hot-row cache of one table: whole partitions (all rows of one end-user) loaded on first
 * use and kept current by the writes this process commits (write-through). Reads compare the
 * table's version with the versions this process made (its commits and its maintenance, which
 * changes no row); any other version means another writer, which drops the table's partitions
 * and switches the table to shared-writer mode. In that mode every read checks the version; while
 * this process is the only writer known, a check stays good for `soleWriterCheckMs`.
 */
export class HotRows {
  private readonly partitions = new Map<string, Partition>();
  private readonly loading = new Map<string, Loading>();
  private readonly tooLarge = new Set<string>();
  private readonly localVersions = new Set<number>();
  private version: number | null = null;
  private inFlight = 0;
  private settled: Promise<void> = Promise.resolve();
  private settle: () => void = () => {};
  private readonly maxRows: number;
  private shared: boolean;
  private maintaining = 0;
  private behind = false;
  private versionCheck: Promise<number> | null = null;
  /** When the last version check that brought the cache up to date started (`performance.now()`). */
  private checkedAt = -Infinity;
  /**
   * The partition keys the table held when last scanned (one read of the partition column), while
   * this process is the only writer; with `written`, a key in neither is one the table has never
   * held — a new end-user — whose partition starts empty without a filtered scan (~25 ms at 100k
   * rows, ~300 ms at 1M under ingest). Dropped with the partitions (a rewrite); unused once
   * another writer is known. Deleted keys linger: a key in the set only means "scan".
   */
  private scanned: Set<string> | null = null;
  private keyScan: Promise<Set<string> | null> | null = null;
  /** Bumped whenever `scanned` may have gone stale: a scan started before it is not used. */
  private generation = 0;
  /** Every partition key this process committed rows for. */
  private readonly written = new Set<string>();

  constructor(private readonly options: HotRowsOptions) {
    this.maxRows = options.maxRowsPerPartition ?? 50_000;
    this.shared = options.sharedWriters ?? false;
  }

  /**
   * True while no other writer of the table is known: the cache then knows every stored id of a
   * held partition (new ids may be appended without a merge), and versions made by this process's
   * maintenance (compaction, index refresh, cleanup: no row changes) keep the cache.
   */
  get soleWriter(): boolean {
    return !this.shared;
  }

  /** Maintenance of the table starts (reads meanwhile keep the cache at its last known version). */
  beginMaintenance(): void {
    this.maintaining++;
  }

  /**
   * Maintenance ended; versions `(from, to]` that this process did not write are its own
   * (compaction and index commits change no row), unless another writer is known.
   */
  endMaintenance(from: number, to: number): void {
    this.maintaining--;
    if (!this.shared) for (let v = from + 1; v <= to; v++) this.localVersions.add(v);
  }

  /** This process rewrote the table outside the write path (erasure, purge): versions `(from, to]` are its own; drop everything cached. */
  rewritten(from: number, to: number): void {
    for (let v = from + 1; v <= to; v++) this.localVersions.add(v);
    this.dropAll();
  }

  /** Vectors are held: `nearest` and reads that need vectors can be served. */
  get servesVectors(): boolean {
    return this.options.vectors ?? true;
  }

  /** In-memory BM25 agrees with the table's full-text index. */
  get servesMatch(): boolean {
    return (this.options.analyzerMatches ?? false) && this.options.textColumn !== undefined;
  }

  /** The cached partition for `key`, loading it if needed; `undefined` → use the engine. */
  async partition(key: string): Promise<Partition | undefined> {
    await this.sync();
    const cached = this.partitions.get(key);
    if (cached) {
      this.options.budget.counters.hits++;
      this.options.budget.touch(this.budgetKey(key), cached.bytes, () => this.partitions.delete(key));
      return cached;
    }
    if (this.tooLarge.has(key)) return undefined;
    // Concurrent readers of a cold partition (a recall's vector and word channels) share one load.
    return this.loading.get(key)?.promise ?? this.load(key);
  }

  /**
   * The partition for `key` if it is held now (or certainly empty: an end-user the table has never
   * held); otherwise `undefined` without waiting — the caller asks the engine, which answers a
   * pinned read with the same prefiltered queries raw LanceDB runs — and the partition is loaded
   * in the background by the warmer, after the answer and only while no read is in flight.
   */
  async cached(key: string): Promise<Partition | undefined> {
    await this.sync();
    const held = this.partitions.get(key);
    if (held) {
      this.options.budget.counters.hits++;
      this.options.budget.touch(this.budgetKey(key), held.bytes, () => this.partitions.delete(key));
      return held;
    }
    if (this.tooLarge.has(key)) {
      this.bypassed();
      return undefined;
    }
    // An end-user known to be new starts empty at no cost; without a warmer, the read loads (as `partition`).
    if (this.knownNew(key) || !this.options.warmer) {
      const loaded = await this.partition(key);
      if (!loaded) this.bypassed();
      return loaded;
    }
    this.options.budget.counters.coldReads++;
    const generation = this.generation;
    this.options.warmer.request(`${this.options.name}\u0000${key}`, {
      wanted: () => generation === this.generation && !this.holds(key) && !this.tooLarge.has(key),
      run: () => this.partition(key),
    });
    return undefined;
  }

  /** Runs a read counted as in flight, so background loads wait for it. */
  reading<R>(read: () => Promise<R>): Promise<R> {
    return this.options.warmer ? this.options.warmer.reading(read) : read();
  }

  /** Rows with these ids found in cached partitions (current as of now), and the ids not found there. */
  async byIds(ids: readonly string[]): Promise<{ hits: PartitionHit[]; missing: string[] }> {
    await this.sync();
    const hits: PartitionHit[] = [];
    const missing: string[] = [];
    // Ids come in runs of one end-user's rows (a recall's hits, a flush's marks in touch order):
    // the partition of the previous id is asked first instead of every partition in turn.
    let last: Partition | undefined;
    for (const id of ids) {
      let hit = last?.get(id);
      if (!hit) {
        for (const p of this.partitions.values()) {
          if (p !== last && (hit = p.get(id))) {
            last = p;
            break;
          }
        }
      }
      if (hit) hits.push(hit);
      else missing.push(id);
    }
    return { hits, missing };
  }

  /** Marks a commit as started; pair with `committed` or `failed`. Reads that see its version wait for it. */
  beginCommit(): void {
    if (this.inFlight++ === 0) this.settled = new Promise((r) => (this.settle = r));
  }

  /** True when this partition is loaded (not merely loading). */
  held(key: string): boolean {
    return this.partitions.has(key);
  }

  /** True when writes to this partition must be applied here (it is held or loading). */
  holds(key: string): boolean {
    return this.partitions.has(key) || this.loading.has(key);
  }

  /**
   * Records a committed version of this process and applies its row writes (`insertNew` keeps
   * existing ids). `rows` is called only when a written partition is held.
   */
  committed(version: number, keys: readonly string[], rows: (held: (key: string) => boolean) => readonly CommittedRow[], mode: WriteMode): void {
    this.localVersions.add(version);
    for (const key of keys) this.written.add(key);
    const byKey = new Map<string, CommittedRow[]>();
    const held = (key: string) => this.holds(key);
    for (const r of keys.some(held) ? rows(held) : []) {
      const key = String(r.row[this.options.partitionColumn]);
      const group = byKey.get(key);
      if (group) group.push(r);
      else byKey.set(key, [r]);
    }
    for (const [key, group] of byKey) {
      const p = this.partitions.get(key);
      if (p) {
        apply(p, group, mode);
        this.options.budget.resize(this.budgetKey(key), p.bytes);
      }
      this.loading.get(key)?.pending.push({ rows: group, mode });
    }
    this.endCommit();
  }

  /** Records a committed delete: drops the partitions it may touch (`key` when the delete pinned one). */
  deleted(version: number, key: string | undefined): void {
    this.localVersions.add(version);
    if (key === undefined) this.dropAll();
    else this.drop(key);
    this.endCommit();
  }

  /** Counts a read that went to the engine although it pinned a partition. */
  bypassed(): void {
    this.options.budget.counters.bypasses++;
  }

  /** A commit failed (or changed nothing): nothing to apply. */
  failed(): void {
    this.endCommit();
  }

  /** Drops every cached partition of this table. */
  dropAll(): void {
    for (const key of [...this.partitions.keys()]) this.drop(key);
    for (const l of this.loading.values()) l.dead = true;
    this.tooLarge.clear();
    this.scanned = null;
    this.keyScan = null;
    this.generation++;
  }

  private drop(key: string): void {
    this.partitions.delete(key);
    this.options.budget.forget(this.budgetKey(key));
    const l = this.loading.get(key);
    if (l) l.dead = true;
  }

  private endCommit(): void {
    if (--this.inFlight === 0) this.settle();
  }

  private budgetKey(key: string): string {
    return `${this.options.name}\u0000${key}`;
  }

  /** The table's version; reads that start while a check is in flight share it (a recall's channels start together). */
  private latest(): Promise<number> {
    this.versionCheck ??= this.options.table.version().finally(() => (this.versionCheck = null));
    return this.versionCheck;
  }

  /** Brings the cache to the table's current version; versions this process did not write drop it. */
  private async sync(): Promise<void> {
    const started = performance.now();
    // A version check costs a manifest lookup (~0.25 ms locally, a request on object storage),
    // several per recall; with no other writer known it only looks for one, so it need not run on
    // every read.
    if (!this.shared && this.version !== null && started - this.checkedAt < (this.options.soleWriterCheckMs ?? 1000)) return;
    for (let attempt = 0; ; attempt++) {
      const current = await (attempt === 0 ? this.latest() : this.options.table.version());
      if (this.version === null || current === this.version) {
        this.version = current;
        this.checkedAt = started;
        return;
      }
      if (current < this.version) {
        // Seen (rarely) under load while maintenance and writes share the handle: a read of an
        // older manifest. With no other writer, only a second such read in a row means the table
        // was recreated or restored; with other writers, at once. Then nothing cached is trusted.
        if (!this.behind && !this.shared) {
          this.behind = true;
          return;
        }
        this.behind = false;
        this.invalidate();
        this.version = current;
        return;
      }
      this.behind = false;
      const unexplained: number[] = [];
      for (let v = this.version + 1; v <= current; v++) if (!this.localVersions.has(v)) unexplained.push(v);
      // With no other writer known, a version not yet explained is our own commit (landed, not yet
      // applied) or our maintenance (explained when it ends): serve what is held — current for
      // every write this process has acknowledged — without waiting for either.
      if (unexplained.length > 0 && (this.inFlight > 0 || this.maintaining > 0) && !this.shared) return;
      if (unexplained.length > 0 && this.inFlight > 0 && attempt === 0) {
        // Probably our own commit, landed but not yet applied: wait for it and look again.
        await this.settled;
        continue;
      }
      if (unexplained.length > 0) {
        // Neither our writes nor our maintenance: another process writes this table.
        this.shared = true;
        this.invalidate();
      }
      for (const v of this.localVersions) if (v <= current) this.localVersions.delete(v);
      this.version = current;
      this.checkedAt = started;
      return;
    }
  }

  private invalidate(): void {
    this.dropAll();
    this.options.budget.counters.invalidations++;
  }

  private dimensionOf: number | undefined;

  private async dimension(): Promise<number> {
    if (this.dimensionOf === undefined) {
      const field = (await this.options.table.schema()).fields.find((f) => f.name === this.options.vectorColumn);
      this.dimensionOf = (field?.type as { listSize?: number } | undefined)?.listSize ?? 0;
    }
    return this.dimensionOf;
  }

  private load(key: string): Promise<Partition | undefined> {
    const state: Loading = { pending: [], dead: false };
    this.loading.set(key, state);
    state.promise = this.fill(key, state).finally(() => {
      if (this.loading.get(key) === state) this.loading.delete(key);
    });
    return state.promise;
  }

  private async fill(key: string, state: Loading): Promise<Partition | undefined> {
    const started = performance.now();
    try {
      if (await this.neverHeld(key)) {
        this.options.budget.counters.fresh++;
        return this.keep(key, state, new Partition(this.servesVectors ? await this.dimension() : 0, this.options.textColumn, 0, this.options.vectorColumn));
      }
      const filter = renderCondition(where.eq(this.options.partitionColumn, key)) ?? "";
      let query = this.options.table.query().where(filter).limit(this.maxRows + 1);
      if (!this.servesVectors) {
        const fields = (await this.options.table.schema()).fields.map((f) => f.name);
        query = query.select(fields.filter((f) => f !== this.options.vectorColumn));
      }
      const table = await query.toArrow();
      if (table.numRows > this.maxRows) {
        this.tooLarge.add(key);
        return undefined;
      }
      const dimension = this.servesVectors ? await this.dimension() : 0;
      const p = new Partition(dimension, this.options.textColumn, table.numRows, this.options.vectorColumn);
      // An empty result may come without a schema: take the columns from the table.
      const schema = table.numRows > 0 ? table.schema : await this.options.table.schema();
      const columns = schema.fields.map((f) => f.name).filter((n) => n !== this.options.vectorColumn);
      // Column-wise decoding: iterating a column is far cheaper than `get(i)` per cell.
      const cells = columns.map((c) => columnValues(table.getChild(c)));
      const vectors = dimension > 0 && this.options.vectorColumn ? flatVectors(table.getChild(this.options.vectorColumn), dimension) : undefined;
      for (let i = 0; i < table.numRows; i++) {
        const row: Record<string, unknown> = {};
        for (let j = 0; j < columns.length; j++) row[columns[j]] = cells[j][i] ?? null;
        p.put(String(row.id), row, vectors ? vectors.subarray(i * dimension, (i + 1) * dimension) : EMPTY);
      }
      this.options.budget.counters.loads++;
      this.options.budget.counters.loadMillis += performance.now() - started;
      return this.keep(key, state, p);
    } catch (error) {
      state.dead = true;
      throw error;
    }
  }

  /** Holds a loaded partition, with the writes committed while it loaded; none if it died meanwhile. */
  private keep(key: string, state: Loading, p: Partition): Partition | undefined {
    if (state.dead) return undefined;
    for (const w of state.pending) apply(p, w.rows, w.mode);
    this.partitions.set(key, p);
    this.options.budget.touch(this.budgetKey(key), p.bytes, () => this.partitions.delete(key));
    return p;
  }

  /** Like `neverHeld`, but only from what is known already (no scan): then loading costs nothing. */
  private knownNew(key: string): boolean {
    return !this.shared && this.scanned !== null && !this.scanned.has(key) && !this.written.has(key);
  }

  /** True when the table has certainly never held `key` (sole writer, key directory current). */
  private async neverHeld(key: string): Promise<boolean> {
    if (this.shared || this.written.has(key)) return false;
    if (!this.scanned) {
      const generation = this.generation;
      const scan = (this.keyScan ??= this.scanKeys().catch(() => null));
      const keys = await scan;
      if (this.keyScan === scan) this.keyScan = null;
      // A rewrite or another writer while it ran: it may be stale, so scan this key's rows instead.
      if (!keys || generation !== this.generation || this.shared) return false;
      this.scanned = keys;
    }
    return !this.scanned.has(key) && !this.written.has(key);
  }

  /** Every partition key the table holds rows for (one read of that column). */
  private async scanKeys(): Promise<Set<string>> {
    const column = this.options.partitionColumn;
    const table = await this.options.table.query().select([column]).toArrow();
    const keys = new Set<string>();
    for (const value of table.getChild(column) ?? []) if (value !== null && value !== undefined) keys.add(String(value));
    return keys;
  }
}

const EMPTY = new Float32Array(0);

/** The analyzer settings of LanceDB's default FTS index, which `fts-terms.ts` reproduces. */
const DEFAULT_ANALYZER: Record<string, unknown> = {
  base_tokenizer: "simple",
  language: "English",
  lower_case: true,
  stem: true,
  remove_stop_words: true,
  ascii_folding: true,
  max_token_length: 40,
  custom_stop_words: null,
};

/** True when the table's FTS index on `column` uses the default analyzer (so in-memory BM25 sees the same terms). */
export async function defaultAnalyzer(table: Table, column: string): Promise<boolean> {
  const index = (await table.listIndices()).find((i) => i.indexType === "FTS" && i.columns.includes(column));
  const details = (index as { indexDetails?: Record<string, unknown> } | undefined)?.indexDetails;
  if (!details) return false;
  return Object.entries(DEFAULT_ANALYZER).every(([k, v]) => (details[k] ?? null) === v);
}

/** A column's values as plain JS values (lists → arrays, SQL NULL → null). */
function columnValues(column: { [Symbol.iterator](): Iterator<unknown> } | null): unknown[] {
  if (!column) return [];
  return Array.from(column, (v) => (v !== null && typeof v === "object" && "toArray" in v ? Array.from((v as { toArray(): ArrayLike<unknown> }).toArray()) : v));
}

/** A fixed-size-list Float32 column as one flat array (row i at i·dimension). */
function flatVectors(column: { data: readonly FixedListData[]; length: number } | null, dimension: number): Float32Array {
  const out = new Float32Array((column?.length ?? 0) * dimension);
  let row = 0;
  for (const chunk of column?.data ?? []) {
    const child = chunk.children[0];
    const start = (child.offset + chunk.offset * dimension);
    out.set(child.values.subarray(start, start + chunk.length * dimension), row * dimension);
    row += chunk.length;
  }
  return out;
}

/** The parts of an Arrow `Data` chunk of a fixed-size-list column that `flatVectors` reads. */
interface FixedListData {
  offset: number;
  length: number;
  children: { offset: number; values: Float32Array }[];
}
