import type { EpisodeRecord, MemoryRecord } from "../core/records.js";
import type { Collection, PatchableCollection } from "./collection.js";

/** Storage for all tenants. Each tenant's rows live in their own physical tables. */
export interface Store {
  /** The embedding dimension tables are created with. */
  readonly dimension: number;
  memories(tenant: string): Promise<PatchableCollection<MemoryRecord>>;
  episodes(tenant: string): Promise<Collection<EpisodeRecord>>;
  /** Tenants that have tables. */
  tenants(): Promise<string[]>;
  /** Waits for queued writes, then releases resources. */
  close(): Promise<void>;
}
