import type { Keyed } from "../../ports/collection.js";
import type { CacheBudget } from "./cache-budget.js";
import type { ColumnRow } from "../../core/row-filter.js";
import type { CacheSource, StoredRow, WriteMode } from "./source.js";
import { rowBytes, UserRows, type RowHit } from "./user-rows.js";
import type { Warmer } from "./warmer.js";

/** The column that names a row's end-user (see `Collection.forUser`). */
export const USER_COLUMN = "user";

/** What the cache needs to know about its table. */
export interface TableCacheOptions {
  /** The table's rows as stored, and its version (the engine collection under the cache). */
  source: Pick<CacheSource<Keyed>, "vectorColumn" | "textColumn" | "dimension" | "version" | "load" | "distinct">;
  /** Unique name of the table in this process (budget key prefix). */
  name: string;
  budget: CacheBudget;
  /** Hold vectors, so `nearest` and reads with vectors are served (default true). */
  vectors?: boolean;
  /** The table's full-text index uses the analyzer `fts-terms.ts` mirrors, so `match` is served (default false). */
  analyzerMatches?: boolean;
  /** End-users with more rows than this are served by the engine (default 50,000). */
  maxRowsPerUser?: number;
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
  /** Loads end-users that reads found cold, off the request path (see `cached`); none → reads load them in line. */
  warmer?: Warmer;
}

/** A row write already committed, to apply to a held end-user's rows. */
interface CommittedRow {
  id: string;
  row: ColumnRow;
  vector: Float32Array;
}

/** A commit bringing more rows than this to a held end-user nobody has read since, once the budget is full, is not applied: the user is dropped (see `committed`). */
const BULK_ROWS = 256;

/** Rows a load puts between two turns of the event loop. */
const LOAD_SLICE = 100;

function apply(p: UserRows, rows: readonly CommittedRow[], mode: WriteMode): void {
  if (rows.length > 1) p.reserve(rows.length);
  for (const r of rows) if (mode === "upsert" || !p.has(r.id)) p.put(r.id, r.row, r.vector);
}

interface Loading {
  /** Writes committed while the load ran; re-applied after it (both modes are idempotent). */
  pending: { rows: readonly CommittedRow[]; mode: WriteMode }[];
  dead: boolean;
  /** Asked for by the warmer only: between its slices it waits for the reads in flight (`betweenSlices`). */
  background: boolean;
  promise?: Promise<UserRows | undefined>;
}

/**
 * The row cache of one table: the whole rows of held end-users (every row of one user), loaded on
 * first use and kept current by the writes this process commits (write-through, told by the
 * engine collection's `CommitObserver`). Reads compare the table's version with the versions this
 * process made (its commits and its maintenance, which changes no row); any other version means
 * another writer, which drops the table's held users and switches the table to shared-writer
 * mode. In that mode every read checks the version; while this process is the only writer known,
 * a check stays good for `soleWriterCheckMs`.
 */
export class TableCache {
  private readonly users = new Map<string, UserRows>();
  private readonly loading = new Map<string, Loading>();
  /** Held end-users read (through `cached`) since they were held; a bulk write drops the others (`committed`). */
  private readonly read = new Set<string>();
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
   * The end-users the table held when last scanned (one read of the `user` column), while this
   * process is the only writer; with `written`, a user in neither is one the table has never
   * held — a new end-user — whose rows start empty without a filtered scan (~25 ms at 100k rows,
   * ~300 ms at 1M under ingest). Dropped with the held users (a rewrite); unused once another
   * writer is known. Deleted users linger: a user in the set only means "scan".
   */
  private scanned: Set<string> | null = null;
  private keyScan: Promise<Set<string> | null> | null = null;
  /** Bumped whenever `scanned` may have gone stale: a scan started before it is not used. */
  private generation = 0;
  /** Every end-user this process committed rows for. */
  private readonly written = new Set<string>();

  constructor(private readonly options: TableCacheOptions) {
    this.maxRows = options.maxRowsPerUser ?? 50_000;
    this.shared = options.sharedWriters ?? false;
  }

  /**
   * True while no other writer of the table is known: the cache then knows every stored id of a
   * held user (new ids may be appended without a merge), and versions made by this process's
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
    return (this.options.analyzerMatches ?? false) && this.options.source.textColumn !== undefined;
  }

  /** The rows of `user` if held, counted as a hit and marked recently used in the budget. */
  private hit(user: string): UserRows | undefined {
    const rows = this.users.get(user);
    if (rows) {
      this.options.budget.counters.hits++;
      this.options.budget.touch(this.budgetKey(user), rows.bytes, () => this.evicted(user));
    }
    return rows;
  }

  /** The held rows of `user`, loading them if needed; `undefined` → use the engine. */
  async rowsOf(user: string, background = false): Promise<UserRows | undefined> {
    await this.sync();
    const cached = this.hit(user);
    if (cached) return cached;
    if (this.tooLarge.has(user)) return undefined;
    // Concurrent readers of a cold user (a recall's vector and word channels) share one load; a
    // request that joins a background load makes it a load someone waits for.
    const loading = this.loading.get(user);
    if (loading && !background) loading.background = false;
    return loading?.promise ?? this.load(user, background);
  }

  /**
   * The rows of `user` if they are held now (or certainly empty: an end-user the table has never
   * held); otherwise `undefined` without waiting — the caller asks the engine, which answers a
   * read for one end-user with the same prefiltered queries raw LanceDB runs — and the user is
   * loaded in the background by the warmer, after the answer and only while no read is in flight.
   */
  async cached(user: string): Promise<UserRows | undefined> {
    await this.sync();
    const held = this.hit(user);
    if (held) {
      this.read.add(user);
      // Reads are counted for admission (a write's id check goes through `rowsOf` and is not).
      this.options.warmer?.accessed(this.budgetKey(user));
      return held;
    }
    if (this.tooLarge.has(user)) {
      this.bypassed();
      return undefined;
    }
    // An end-user known to be new starts empty at no cost; without a warmer, the read loads (as `rowsOf`).
    if (this.knownNew(user) || !this.options.warmer) {
      const loaded = await this.rowsOf(user);
      if (!loaded) this.bypassed();
      else this.read.add(user);
      return loaded;
    }
    this.options.budget.counters.coldReads++;
    const generation = this.generation;
    // Which end-users the table holds is learnt once (one read of its user column), after the
    // answer: from then on a new end-user's reads start empty here instead of going to the engine.
    if (this.scanned === null && !this.shared) {
      this.options.warmer.request(`${this.options.name}\u0001users`, { always: true, wanted: () => this.scanned === null && !this.shared, run: () => this.scanUsers() });
    }
    this.options.warmer.request(`${this.options.name}\u0000${user}`, {
      wanted: () => generation === this.generation && !this.holds(user) && !this.tooLarge.has(user),
      run: () => this.rowsOf(user, true),
    });
    return undefined;
  }

  /** Runs a read counted as in flight, so background loads wait for it. */
  reading<R>(read: () => Promise<R>): Promise<R> {
    return this.options.warmer ? this.options.warmer.reading(read) : read();
  }

  /** Rows with these ids found among held users (current as of now), and the ids not found there. */
  async byIds(ids: readonly string[]): Promise<{ hits: RowHit[]; missing: string[] }> {
    await this.sync();
    const hits: RowHit[] = [];
    const missing: string[] = [];
    // Ids come in runs of one end-user's rows (a recall's hits, a flush's marks in touch order):
    // the user of the previous id is asked first instead of every held user in turn.
    let last: UserRows | undefined;
    for (const id of ids) {
      let hit = last?.get(id);
      if (!hit) {
        for (const p of this.users.values()) {
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

  /** Marks a commit as started; pair with `committed`, `deleted` or `failed`. Reads that see its version wait for it. */
  beginCommit(): void {
    if (this.inFlight++ === 0) this.settled = new Promise((r) => (this.settle = r));
  }

  /** True when this end-user's rows are loaded (not merely loading). */
  held(user: string): boolean {
    return this.users.has(user);
  }

  /**
   * True when the table has certainly never held this end-user, so holding them costs nothing (the
   * first time, one read of the table's user column; no scan of anyone's rows).
   */
  isNew(user: string): Promise<boolean> {
    return this.knownNew(user) ? Promise.resolve(true) : this.neverHeld(user);
  }

  /** True when writes for this end-user must be applied here (held or loading). */
  holds(user: string): boolean {
    return this.users.has(user) || this.loading.has(user);
  }

  /** Records a committed version of this process and applies its row writes (`insertNew` keeps existing ids). */
  committed(version: number, rows: readonly StoredRow[], mode: WriteMode): void {
    this.localVersions.add(version);
    const vectorColumn = this.options.source.vectorColumn;
    let byUser: Map<string, CommittedRow[]> | undefined;
    for (const stored of rows) {
      const user = String(stored.row[USER_COLUMN]);
      this.written.add(user);
      if (!this.holds(user)) continue;
      // The stored rows go to the held users as they are: `UserRows` copies what it keeps (its own
      // row object without the vector, the vector into its matrix).
      const cell = vectorColumn ? stored.row[vectorColumn] : undefined;
      const vector = cell instanceof Float32Array ? cell : Float32Array.from((cell ?? []) as ArrayLike<number>);
      byUser ??= new Map();
      const group = byUser.get(user);
      const r = { id: stored.id, row: stored.row, vector };
      if (group) group.push(r);
      else byUser.set(user, [r]);
    }
    for (const [user, group] of byUser ?? []) {
      const p = this.users.get(user);
      if (p && group.length > BULK_ROWS && !this.read.has(user) && !this.options.budget.fits(this.bytesOf(group))) {
        // A bulk import, once the budget is full, for an end-user nobody has read since they were
        // held (a new end-user, held empty by the write's id check): not kept here, since it
        // would evict users someone reads. During a 1M-row import, indexing each 1,000-row batch
        // for users the budget then evicted unread took ~15% of the main thread (CPU profile of a
        // 300k-row ingest, 2026-12-07). Such users are loaded like anyone else once read twice;
        // until then their writes ask the engine which ids exist.
        this.drop(user);
        continue;
      }
      if (p) {
        apply(p, group, mode);
        this.options.budget.resize(this.budgetKey(user), p.bytes);
      }
      this.loading.get(user)?.pending.push({ rows: group, mode });
    }
    this.endCommit();
  }

  /** Records a committed delete: drops the held users it may touch (`user` when the delete named one). */
  deleted(version: number, user: string | undefined): void {
    this.localVersions.add(version);
    if (user === undefined) this.dropAll();
    else this.drop(user);
    this.endCommit();
  }

  /** Counts a read for one end-user that went to the engine. */
  bypassed(): void {
    this.options.budget.counters.bypasses++;
  }

  /** A commit failed (or changed nothing): nothing to apply. */
  failed(): void {
    this.endCommit();
  }

  /** Drops every held end-user of this table. */
  dropAll(): void {
    for (const user of [...this.users.keys()]) this.drop(user);
    for (const l of this.loading.values()) l.dead = true;
    this.tooLarge.clear();
    this.scanned = null;
    this.keyScan = null;
    this.generation++;
  }

  private drop(user: string): void {
    this.evicted(user);
    this.options.budget.forget(this.budgetKey(user));
    const l = this.loading.get(user);
    if (l) l.dead = true;
  }

  /** Estimated bytes `rows` would add to a held end-user. */
  private bytesOf(rows: readonly CommittedRow[]): number {
    const text = this.options.source.textColumn;
    return rows.reduce((n, r) => n + rowBytes(r.vector.length, text ? String(r.row[text] ?? "") : ""), 0);
  }

  /** The end-user's rows are no longer held. */
  private evicted(user: string): void {
    this.users.delete(user);
    this.read.delete(user);
  }

  private endCommit(): void {
    if (--this.inFlight === 0) this.settle();
  }

  private budgetKey(user: string): string {
    return `${this.options.name}\u0000${user}`;
  }

  /** The table's version; reads that start while a check is in flight share it (a recall's channels start together). */
  private latest(): Promise<number> {
    this.versionCheck ??= this.options.source.version().finally(() => (this.versionCheck = null));
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
      const current = await (attempt === 0 ? this.latest() : this.options.source.version());
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
    this.dimensionOf ??= await this.options.source.dimension();
    return this.dimensionOf;
  }

  private load(user: string, background: boolean): Promise<UserRows | undefined> {
    const state: Loading = { pending: [], dead: false, background };
    this.loading.set(user, state);
    state.promise = this.fill(user, state).finally(() => {
      if (this.loading.get(user) === state) this.loading.delete(user);
    });
    return state.promise;
  }

  private async fill(user: string, state: Loading): Promise<UserRows | undefined> {
    const started = performance.now();
    const { source } = this.options;
    try {
      if (await this.neverHeld(user)) {
        this.options.budget.counters.fresh++;
        return this.keep(user, state, new UserRows(this.servesVectors ? await this.dimension() : 0, source.textColumn, 0, source.vectorColumn));
      }
      const loaded = await source.load(USER_COLUMN, user, this.maxRows, this.servesVectors);
      if (loaded.rows.length > this.maxRows) {
        this.tooLarge.add(user);
        return undefined;
      }
      const dimension = this.servesVectors ? await this.dimension() : 0;
      const p = new UserRows(dimension, source.textColumn, loaded.rows.length, source.vectorColumn);
      const vectors = dimension > 0 ? loaded.vectors : undefined;
      // In slices, each after a turn of the event loop: a request that arrives meanwhile runs
      // between two slices instead of after the whole user (1,000 rows took ~45 ms of the main
      // thread, and a recall right after a background load waited for all of it).
      for (let from = 0; from < loaded.rows.length; from += LOAD_SLICE) {
        if (from > 0) await this.betweenSlices(state);
        const to = Math.min(loaded.rows.length, from + LOAD_SLICE);
        for (let i = from; i < to; i++) {
          const row = loaded.rows[i];
          p.put(String(row.id), row, vectors ? vectors.subarray(i * dimension, (i + 1) * dimension) : EMPTY);
        }
      }
      this.options.budget.counters.loads++;
      this.options.budget.counters.loadMillis += performance.now() - started;
      return this.keep(user, state, p);
    } catch (error) {
      state.dead = true;
      throw error;
    }
  }

  /**
   * Between two slices of a load: a turn of the event loop, and for a background load also until
   * no read or request is in flight (at most a second), so a request that arrives meanwhile runs
   * whole before the next slice instead of waiting for one slice at each of its steps (a cold
   * recall has several: three engine reads, then ranking).
   */
  private async betweenSlices(state: Loading): Promise<void> {
    await new Promise((r) => setImmediate(r));
    const warmer = this.options.warmer;
    const until = performance.now() + 1000;
    while (state.background && warmer && !warmer.isQuiet(0) && performance.now() < until) await new Promise((r) => setTimeout(r, 1));
  }

  /** Holds a loaded end-user, with the writes committed while it loaded; none if it died meanwhile. */
  private keep(user: string, state: Loading, p: UserRows): UserRows | undefined {
    if (state.dead) return undefined;
    for (const w of state.pending) apply(p, w.rows, w.mode);
    this.users.set(user, p);
    this.options.budget.touch(this.budgetKey(user), p.bytes, () => this.evicted(user));
    return p;
  }

  /**
   * Learns which end-users the table holds now (one read of its user column, as the first cold
   * read would ask for in the background): on a 125k-row shard that read and its set take tens of
   * ms of the main thread, which a start-up pays before it listens (`LanceStore.warmUp`).
   */
  async warm(): Promise<void> {
    if (this.options.warmer) await this.scanUsers();
  }

  /** Like `neverHeld`, but only from what is known already (no scan): then loading costs nothing. */
  private knownNew(user: string): boolean {
    return !this.shared && this.scanned !== null && !this.scanned.has(user) && !this.written.has(user);
  }

  /** True when the table has certainly never held `user` (sole writer, user directory current). */
  private async neverHeld(user: string): Promise<boolean> {
    if (this.shared || this.written.has(user)) return false;
    if (!(await this.scanUsers())) return false;
    return !this.scanned!.has(user) && !this.written.has(user);
  }

  /** Reads the table's user column once (shared by concurrent callers); false when it may be stale (a rewrite or another writer meanwhile). */
  private async scanUsers(): Promise<boolean> {
    if (this.scanned) return true;
    const generation = this.generation;
    const scan = (this.keyScan ??= this.options.source.distinct(USER_COLUMN).catch(() => null));
    const users = await scan;
    if (this.keyScan === scan) this.keyScan = null;
    if (!users || generation !== this.generation || this.shared) return false;
    this.scanned = users;
    return true;
  }
}

const EMPTY = new Float32Array(0);
