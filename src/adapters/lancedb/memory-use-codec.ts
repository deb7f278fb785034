import type { Schema } from "apache-arrow";
import type { MemoryUseRecord } from "../../core/memory-use.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

/** The `memory_use` table schema: per memory, its recorded uses (no text, no vector). */
export function memoryUseSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("user"),
    col.float("memory_created_at"),
    col.float("last_accessed_at"),
    col.float("access_count"),
  ]);
}

/** Maps `MemoryUseRecord` ↔ row. */
export const memoryUseCodec: Codec<MemoryUseRecord> = {
  columns: memoryUseSchema().fields.map((f) => f.name),
  toRow: (u) => ({
    id: u.id,
    user: u.user,
    memory_created_at: u.memoryCreatedAt,
    last_accessed_at: u.lastAccessedAt,
    access_count: u.accessCount,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    user: String(r.user ?? ""),
    memoryCreatedAt: Number(r.memory_created_at),
    lastAccessedAt: Number(r.last_accessed_at),
    accessCount: Number(r.access_count ?? 0),
  }),
};
