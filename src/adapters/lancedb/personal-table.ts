import type { Table } from "@lancedb/lancedb";
import type { Field } from "apache-arrow";
import { where } from "../../core/condition.js";
import type { PersonalTable } from "../../ports/personal-table.js";
import { arrow } from "./arrow.js";
import { renderCondition } from "./filter.js";
import { purgeRows } from "./purge.js";

/** The column that names the end-user a row is about. */
export const USER_COLUMN = "user";

/** Runs work on a table with no other write of this process in between. */
export type Exclusive = <R>(work: (table: Table) => Promise<R>) => Promise<R>;

/** An Arrow cell as a plain JSON value (lists become arrays, 64-bit integers numbers). */
function plain(value: unknown): unknown {
  if (value == null) return null;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>, plain);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && typeof (value as { toArray?: unknown }).toArray === "function") {
    return Array.from((value as { toArray(): ArrayLike<unknown> }).toArray(), plain);
  }
  return value;
}

/** Embedding vectors are fixed-size float lists; they are a cache of the text and left out. */
function isEmbedding(field: Field): boolean {
  return arrow.DataType.isFixedSizeList(field.type);
}

/** A `PersonalTable` over one LanceDB table. */
export class LancePersonalTable implements PersonalTable {
  /**
   * @param kind the table kind name
   * @param table the engine table (reads)
   * @param exclusive runs erasure with the table's other writes held back
   * @param tableDir the table's local directory, or null on object storage
   * @param oneRecordPerUser the end-user's rows are revisions of one record (`relations`): erasure counts one
   */
  constructor(
    readonly kind: string,
    private readonly table: Table,
    private readonly exclusive: Exclusive,
    private readonly tableDir: string | null,
    private readonly oneRecordPerUser = false,
  ) {}

  async rowsOf(user: string): Promise<Record<string, unknown>[]> {
    const fields = (await this.table.schema()).fields.filter((f) => !isEmbedding(f));
    const rows = (await this.table
      .query()
      .where(renderCondition(where.eq(USER_COLUMN, user)) ?? "FALSE")
      .select(fields.map((f) => f.name))
      .toArray()) as Record<string, unknown>[];
    return rows
      .map((r) => Object.fromEntries(fields.map((f) => [f.name, plain(r[f.name])])))
      .sort((a, b) => String(a.id).localeCompare(String(b.id)));
  }

  async erase(user: string): Promise<number> {
    const result = await this.exclusive((table) => purgeRows(table, where.eq(USER_COLUMN, user), this.tableDir));
    return this.oneRecordPerUser ? Math.min(result.deleted, 1) : result.deleted;
  }
}

/** True when a table's schema has the `user` column that marks rows about an end-user. */
export async function holdsEndUserRows(table: Table): Promise<boolean> {
  return (await table.schema()).fields.some((f) => f.name === USER_COLUMN);
}
