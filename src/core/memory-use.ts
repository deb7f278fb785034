import type { MemoryRecord } from "./records.js";

/**
 * How often and how lately one memory was used (recalled, searched, shown to `Process`), kept
 * apart from the memory row so recording a use never rewrites the row that holds the text and
 * vector. The memory row's own `last_accessed_at` / `access_count` stay the baseline (values
 * written before these records existed, or carried over by a rollup); a use record adds to it.
 */
export interface MemoryUseRecord {
  /** The memory's id. */
  id: string;
  /** The memory's end-user (so erasure and export cover these rows like every personal table). */
  user: string;
  /**
   * The `created_at` of the memory the uses were counted for: a memory deleted and stored again
   * under the same content-addressed id starts afresh instead of inheriting an old record.
   */
  memoryCreatedAt: number;
  /** Latest use, epoch ms. */
  lastAccessedAt: number;
  /** Uses recorded here (on top of the row's own `access_count`). */
  accessCount: number;
}

/** What a use is recorded against. */
export type UsedMemory = Pick<MemoryRecord, "id" | "user" | "createdAt">;

/** The use statistics a ranking and a reader see. */
export type UseFields = Pick<MemoryRecord, "id" | "createdAt" | "lastAccessedAt" | "accessCount">;

/** The record with `use` applied: latest of both times, counts added. A use of another life of the id is ignored. */
export function withUse<M extends UseFields>(record: M, use: Pick<MemoryUseRecord, "memoryCreatedAt" | "lastAccessedAt" | "accessCount"> | undefined): M {
  if (!use || use.memoryCreatedAt !== record.createdAt || use.accessCount <= 0) return record;
  return { ...record, lastAccessedAt: Math.max(record.lastAccessedAt, use.lastAccessedAt), accessCount: record.accessCount + use.accessCount };
}
