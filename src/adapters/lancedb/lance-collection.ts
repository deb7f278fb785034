import type { Table } from "@lancedb/lancedb";
import type { FindOptions, Keyed, Scored, ScoreOptions, VersionedCollection } from "../../ports/collection.js";
import type { Condition } from "../../core/condition.js";
import { where } from "../../core/condition.js";
import type { WriteFence } from "../../ports/write-fence.js";
import type { Schema, Table as ArrowTable } from "apache-arrow";
import { rowsToArrow } from "./arrow-batch.js";
import { renderCondition } from "./filter.js";
import type { CommittedRow, HotRows } from "./hot-rows.js";
import type { PartitionHit } from "./partition.js";
import { pinnedValue, pinnedValues, rowFilter } from "./row-filter.js";
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
}

/** How a table is partitioned (e.g. by `user`), and the in-memory rows of hot partitions if cached (see `HotRows`). */
export interface HotRowsBinding {
  /** The column whose equality pins a partition (e.g. `user`). */
  partitionColumn: string;
  /** Absent when the cache is off. */
  rows?: HotRows;
  /** Besides `id`, columns whose `=` / `IN` reads are answered through a per-partition index (e.g. `trace_number`). */
  lookupColumns?: readonly string[];
}

type WritePayload<T> =
  | { rows: readonly T[]; ticket?: number }
  | { condition: Condition }
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

/** Up to this many end-users per commit, a write loads their cached rows to tell new ids from stored ones. */
const LOAD_FOR_WRITE_MAX_USERS = 8;

// FTS query text is reduced to words so user punctuation cannot become query syntax.
function ftsQuery(text: string): string {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).join(" ").slice(0, 4096);
}

/**
 * A `Collection` over one LanceDB table with a grouped write queue. With a hot-row binding, reads
 * whose condition pins one partition (`user = …`) are answered from memory — flat cosine scan,
 * in-memory BM25 with the index's analyzer, the same filter semantics — and writes update it.
 */
export class LanceCollection<T extends Keyed> implements VersionedCollection<T> {
  private readonly queue: WriteQueue<WritePayload<T>>;
  private schema: Schema | undefined;
  /** Held by erasure (`exclusive`) and maintenance (`maintain`): the two never rewrite the table at once. */
  private rewriting: Promise<void> = Promise.resolve();

  constructor(
    private readonly table: Table,
    private readonly codec: Codec<T>,
    private readonly onCommit: (rows: number) => void = () => {},
    private readonly hot?: HotRowsBinding,
    private readonly guards: CollectionGuards = {},
  ) {
    this.queue = new WriteQueue((group, payloads) => this.checkedCommit(group, payloads));
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

  /** The underlying LanceDB table (for maintenance). */
  get lanceTable(): Table {
    return this.table;
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
    return this.reading(() => this.findNow(condition, options));
  }

  private async findNow(condition: Condition, options: FindOptions): Promise<T[]> {
    const withVector = !options.withoutVector;
    const partition = await this.partitionFor(condition, withVector ? "vectors" : "rows");
    if (partition) {
      const keep = rowFilter(condition);
      for (const column of ["id", ...(this.hot?.lookupColumns ?? [])]) {
        const values = pinnedValues(condition, column);
        if (values) return partition.lookup(column, values, keep, options.limit, withVector).map((h) => this.decode(h, withVector));
      }
      return partition.filter(keep, options.limit, withVector).map((h) => this.decode(h, withVector));
    }
    const hot = this.hot?.rows;
    const ids = hot && (!withVector || hot.servesVectors) ? pinnedValues(condition, "id") : undefined;
    if (!ids || !hot || options.limit !== undefined) return this.engineFind(condition, options);
    // Lookups by id: rows held in memory are current, so only the others go to the engine.
    const { hits, missing } = await hot.byIds([...ids].map(String));
    const keep = rowFilter(condition);
    const found = hits.filter((h) => keep(h.row)).map((h) => this.decode(h, withVector));
    return missing.length === 0 ? found : [...found, ...(await this.engineFind(where.and(condition, where.in("id", missing)), options))];
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

  inMemory(condition: Condition): boolean {
    const rows = this.hot?.rows;
    const key = rows && this.hot ? pinnedValue(condition, this.hot.partitionColumn) : undefined;
    return rows !== undefined && typeof key === "string" && rows.held(key);
  }

  count(condition: Condition): Promise<number> {
    return this.reading(async () => {
      const partition = await this.partitionFor(condition, "rows");
      if (partition) return partition.count(rowFilter(condition));
      return this.table.countRows(renderCondition(condition));
    });
  }

  nearest(vector: Float32Array, condition: Condition, limit: number, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    return this.reading(() => this.nearestNow(vector, condition, limit, options));
  }

  private async nearestNow(vector: Float32Array, condition: Condition, limit: number, options: ScoreOptions): Promise<Scored<T>[]> {
    const column = this.codec.vectorColumn;
    if (!column) throw new Error("collection has no vector column");
    const partition = await this.partitionFor(condition, "vectors");
    if (partition) {
      const withVector = !options.withoutVector;
      const ids = pinnedValues(condition, "id");
      const hits = ids
        ? partition.nearestAmong(ids, vector, rowFilter(condition), limit, withVector)
        : partition.nearest(vector, rowFilter(condition), limit, withVector);
      return hits.map((h) => ({ row: this.decode(h, withVector), score: h.score }));
    }
    let q = this.table.vectorSearch(Array.from(vector)).column(column).distanceType("cosine").limit(limit);
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    // A filter that pins a partition selects few rows: an exact scan of them beats an ANN index
    // (which could also return fewer than `limit` rows after filtering).
    if (this.hot && pinnedValue(condition, this.hot.partitionColumn) !== undefined) q = q.bypassVectorIndex();
    if (options.withoutVector) q = q.select(this.storedColumnsWithoutVector());
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => ({ row: this.codec.fromRow(r), score: 1 - Number(r._distance) }));
  }

  match(text: string, condition: Condition, limit: number, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    return this.reading(() => this.matchNow(text, condition, limit, options));
  }

  private async matchNow(text: string, condition: Condition, limit: number, options: ScoreOptions): Promise<Scored<T>[]> {
    const query = ftsQuery(text);
    if (!this.codec.textColumn || query === "") return [];
    const partition = await this.partitionFor(condition, "match");
    if (partition) {
      const withVector = !options.withoutVector;
      return partition.match(query, rowFilter(condition), limit, withVector).map((h) => ({ row: this.decode(h, withVector), score: h.score }));
    }
    let q = this.table.query().fullTextSearch(query, { columns: [this.codec.textColumn] }).limit(limit);
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    if (options.withoutVector && this.codec.vectorColumn) q = q.select(this.storedColumnsWithoutVector());
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => ({ row: this.codec.fromRow(r), score: Number(r._score) }));
  }

  /**
   * Runs `work` on the engine table with no other write of this collection in between (erasure,
   * maintenance). Writes it makes bypass the hot rows, which drop what they cached on seeing them.
   */
  exclusive<R>(work: (table: Table) => Promise<R>): Promise<R> {
    return this.whileRewriting(() => this.queue.submit(null, { exclusive: work }));
  }

  /**
   * Runs background maintenance (`optimize`, index builds) on the engine table outside the write
   * queue, so writes go on meanwhile; the hot rows keep what they hold through the versions it
   * makes (see `HotRows.endMaintenance`).
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
    const rows = this.hot?.rows;
    const from = await this.table.version();
    rows?.beginMaintenance();
    try {
      return await work(this.table);
    } finally {
      const to = await this.table.version().catch(() => from);
      rows?.endMaintenance(from, to);
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

  private async engineFind(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    let q = this.table.query();
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    if (options.withoutVector && this.codec.vectorColumn) q = q.select(this.storedColumnsWithoutVector());
    if (options.limit !== undefined) q = q.limit(options.limit);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => this.codec.fromRow(r));
  }

  /** Every stored column but the vector (a projection that keeps the engine from reading vectors). */
  private storedColumnsWithoutVector(): string[] {
    return this.codec.columns.filter((c) => c !== this.codec.vectorColumn);
  }

  /** A read, counted as in flight so background loads of cold partitions wait for it. */
  private reading<R>(read: () => Promise<R>): Promise<R> {
    const rows = this.hot?.rows;
    return rows ? rows.reading(read) : read();
  }

  /**
   * The cached partition a condition pins, if it is held and can serve `need`; `undefined` → ask
   * the engine (a partition not held is loaded in the background, see `HotRows.cached`).
   */
  private async partitionFor(condition: Condition, need: "rows" | "vectors" | "match") {
    const rows = this.hot?.rows;
    if (!this.hot || !rows) return undefined;
    const key = pinnedValue(condition, this.hot.partitionColumn);
    if (typeof key !== "string") return undefined;
    if ((need === "vectors" && !rows.servesVectors) || (need === "match" && !rows.servesMatch)) return undefined;
    return rows.cached(key);
  }

  /**
   * A record from a cached row. Codecs build fresh objects and arrays from what they read, so
   * callers may mutate what they get; the vector is the hit's own copy (or empty).
   */
  private decode(hit: PartitionHit, withVector: boolean): T {
    if (!this.codec.vectorColumn) return this.codec.fromRow(hit.row);
    return this.codec.fromRow(hit.row, withVector ? hit.vector : new Float32Array(0));
  }

  /**
   * Records as one Arrow table of the table's own schema (built column by column, see
   * `rowsToArrow`), and as the rows the hot-row cache holds (the stored row minus the vector).
   */
  private async encode(
    records: readonly T[],
  ): Promise<{ data: ArrowTable; keys: string[]; partitionKeys: string[]; committed: (held: (key: string) => boolean) => CommittedRow[] }> {
    const rows = records.map((r) => this.codec.toRow(r));
    this.schema ??= await this.table.schema();
    const data = rowsToArrow(rows, this.schema);
    const column = this.codec.vectorColumn;
    const partition = this.hot?.partitionColumn ?? "";
    // Each record's partition (empty when the cache is off), and the distinct ones.
    const partitionKeys = this.hot?.rows ? rows.map((r) => String(r[partition])) : [];
    const keys = [...new Set(partitionKeys)];
    // The stored rows go to the held partitions as they are: a partition copies what it keeps
    // (its own row object without the vector, the vector into its matrix).
    const committed = (held: (key: string) => boolean) =>
      rows.flatMap((stored, i) => {
        if (!held(String(stored[partition]))) return [];
        const cell = column ? stored[column] : undefined;
        const vector = cell instanceof Float32Array ? cell : Float32Array.from((cell ?? []) as ArrayLike<number>);
        return [{ id: records[i].id, row: stored, vector }];
      });
    return { data, keys, partitionKeys, committed };
  }

  /**
   * The stored ids among these records' ids, when the hot rows can tell: every partition the
   * records fall in is held (loaded now if needed, for a few users) and current. `undefined` → ask the engine (merge).
   * Called inside the write queue, so no other write of this process lands in between; another
   * process appending the same new id at the same instant could still add it twice (see docs/operations.md).
   */
  private async storedIds(records: readonly T[], partitionKeys: readonly string[]): Promise<Set<string> | undefined> {
    const rows = this.hot?.rows;
    if (!rows || !rows.soleWriter || partitionKeys.length !== records.length) return undefined;
    const byKey = new Map<string, string[]>();
    records.forEach((r, i) => {
      const ids = byKey.get(partitionKeys[i]);
      if (ids) ids.push(r.id);
      else byKey.set(partitionKeys[i], [r.id]);
    });
    // A write for a few end-users loads their rows if needed; a batch spread over many users that
    // are not held merges instead (loading one partition per user would cost more than the merge).
    if (byKey.size > LOAD_FOR_WRITE_MAX_USERS && ![...byKey.keys()].every((key) => rows.held(key))) return undefined;
    const known = new Set<string>();
    for (const [key, ids] of byKey) {
      const partition = await rows.partition(key);
      if (!partition) return undefined;
      for (const id of ids) if (partition.has(id)) known.add(id);
    }
    return known;
  }

  /** Runs one engine write, telling the hot rows when it starts and what it committed. */
  private async tracked<R extends { version: number }>(write: () => Promise<R>, applied: (version: number) => void): Promise<R> {
    const rows = this.hot?.rows;
    rows?.beginCommit();
    let result: R;
    try {
      result = await write();
    } catch (error) {
      rows?.failed();
      throw error;
    }
    if (rows) applied(result.version);
    return result;
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
    const hot = this.hot?.rows;
    if (group === null && "exclusive" in payloads[0]) {
      // Maintenance changes no row: the hot rows keep what they hold (see `maintain`).
      if (payloads[0].keepsRows) return [await payloads[0].exclusive(this.table)];
      const from = await this.table.version();
      try {
        return [await payloads[0].exclusive(this.table)];
      } finally {
        hot?.rewritten(from, await this.table.version().catch(() => from));
      }
    }
    if (group === null && "ids" in payloads[0]) {
      const { ids, change, insert = [], ticket } = payloads[0];
      const changed = this.admitted((await this.get(ids)).map(change).filter((r): r is T => r !== undefined), ticket) as T[];
      // Rows to insert ride in the same commit as the change, so both land or neither does.
      const written = lastById([...this.admitted(insert, ticket), ...changed]);
      if (written.length > 0) {
        const { data, keys, committed } = await this.encode(written);
        const merge = () => this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
        await this.tracked(merge, (v) => hot?.committed(v, keys, committed, "upsert"));
      }
      return [changed];
    }
    if (group === null) {
      const { condition } = payloads[0] as { condition: Condition };
      const sql = renderCondition(condition) ?? "TRUE";
      const before = await this.table.countRows(sql);
      if (before > 0) {
        const key = this.hot ? pinnedValue(condition, this.hot.partitionColumn) : undefined;
        await this.tracked(() => this.table.delete(sql), (v) => hot?.deleted(v, key === undefined ? undefined : String(key)));
      }
      return [before];
    }
    const records = lastById(payloads.flatMap((p) => this.admitted((p as { rows: readonly T[] }).rows, (p as { ticket?: number }).ticket)));
    if (records.length === 0) return payloads.map(() => undefined);
    const { data, keys, committed, partitionKeys } = await this.encode(records);
    if (group === "append") {
      // Ids are new by construction: a plain append, no join against the stored ids.
      await this.tracked(
        () => this.table.add(data),
        (v) => hot?.committed(v, keys, committed, "insertNew"),
      );
      this.onCommit(records.length);
      return payloads.map(() => undefined);
    }
    const mode = group === "upsert" ? "upsert" : "insertNew";
    const known = await this.storedIds(records, partitionKeys);
    if (known) {
      // The hot rows hold every partition written: ids they lack are new, so those rows are a plain
      // append (no join against the stored ids); only rows that exist go through a merge.
      const fresh = records.filter((r) => !known.has(r.id));
      const stored = mode === "upsert" ? records.filter((r) => known.has(r.id)) : [];
      if (fresh.length > 0) {
        const batch = fresh.length === records.length ? { data, keys, committed } : await this.encode(fresh);
        await this.tracked(() => this.table.add(batch.data), (v) => hot?.committed(v, batch.keys, batch.committed, "insertNew"));
      }
      if (stored.length > 0) {
        const batch = await this.encode(stored);
        const merge = () => this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(batch.data);
        await this.tracked(merge, (v) => hot?.committed(v, batch.keys, batch.committed, "upsert"));
      }
      this.onCommit(records.length);
      return payloads.map(() => undefined);
    }
    const merge = this.table.mergeInsert("id");
    const builder = mode === "upsert" ? merge.whenMatchedUpdateAll().whenNotMatchedInsertAll() : merge.whenNotMatchedInsertAll();
    await this.tracked(
      () => builder.execute(data),
      (v) => hot?.committed(v, keys, committed, mode),
    );
    this.onCommit(records.length);
    return payloads.map(() => undefined);
  }
}
