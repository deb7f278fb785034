/** One held end-user (of one table) as the budget sees it. */
interface Entry {
  bytes: number;
  evict: () => void;
}

/** Counters of the hot-row cache, for logs and metrics (monotonic unless noted). */
export interface CacheCounters {
  /** Reads answered from memory. */
  hits: number;
  /** End-users loaded from the engine. */
  loads: number;
  /** End-users started empty without a scan: a user the table has never held (a new end-user). */
  fresh: number;
  /** Milliseconds spent loading end-users. */
  loadMillis: number;
  /** Pinned reads answered by the engine because the end-user's rows were not held (each asks the warmer for a load). */
  coldReads: number;
  /** End-users loaded in the background after a cold read (see `Warmer`). */
  warms: number;
  /** Background loads not made: queue full, not admitted by the budget, no longer wanted, or failed. */
  warmsSkipped: number;
  /** Reads for one end-user sent to the engine (user too large, or not held and no warmer). */
  bypasses: number;
  /** Times a table's held users were dropped because of a version this process did not write. */
  invalidations: number;
  /** End-users evicted to stay within the byte budget. */
  evictions: number;
  /** Gauge: end-users held now (per table; the `/metrics` name stays `partitions`). */
  partitions: number;
  /** Gauge: estimated bytes held now. */
  bytes: number;
}

/**
 * The process-wide byte budget of the row cache: least-recently-used held users (across all
 * tables and tenants) are evicted when the estimated total passes `maxBytes`.
 */
export class CacheBudget {
  private readonly entries = new Map<string, Entry>();
  private total = 0;
  readonly counters: CacheCounters = { hits: 0, loads: 0, coldReads: 0, warms: 0, warmsSkipped: 0, fresh: 0, loadMillis: 0, bypasses: 0, invalidations: 0, evictions: 0, partitions: 0, bytes: 0 };

  constructor(readonly maxBytes: number) {}

  /** Marks an entry as just used (inserting it) with its current size, then evicts over budget. */
  touch(key: string, bytes: number, evict: () => void): void {
    const old = this.entries.get(key);
    if (old) {
      this.total -= old.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, { bytes, evict });
    this.total += bytes;
    while (this.total > this.maxBytes && this.entries.size > 1) {
      const [oldest, entry] = this.entries.entries().next().value as [string, Entry];
      if (oldest === key) break;
      this.forget(oldest);
      entry.evict();
      this.counters.evictions++;
    }
    this.publish();
  }

  /** Whether `bytes` more fit without evicting anyone. */
  fits(bytes: number): boolean {
    return this.total + bytes <= this.maxBytes;
  }

  /** The key evicted next (least recently used), if any. */
  victim(): string | undefined {
    return this.entries.keys().next().value;
  }

  /** Updates an entry's size without changing its recency. */
  resize(key: string, bytes: number): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.total += bytes - e.bytes;
    e.bytes = bytes;
    this.publish();
  }

  /** Drops an entry (its owner already let go of it). */
  forget(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.total -= e.bytes;
    this.entries.delete(key);
    this.publish();
  }

  private publish(): void {
    this.counters.partitions = this.entries.size;
    this.counters.bytes = this.total;
  }
}
