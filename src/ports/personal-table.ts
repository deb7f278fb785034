/**
 * One of a tenant's tables that holds rows about end-users (it has a `user` column). Erasure and
 * export go through these, so a table added later is covered without touching them.
 */
export interface PersonalTable {
  /** The table kind (`memories`, `episodes`, `relations`, …). */
  readonly kind: string;
  /** Every row of the end-user as plain JSON values, without embedding vectors (a cache of the text). */
  rowsOf(user: string): Promise<Record<string, unknown>[]>;
  /** Deletes the end-user's rows so no byte of them stays on disk; returns how many records went (rows, or 1 for a record kept as revisions). */
  erase(user: string): Promise<number>;
}
