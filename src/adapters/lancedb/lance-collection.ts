import type { Table } from "@lancedb/lancedb";
import type { FindOptions, Keyed, Scored, ScoreOptions, UserCollection } from "../../ports/collection.js";
import type { Condition, Scalar } from "../../core/condition.js";
import { where } from "../../core/condition.js";
import type { WriteFence } from "../../ports/write-fence.js";
import type { Schema, Table as ArrowTable } from "apache-arrow";
import { rowsToArrow } from "./arrow-batch.js";
import { columnCells } from "./arrow-cells.js";
import { type PackedColumns, packRow, unpackRow } from "./packed-row.js";
import { renderCondition } from "./filter.js";
import { type ColumnRow, lookupValues, rowFilter } from "../../core/row-filter.js";
import type { CacheableCollection, CommitObserver, LoadedRows, StoredRow, WriteHooks } from "../row-cache/source.js";
import { WriteQueue } from "./write-queue.js";
import type { DiskSpace } from "./disk-space.js";
import type { TableFsync } from "./table-fsync.js";

/** How a record maps to and from a LanceDB row. */
export interface Codec<T> {
  toRow(record: T): Record<string, unknown>;
  /** `vector`, when given, is the `vectorColumn` value (a cached row does not carry it). */
  fromRow(row: Record<string, unknown>, vector?: Float32Array): T;
  /** All stored columns (used to project away the vector). */
  columns: readonly string[];
  vectorColumn?: string;
  textColumn?: string;
  /** The kind keeps its row's other columns once more in one column, for reads of whole records (`packed-row.ts`). */
  packed?: PackedColumns;
}

/** The column `forUser` narrows reads to. */
const USER_COLUMN = "user";

type WritePayload<T> =
  | { rows: readonly T[]; ticket?: number }
  | { condition: Condition; user?: string }
  | { ids: readonly string[]; change: (row: T) => T | undefined; insert?: readonly T[]; ticket?: number }
  | { exclusive: (table: Table) => Promise<unknown>; keepsRows?: boolean };

/** What a collection checks around its commits. */
export interface CollectionGuards {
  /** The erase barrier asked before rows about an end-user of `tenant` land (see `WriteFence`). */
  fence?: { tenant: string; fence: WriteFence };
  /** Turns a commit failed for lack of space into `DISK_FULL`, and notes commits that succeed. */
  disk?: DiskSpace;
  /** With `AGENTMEM_DURABILITY=fsync`: makes each commit's files durable before it is acknowledged. */
  fsync?: TableFsync;
}

/** Keeps only the last row for each id, so one merge never sees a key twice. */
function lastById<T extends Keyed>(rows: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const r of rows) byId.set(r.id, r);
  return [...byId.values()];
}

// FTS query text is reduced to words so user punctuation cannot become query syntax.
function ftsQuery(text: string): string {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).join(" ").slice(0, 4096);
}

/**
 * A `Collection` over one LanceDB table with a grouped write queue: every read is an engine query,
 * every write one commit of a group. A cache layer may sit on top (`row-cache/CachedCollection`):
 * it subscribes with `observe` and is told of each commit, delete and rewrite.
 */
export class LanceCollection<T extends Keyed> implements CacheableCollection<T> {
  private readonly queue: WriteQueue<WritePayload<T>>;
  private schema: Schema | undefined;
  /** Held by erasure (`exclusive`) and maintenance (`maintain`): the two never rewrite the table at once. */
  private rewriting: Promise<void> = Promise.resolve();
  /** Told of every commit (a cache layer); none by default. */
  private observer: CommitObserver | undefined;
  private hooks: WriteHooks<T> = {};
  /** `performance.now()` of the last search or lookup a request made here (-Infinity: none yet). */
  private lastRead = -Infinity;

  constructor(
    private table: Table,
    private readonly codec: Codec<T>,
    private readonly onCommit: (rows: number) => void = () => {},
    private readonly guards: CollectionGuards = {},
    /** Indexed columns whose value names one row or a few (`id`, `turn_key`): a read restricted to some values is a lookup (`engineFind`). */
    private readonly keys: readonly string[] = [],
  ) {
    this.queue = new WriteQueue((group, payloads) => this.checkedCommit(group, payloads));
  }

  /** This collection itself: the engine under any cache layer (see `CachedCollection.engine`). */
  get engine(): LanceCollection<T> {
    return this;
  }

  observe(observer: CommitObserver, hooks: WriteHooks<T> = {}): void {
    if (this.observer) throw new Error(`table ${this.table.name} already has an observer`);
    this.observer = observer;
    this.hooks = hooks;
  }

  /** Commit sizes so far (tasks per commit), for metrics and benches. */
  get groupSizes(): readonly number[] {
    return this.queue.groupSizes;
  }

  /** Commits and the write calls they carried so far (monotonic). */
  get writeTotals(): Readonly<{ commits: number; tasks: number }> {
    return this.queue.totals;
  }

  /** The vector column, if the table has one. */
  get vectorColumn(): string | undefined {
    return this.codec.vectorColumn;
  }

  /** The full-text column, if the table has one. */
  get textColumn(): string | undefined {
    return this.codec.textColumn;
  }

  decode(row: Record<string, unknown>, vector?: Float32Array): T {
    return this.codec.fromRow(row, vector);
  }

  /** Milliseconds since a request last searched or looked up rows here (Infinity: never). */
  idleForMs(now = performance.now()): number {
    return now - this.lastRead;
  }

  /** The underlying LanceDB table (for maintenance). */
  get lanceTable(): Table {
    return this.table;
  }

  /**
   * Goes on with a handle of the same table opened on another connection (`LanceStore.renewSession`).
   * Work already started finishes on the old handle; everything after starts on the new one.
   */
  reopened(table: Table): void {
    if (table.name !== this.table.name) throw new Error(`reopened ${this.table.name} as ${table.name}`);
    this.table = table;
  }

  /**
   * Reads once through each index a request's reads use, on `table`: this collection's handle, or
   * a handle of the same table on a new connection before `reopened` hands it over. A sample row,
   * a lookup by each key column with its values, then for its end-user the open rows' full-text
   * and vector searches. What this loads into the handle's LanceDB session (index pages, file and
   * column metadata) a request would otherwise load: on a new session the first recalls on each
   * 125k-row shard took 50–180 ms against a p50 of 13–17 ms once loaded (1M memories, 8 shards, in
   * process, 2026-12-07; docs/operations.md "Warm sessions"). Reads only; the result is thrown away.
   */
  async warm(table: Table = this.table): Promise<void> {
    const reader = table === this.table ? this : new LanceCollection(table, this.codec, undefined, {}, this.keys);
    const [sample] = (await table.query().limit(1).toArray()) as Record<string, unknown>[];
    if (sample === undefined) return;
    const value = (column: string) => (typeof sample[column] === "string" || typeof sample[column] === "number" ? (sample[column] as Scalar) : undefined);
    for (const key of this.keys) {
      const v = value(key);
      if (v !== undefined) await reader.find(where.in(key, [v]));
    }
    const user = value(USER_COLUMN);
    const rows = user === undefined ? reader : reader.forUser(String(user));
    const open = "valid_to" in sample ? where.isNull("valid_to") : where.and();
    const text = this.codec.textColumn ? String(sample[this.codec.textColumn] ?? "") : "";
    if (text !== "") await rows.match(text, open, 30, { withoutVector: true });
    const vector = this.codec.vectorColumn ? sample[this.codec.vectorColumn] : undefined;
    if (vector && user !== undefined) await rows.nearest(Float32Array.from(vector as ArrayLike<number>), open, 30, { withoutVector: true });
  }

  upsert(rows: readonly T[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.queue.submit("upsert", { rows, ticket: this.ticket() });
  }

  insertNew(rows: readonly T[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.queue.submit("insertNew", { rows, ticket: this.ticket() });
  }

  append(rows: readonly T[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.queue.submit("append", { rows, ticket: this.ticket() });
  }

  delete(condition: Condition): Promise<number> {
    return this.queue.submit(null, { condition });
  }

  patch(ids: readonly string[], change: (row: T) => T | undefined, insert: readonly T[] = []): Promise<T[]> {
    return ids.length === 0 && insert.length === 0 ? Promise.resolve([]) : this.queue.submit(null, { ids, change, insert, ticket: this.ticket() });
  }

  async get(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    return this.find(where.in("id", ids));
  }

  find(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    return this.engineFind(condition, options);
  }

  async project(condition: Condition, columns: readonly string[]): Promise<Record<string, string | number | null>[]> {
    const sql = renderCondition(condition);
    const query = this.table.query().select([...columns]);
    const rows = (await (sql ? query.where(sql) : query).toArray()) as Record<string, unknown>[];
    return rows.map((r) => {
      const out: Record<string, string | number | null> = {};
      for (const c of columns) {
        const v = r[c];
        out[c] = typeof v === "bigint" ? Number(v) : typeof v === "number" || typeof v === "string" ? v : v == null ? null : String(v);
      }
      return out;
    });
  }

  count(condition: Condition): Promise<number> {
    return this.table.countRows(renderCondition(condition));
  }

  /** Scored rows may come with their vectors (`withoutVector` permits leaving them out). */
  nearest(vector: Float32Array, condition: Condition, limit: number, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    return this.nearestNow(vector, condition, limit, false, options);
  }

  /** `exact`: skip any vector index (a filter on one end-user selects few rows, see `forUser`). */
  private async nearestNow(vector: Float32Array, condition: Condition, limit: number, exact: boolean, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    this.lastRead = performance.now();
    const column = this.codec.vectorColumn;
    if (!column) throw new Error("collection has no vector column");
    let q = this.table.vectorSearch(Array.from(vector)).column(column).distanceType("cosine").limit(limit);
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    if (exact) q = q.bypassVectorIndex();
    // Without a packed column, `withoutVector` is not turned into a projection: a vector search that
    // named its 31 other columns took ~3 ms more per query on a 125k-row shard than one reading
    // every column (2026-12-06). Naming the four a packed table needs is faster than either.
    if (this.codec.packed) q = q.select([...this.recordColumns(!options.withoutVector), "_distance"]);
    return this.decoded(await q.toArrow(), (row, r) => ({ row, score: 1 - Number(r._distance) }));
  }

  async match(text: string, condition: Condition, limit: number, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    const query = ftsQuery(text);
    if (!this.codec.textColumn || query === "") return [];
    this.lastRead = performance.now();
    let q = this.table.query().fullTextSearch(query, { columns: [this.codec.textColumn] }).limit(limit);
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    if (this.codec.packed) q = q.select([...this.recordColumns(!options.withoutVector), "_score"]);
    else if (options.withoutVector && this.codec.vectorColumn) q = q.select([...this.storedColumnsWithoutVector(), "_score"]);
    return this.decoded(await q.toArrow(), (row, r) => ({ row, score: Number(r._score) }));
  }

  /** Reads and deletes narrowed to one end-user (`user = …` and'ed to every condition). */
  forUser(user: string): UserCollection<T> {
    const mine = (c: Condition) => where.and(where.eq(USER_COLUMN, user), c);
    return {
      user,
      get: (ids) => (ids.length === 0 ? Promise.resolve([]) : this.find(mine(where.in("id", ids)))),
      find: (c, options) => this.find(mine(c), options),
      project: (c, columns) => this.project(mine(c), columns),
      count: (c) => this.count(mine(c)),
      // One end-user's rows are few: an exact scan of them beats an ANN index (which could also
      // return fewer than `limit` rows after filtering).
      nearest: (vector, c, limit, options) => this.nearestNow(vector, mine(c), limit, true, options),
      match: (text, c, limit, options) => this.match(text, mine(c), limit, options),
      delete: (c) => this.queue.submit(null, { condition: mine(c), user }),
      inMemory: () => false,
    };
  }

  /** The vector dimension of the table (0 without a vector column). */
  async dimension(): Promise<number> {
    if (!this.codec.vectorColumn) return 0;
    if (this.dimensionOf === undefined) {
      const field = (await this.table.schema()).fields.find((f) => f.name === this.codec.vectorColumn);
      this.dimensionOf = (field?.type as { listSize?: number } | undefined)?.listSize ?? 0;
    }
    return this.dimensionOf;
  }

  private dimensionOf: number | undefined;

  async load(column: string, value: string, limit: number, withVectors: boolean): Promise<LoadedRows> {
    const filter = renderCondition(where.eq(column, value)) ?? "";
    let query = this.table.query().where(filter).limit(limit + 1);
    const vectorColumn = this.codec.vectorColumn;
    if (!withVectors && vectorColumn) query = query.select(this.storedColumnsWithoutVector());
    else if (this.codec.packed) query = query.select(this.codec.columns.filter((c) => c !== this.codec.packed?.column));
    const table = await query.toArrow();
    // An empty result may come without a schema: take the columns from the table.
    const schema = table.numRows > 0 ? table.schema : await this.table.schema();
    const columns = schema.fields.map((f) => f.name).filter((n) => n !== vectorColumn && n !== this.codec.packed?.column);
    // Column-wise decoding: iterating a column is far cheaper than `get(i)` per cell.
    const cells = columns.map((c) => columnCells(table.getChild(c)));
    const dimension = withVectors ? await this.dimension() : 0;
    const vectors = dimension > 0 && vectorColumn ? flatVectors(table.getChild(vectorColumn), dimension) : EMPTY_VECTOR;
    const rows: Record<string, unknown>[] = new Array(table.numRows);
    for (let i = 0; i < table.numRows; i++) {
      const row: Record<string, unknown> = {};
      for (let j = 0; j < columns.length; j++) row[columns[j]] = cells[j][i] ?? null;
      rows[i] = row;
    }
    return { rows, vectors };
  }

  async distinct(column: string): Promise<Set<string>> {
    const table = await this.table.query().select([column]).toArrow();
    const values = new Set<string>();
    for (const value of table.getChild(column) ?? []) if (value !== null && value !== undefined) values.add(String(value));
    return values;
  }

  /**
   * Runs `work` on the engine table with no other write of this collection in between (erasure,
   * maintenance). The observer is told the versions it made (`rewritten`).
   */
  exclusive<R>(work: (table: Table) => Promise<R>): Promise<R> {
    return this.whileRewriting(() => this.queue.submit(null, { exclusive: work }));
  }

  /**
   * Runs background maintenance (`optimize`, index builds) on the engine table outside the write
   * queue, so writes go on meanwhile; the observer is told when it starts and which versions it
   * made (they change no row, so a cache keeps what it holds).
   */
  maintain<R>(work: (table: Table) => Promise<R>): Promise<R> {
    return this.whileRewriting(() => this.maintainNow(work));
  }

  /** Runs `work` once no other erasure or maintenance of this table runs, holding them off meanwhile. */
  private whileRewriting<R>(work: () => Promise<R>): Promise<R> {
    const run = this.rewriting.then(work);
    this.rewriting = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The calling write's erase-barrier ticket. */
  private ticket(): number | undefined {
    return this.guards.fence?.fence.ticket();
  }

  /** Rows the erase barrier lets land: none about an end-user erased after the write began. */
  private admitted(rows: readonly T[], ticket: number | undefined): readonly T[] {
    const fence = this.guards.fence;
    if (!fence) return rows;
    const out = rows.filter((r) => fence.fence.admits(fence.tenant, String((r as { user?: unknown }).user ?? ""), ticket));
    return out.length === rows.length ? rows : out;
  }

  private async maintainNow<R>(work: (table: Table) => Promise<R>): Promise<R> {
    const observer = this.observer;
    const from = await this.table.version();
    observer?.maintenanceStarted();
    try {
      return await work(this.table);
    } finally {
      const to = await this.table.version().catch(() => from);
      observer?.maintenanceEnded(from, to);
    }
  }

  /**
   * `maintain`, with this collection's writes held back until it finishes: a compaction that a
   * write of this process already preempted once runs again here and cannot be preempted by one.
   */
  maintainExclusive<R>(work: (table: Table) => Promise<R>): Promise<R> {
    // Same lock order as `exclusive` (rewrite lock, then the write queue), so an erasure waiting for
    // the queue and this pass waiting for the rewrite lock never hold each other up.
    return this.whileRewriting(() => this.queue.submit(null, { exclusive: (table) => this.maintainNow(() => work(table)), keepsRows: true }));
  }

  version(): Promise<number> {
    return this.table.version();
  }

  /** Milliseconds the engine commit in flight has been running; 0 when none is. */
  commitAgeMs(now?: number): number {
    return this.queue.commitAgeMs(now);
  }

  /** Resolves when queued writes are durable. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * A condition that restricts a key column (`id IN …`, `turn_key IN …`) goes to the engine as that
   * lookup alone, and the rest of it (the end-user, open rows, scope, tags) is applied to the rows
   * found: on a 125k-row shard the lookup of ~40 neighbours took 6.0 ms p50 alone against 7.8 ms
   * with `user = … AND valid_to IS NULL …` beside it, which makes the engine intersect the user's
   * btree postings and read the refine columns (1M memories, in process, 2026-12-07).
   */
  private async engineFind(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    this.lastRead = performance.now();
    let q = this.table.query();
    const lookup = this.keyLookup(condition);
    if (lookup !== undefined && lookup.values.size === 0) return [];
    const key = lookup?.key;
    const sql = renderCondition(lookup === undefined ? condition : where.in(lookup.key, [...lookup.values]));
    if (sql) q = q.where(sql);
    if (this.codec.packed) q = q.select(this.recordColumns(!options.withoutVector));
    else if (options.withoutVector && this.codec.vectorColumn) q = q.select(this.storedColumnsWithoutVector());
    if (key === undefined) {
      if (options.limit !== undefined) q = q.limit(options.limit);
      return this.decoded(await q.toArrow(), (row) => row);
    }
    const rows = await this.decoded(await q.toArrow(), (row) => row, rowFilter(condition));
    return options.limit === undefined ? rows : rows.slice(0, options.limit);
  }

  /** The first key column `condition` restricts, with the values it allows. */
  private keyLookup(condition: Condition): { key: string; values: ReadonlySet<Scalar> } | undefined {
    for (const key of this.keys) {
      const values = lookupValues(condition, key);
      if (values !== undefined) return { key, values };
    }
    return undefined;
  }

  /** What a read of whole records selects from a table with a packed column: it, the direct columns, and the vector when wanted. */
  private recordColumns(withVector: boolean): string[] {
    const packed = this.codec.packed!;
    const vector = withVector && this.codec.vectorColumn ? [this.codec.vectorColumn] : [];
    return [...packed.direct, packed.column, ...vector];
  }

  /**
   * Records from an engine result, decoded column by column: `toArray()` hands out Arrow row
   * proxies whose every cell read goes through a getter, which cost a recall's three engine reads
   * ~5 ms more than the queries themselves (100k rows, 2026-12-05). `make` gets each record and
   * its cells (for `_distance` / `_score`); `keep`, when given, sees the cells first. A packed
   * column is unpacked into the cells; rows without it (stored before it existed, or by an older
   * release beside this one) are read again whole, by id, in one more read.
   */
  private async decoded<R>(table: ArrowTable, make: (record: T, cells: Record<string, unknown>) => R, keep?: (cells: ColumnRow) => boolean): Promise<R[]> {
    const { rows, vectors } = this.cellsOf(table);
    const packed = this.codec.packed;
    const unpacked = packed !== undefined && table.schema.fields.some((f) => f.name === packed.column);
    const full = unpacked ? rows.map((cells) => this.unpacked(cells, packed)) : [];
    const missing = unpacked ? rows.filter((_, i) => full[i] === undefined).map((r) => String(r.id)) : [];
    const whole = missing.length > 0 ? await this.wholeRows(missing, vectors !== undefined) : undefined;
    const out: R[] = [];
    rows.forEach((cells, i) => {
      let row = cells;
      let vector = vectors?.[i];
      if (unpacked) {
        const stored = full[i] === undefined ? whole?.get(String(cells.id)) : undefined;
        if (full[i] === undefined && stored === undefined) return; // deleted between the two reads
        if (stored) {
          row = { ...stored.row, ...cells };
          delete row[packed.column];
        } else row = full[i]!;
        vector = stored?.vector ?? vector;
      }
      if (keep && !keep(row)) return;
      out.push(make(this.codec.fromRow(row, vector), row));
    });
    return out;
  }

  /** A row's cells with its packed columns unpacked; undefined when it has no packed copy (or one that does not parse). */
  private unpacked(cells: Record<string, unknown>, packed: PackedColumns): Record<string, unknown> | undefined {
    const json = cells[packed.column];
    if (typeof json !== "string") return undefined;
    try {
      return unpackRow(json, packed, cells);
    } catch {
      return undefined;
    }
  }

  /** Every row of `ids` with every column (and its vector when `withVector`), by id. */
  private async wholeRows(ids: readonly string[], withVector: boolean): Promise<Map<string, { row: Record<string, unknown>; vector?: Float32Array }>> {
    let q = this.table.query().where(renderCondition(where.in("id", ids))!);
    if (!withVector && this.codec.vectorColumn) q = q.select(this.storedColumnsWithoutVector());
    const { rows, vectors } = this.cellsOf(await q.toArrow());
    return new Map(rows.map((row, i) => [String(row.id), { row, vector: vectors?.[i] }]));
  }

  /** The cells of each result row (lists as arrays, SQL NULL as null) and, when read, each row's own copy of its vector. */
  private cellsOf(table: ArrowTable): { rows: Record<string, unknown>[]; vectors?: Float32Array[] } {
    const n = table.numRows;
    if (n === 0) return { rows: [] };
    const vectorColumn = this.codec.vectorColumn;
    const columns = table.schema.fields.map((f) => f.name).filter((name) => name !== vectorColumn);
    const cells = columns.map((c) => columnCells(table.getChild(c)));
    const vectorField = vectorColumn ? table.schema.fields.find((f) => f.name === vectorColumn) : undefined;
    const dimension = (vectorField?.type as { listSize?: number } | undefined)?.listSize ?? 0;
    const flat = vectorField && dimension > 0 ? flatVectors(table.getChild(vectorColumn!), dimension) : undefined;
    const rows: Record<string, unknown>[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const row: Record<string, unknown> = {};
      for (let j = 0; j < columns.length; j++) row[columns[j]] = cells[j][i] ?? null;
      rows[i] = row;
    }
    // Each record gets its own copy: callers may keep one vector and drop the rest.
    const vectors = flat ? Array.from({ length: n }, (_, i) => flat.slice(i * dimension, (i + 1) * dimension)) : undefined;
    return { rows, vectors };
  }

  /** Every stored column but the vector (a projection that keeps the engine from reading vectors). */
  private storedColumnsWithoutVector(): string[] {
    return this.codec.columns.filter((c) => c !== this.codec.vectorColumn && c !== this.codec.packed?.column);
  }

  /**
   * Records as one Arrow table of the table's own schema (built column by column, see
   * `rowsToArrow`), and as stored rows (for the observer and the known-ids hook).
   */
  private async encode(records: readonly T[]): Promise<{ data: ArrowTable; stored: StoredRow[] }> {
    const rows = records.map((r) => this.codec.toRow(r));
    this.schema ??= await this.table.schema();
    return { data: this.arrowOf(rows), stored: rows.map((row, i) => ({ id: records[i].id, row })) };
  }

  /** Stored rows as one Arrow table of the table's schema, with their packed copy (which goes to the engine only; the observer keeps the columns). */
  private arrowOf(rows: readonly Record<string, unknown>[]): ArrowTable {
    const packed = this.codec.packed;
    return rowsToArrow(rows, this.schema!, packed ? { [packed.column]: rows.map((row) => packRow(row, packed)) } : {});
  }

  /** Runs one engine write, telling the observer when it starts and what it committed. */
  private async tracked<R extends { version: number }>(write: () => Promise<R>, applied: (observer: CommitObserver, version: number) => void): Promise<R> {
    const observer = this.observer;
    observer?.commitStarted();
    let result: R;
    try {
      result = await write();
    } catch (error) {
      observer?.commitFailed();
      throw error;
    }
    if (observer) applied(observer, result.version);
    return result;
  }

  /** Rows by id for a patch: those a cache layer holds (`byIds` hook), the rest from the table. */
  private async rowsForPatch(ids: readonly string[]): Promise<T[]> {
    if (!this.hooks.byIds || ids.length === 0) return this.get(ids);
    const { found, missing } = await this.hooks.byIds(ids);
    return missing.length === 0 ? found : [...found, ...(await this.get(missing))];
  }

  /** One commit (fsynced when asked), with a full volume reported as `DISK_FULL` and a success noted. */
  private async checkedCommit(group: string | null, payloads: WritePayload<T>[]): Promise<unknown[]> {
    const { disk, fsync } = this.guards;
    try {
      const out = await this.commit(group, payloads);
      await fsync?.sync();
      disk?.succeeded();
      return out;
    } catch (error) {
      throw disk ? disk.translate(error) : error;
    }
  }

  private async commit(group: string | null, payloads: WritePayload<T>[]): Promise<unknown[]> {
    if (group === null && "exclusive" in payloads[0]) {
      // Maintenance changes no row: the observer keeps what it holds (see `maintain`).
      if (payloads[0].keepsRows) return [await payloads[0].exclusive(this.table)];
      const from = await this.table.version();
      try {
        return [await payloads[0].exclusive(this.table)];
      } finally {
        this.observer?.rewritten(from, await this.table.version().catch(() => from));
      }
    }
    if (group === null && "ids" in payloads[0]) {
      const { ids, change, insert = [], ticket } = payloads[0];
      const changed = this.admitted((await this.rowsForPatch(ids)).map(change).filter((r): r is T => r !== undefined), ticket) as T[];
      // Rows to insert ride in the same commit as the change, so both land or neither does.
      const written = lastById([...this.admitted(insert, ticket), ...changed]);
      if (written.length > 0) {
        const { data, stored } = await this.encode(written);
        const merge = () => this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
        await this.tracked(merge, (o, v) => o.committed(v, stored, "upsert"));
      }
      return [changed];
    }
    if (group === null) {
      const { condition, user } = payloads[0] as { condition: Condition; user?: string };
      const sql = renderCondition(condition) ?? "TRUE";
      const before = await this.table.countRows(sql);
      if (before > 0) await this.tracked(() => this.table.delete(sql), (o, v) => o.deleted(v, user));
      return [before];
    }
    const records = lastById(payloads.flatMap((p) => this.admitted((p as { rows: readonly T[] }).rows, (p as { ticket?: number }).ticket)));
    if (records.length === 0) return payloads.map(() => undefined);
    const { data, stored } = await this.encode(records);
    if (group === "append") {
      // Ids are new by construction: a plain append, no join against the stored ids.
      await this.tracked(
        () => this.table.add(data),
        (o, v) => o.committed(v, stored, "insertNew"),
      );
      this.onCommit(records.length);
      return payloads.map(() => undefined);
    }
    const mode = group === "upsert" ? "upsert" : "insertNew";
    const known = await this.hooks.knownIds?.(stored);
    if (known) {
      // The cache holds every end-user written: ids it lacks are new, so those rows are a plain
      // append (no join against the stored ids); only rows that exist go through a merge.
      const fresh = stored.filter((r) => !known.has(r.id));
      const existing = mode === "upsert" ? stored.filter((r) => known.has(r.id)) : [];
      if (fresh.length > 0) {
        const batch = fresh.length === stored.length ? data : this.arrowOf(fresh.map((r) => r.row));
        await this.tracked(() => this.table.add(batch), (o, v) => o.committed(v, fresh, "insertNew"));
      }
      if (existing.length > 0) {
        const batch = this.arrowOf(existing.map((r) => r.row));
        const merge = () => this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(batch);
        await this.tracked(merge, (o, v) => o.committed(v, existing, "upsert"));
      }
      this.onCommit(records.length);
      return payloads.map(() => undefined);
    }
    const merge = this.table.mergeInsert("id");
    const builder = mode === "upsert" ? merge.whenMatchedUpdateAll().whenNotMatchedInsertAll() : merge.whenNotMatchedInsertAll();
    await this.tracked(
      () => builder.execute(data),
      (o, v) => o.committed(v, stored, mode),
    );
    this.onCommit(records.length);
    return payloads.map(() => undefined);
  }
}

const EMPTY_VECTOR = new Float32Array(0);

/** A fixed-size-list Float32 column as one flat array (row i at i·dimension). */
function flatVectors(column: { data: readonly FixedListData[]; length: number } | null, dimension: number): Float32Array {
  const out = new Float32Array((column?.length ?? 0) * dimension);
  let row = 0;
  for (const chunk of column?.data ?? []) {
    const child = chunk.children[0];
    const start = child.offset + chunk.offset * dimension;
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
