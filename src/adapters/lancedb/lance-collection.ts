import type { Table } from "@lancedb/lancedb";
import type { FindOptions, Keyed, PatchableCollection, Scored } from "../../ports/collection.js";
import type { Condition } from "../../ports/condition.js";
import { where } from "../../ports/condition.js";
import { renderCondition } from "./filter.js";
import { WriteQueue } from "./write-queue.js";

/** How a record maps to and from a LanceDB row. */
export interface Codec<T> {
  toRow(record: T): Record<string, unknown>;
  fromRow(row: Record<string, unknown>): T;
  /** All stored columns (used to project away the vector). */
  columns: readonly string[];
  vectorColumn?: string;
  textColumn?: string;
}

type WritePayload<T> =
  | { rows: readonly T[] }
  | { condition: Condition }
  | { ids: readonly string[]; change: (row: T) => T | undefined; insert?: readonly T[] };

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

/** A `Collection` over one LanceDB table with a grouped write queue. */
export class LanceCollection<T extends Keyed> implements PatchableCollection<T> {
  private readonly queue: WriteQueue<WritePayload<T>>;

  constructor(
    private readonly table: Table,
    private readonly codec: Codec<T>,
    private readonly onCommit: (rows: number) => void = () => {},
  ) {
    this.queue = new WriteQueue((group, payloads) => this.commit(group, payloads));
  }

  /** Commit sizes so far (tasks per commit), for metrics and benches. */
  get groupSizes(): readonly number[] {
    return this.queue.groupSizes;
  }

  upsert(rows: readonly T[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.queue.submit("upsert", { rows });
  }

  insertNew(rows: readonly T[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.queue.submit("insertNew", { rows });
  }

  delete(condition: Condition): Promise<number> {
    return this.queue.submit(null, { condition });
  }

  patch(ids: readonly string[], change: (row: T) => T | undefined, insert: readonly T[] = []): Promise<T[]> {
    return ids.length === 0 && insert.length === 0 ? Promise.resolve([]) : this.queue.submit(null, { ids, change, insert });
  }

  async get(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    return this.find(where.in("id", ids));
  }

  async find(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    let q = this.table.query();
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    if (options.withoutVector && this.codec.vectorColumn) {
      q = q.select(this.codec.columns.filter((c) => c !== this.codec.vectorColumn) as string[]);
    }
    if (options.limit !== undefined) q = q.limit(options.limit);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => this.codec.fromRow(r));
  }

  async count(condition: Condition): Promise<number> {
    return this.table.countRows(renderCondition(condition));
  }

  async nearest(vector: Float32Array, condition: Condition, limit: number): Promise<Scored<T>[]> {
    const column = this.codec.vectorColumn;
    if (!column) throw new Error("collection has no vector column");
    let q = this.table.vectorSearch(Array.from(vector)).column(column).distanceType("cosine").limit(limit);
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => ({ row: this.codec.fromRow(r), score: 1 - Number(r._distance) }));
  }

  async match(text: string, condition: Condition, limit: number): Promise<Scored<T>[]> {
    const query = ftsQuery(text);
    if (!this.codec.textColumn || query === "") return [];
    let q = this.table.query().fullTextSearch(query, { columns: [this.codec.textColumn] }).limit(limit);
    const sql = renderCondition(condition);
    if (sql) q = q.where(sql);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => ({ row: this.codec.fromRow(r), score: Number(r._score) }));
  }

  /** Resolves when queued writes are durable. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async commit(group: string | null, payloads: WritePayload<T>[]): Promise<unknown[]> {
    if (group === null && "ids" in payloads[0]) {
      const { ids, change, insert = [] } = payloads[0];
      const changed = (await this.get(ids)).map(change).filter((r): r is T => r !== undefined);
      // Rows to insert ride in the same commit as the change, so both land or neither does.
      const written = lastById([...insert, ...changed]);
      if (written.length > 0) {
        await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(written.map((r) => this.codec.toRow(r)));
      }
      return [changed];
    }
    if (group === null) {
      const { condition } = payloads[0] as { condition: Condition };
      const sql = renderCondition(condition) ?? "TRUE";
      const before = await this.table.countRows(sql);
      if (before > 0) await this.table.delete(sql);
      return [before];
    }
    const rows = lastById(payloads.flatMap((p) => (p as { rows: readonly T[] }).rows)).map((r) =>
      this.codec.toRow(r),
    );
    const merge = this.table.mergeInsert("id");
    const builder = group === "upsert" ? merge.whenMatchedUpdateAll().whenNotMatchedInsertAll() : merge.whenNotMatchedInsertAll();
    await builder.execute(rows);
    this.onCommit(rows.length);
    return payloads.map(() => undefined);
  }
}
