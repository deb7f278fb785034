import type { Logger } from "pino";
import type { Store } from "../../ports/store.js";

/** Marks written per commit. */
const FLUSH_SLICE = 500;

/** Options for the access tracker. */
export interface AccessTrackerOptions {
  /** Flush interval in ms (default 30,000). 0 disables the timer (flush by hand). */
  intervalMs?: number;
}

/**
 * Buffers "this memory was recalled" marks and writes them in one grouped patch per tenant, so
 * recall never waits for a write. Decay reads `last_accessed_at`, so half a minute of lag is fine.
 */
export class AccessTracker {
  private pending = new Map<string, Map<string, { at: number; count: number }>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly options: AccessTrackerOptions = {},
  ) {}

  /** Starts the periodic flush. */
  start(): void {
    // Each flush rewrites the touched rows (a merge on `id`, and the hot rows update them): fewer,
    // larger flushes disturb recall less often; decay does not need fresher marks than this.
    const ms = this.options.intervalMs ?? 30_000;
    if (ms > 0 && !this.timer) {
      this.timer = setInterval(() => void this.flush(), ms);
      this.timer.unref();
    }
  }

  /** Marks memories as used at `at` (epoch ms). */
  touch(tenant: string, ids: readonly string[], at: number): void {
    let m = this.pending.get(tenant);
    if (!m) this.pending.set(tenant, (m = new Map()));
    for (const id of ids) {
      const e = m.get(id);
      m.set(id, { at: Math.max(at, e?.at ?? 0), count: (e?.count ?? 0) + 1 });
    }
  }

  /** Writes every buffered mark. */
  async flush(): Promise<void> {
    const batches = this.pending;
    this.pending = new Map();
    const started = performance.now();
    let written = 0;
    for (const [tenant, marks] of batches) {
      try {
        const memories = await this.store.memories(tenant);
        const ids = [...marks.keys()];
        // In slices: rewriting thousands of rows in one go is a long synchronous stretch (Arrow
        // encoding, the cached rows) that recalls arriving meanwhile would wait out.
        for (let from = 0; from < ids.length; from += FLUSH_SLICE) {
          await memories.patch(ids.slice(from, from + FLUSH_SLICE), (row) => {
            const mark = marks.get(row.id);
            return mark ? { ...row, lastAccessedAt: Math.max(row.lastAccessedAt, mark.at), accessCount: row.accessCount + mark.count } : undefined;
          });
        }
        written += ids.length;
      } catch (error) {
        this.logger.warn({ tenant, err: String(error) }, "access marks not written");
      }
    }
    if (written > 0) this.logger.debug({ rows: written, millis: Math.round(performance.now() - started) }, "access marks written");
  }

  /** Stops the timer and flushes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
