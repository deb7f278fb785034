import type { Logger } from "pino";
import type { MemoryRecord } from "../../core/records.js";
import type { Store } from "../../ports/store.js";

/** Marks written per commit. */
const FLUSH_SLICE = 500;

/** Options for the access tracker. */
export interface AccessTrackerOptions {
  /** How often buffered marks are considered for writing, in ms (default 1,000). 0 disables the timer (flush by hand). */
  checkMs?: number;
  /** Marks are written once no recall has touched any for this long, in ms (default 2,000). */
  quietMs?: number;
  /** …or at the latest once the oldest buffered mark is this old, in ms (default 300,000). */
  maxDelayMs?: number;
  /** …or once this many are buffered (default 50,000). */
  maxPending?: number;
}

interface Mark {
  at: number;
  count: number;
}

/**
 * Buffers "this memory was recalled" marks and writes them in grouped patches per tenant, so
 * recall never waits for a write.
 *
 * Writing marks rewrites whole rows (vectors included) and leaves deletions that the next
 * compaction folds away: measured at 100k rows, a 14k-mark flush under recall load took 2–6 s of
 * shared CPU (with `optimize` retrying on the conflicting commits) and doubled recall p50 while it
 * ran. So marks wait for a quiet moment — no recall for `quietMs` — and are written then, or
 * anyway after `maxDelayMs` or `maxPending` marks; a row touched many times meanwhile is rewritten
 * once. Readers do not see the lag: `current` overlays buffered marks on records handed out, and
 * `flush(tenant)` runs before anything filters on `last_accessed_at` (Forget `unused_for_days`).
 * Decay's 30-day half-life does not need fresher stored marks than that.
 */
export class AccessTracker {
  private pending = new Map<string, Map<string, Mark>>();
  /** Marks of the flush running, per tenant, until their slice is committed. */
  private readonly writing = new Map<string, Map<string, Mark>>();
  private size = 0;
  /** `performance.now()` of the oldest buffered mark and of the latest touch. */
  private oldest = 0;
  private latest = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private running = false;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly options: AccessTrackerOptions = {},
  ) {}

  /** Starts the periodic check. */
  start(): void {
    const ms = this.options.checkMs ?? 1_000;
    if (ms > 0 && !this.timer) {
      this.timer = setInterval(() => this.check(performance.now()), ms);
      this.timer.unref();
    }
  }

  /** Writes buffered marks when due: politely once recall is quiet, in full when they waited too long. */
  private check(now: number): void {
    if (this.size === 0 || this.running) return;
    const overdue = now - this.oldest >= (this.options.maxDelayMs ?? 300_000) || this.size >= (this.options.maxPending ?? 50_000);
    if (overdue) void this.flush();
    else if (now - this.latest >= (this.options.quietMs ?? 2_000)) void this.enqueue(undefined, true);
  }

  /** Marks memories as used at `at` (epoch ms). */
  touch(tenant: string, ids: readonly string[], at: number): void {
    if (ids.length === 0) return;
    const now = performance.now();
    if (this.size === 0) this.oldest = now;
    this.latest = now;
    let m = this.pending.get(tenant);
    if (!m) this.pending.set(tenant, (m = new Map()));
    for (const id of ids) {
      const e = m.get(id);
      if (e) {
        e.at = Math.max(at, e.at);
        e.count++;
      } else {
        m.set(id, { at, count: 1 });
        this.size++;
      }
    }
  }

  /** The record with its buffered marks applied (what it will read once they are written). */
  current<M extends Pick<MemoryRecord, "id" | "lastAccessedAt" | "accessCount">>(tenant: string, record: M): M {
    return applyMark(applyMark(record, this.writing.get(tenant)?.get(record.id)), this.pending.get(tenant)?.get(record.id));
  }

  /**
   * Writes every buffered mark (of one tenant, when named), after any flush already running, so
   * when it resolves every mark buffered before the call is stored.
   */
  flush(tenant?: string): Promise<void> {
    return this.enqueue(tenant, false);
  }

  private enqueue(tenant: string | undefined, polite: boolean): Promise<void> {
    const run = this.flushing.then(() => this.write(tenant, polite));
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /**
   * One flush. A polite one stops between slices as soon as a recall touches anything and hands
   * the marks it has not written back to the buffer, so a burst of recalls does not share the CPU
   * with a rewrite that could as well wait.
   */
  private async write(only: string | undefined, polite: boolean): Promise<void> {
    const batches = new Map<string, Map<string, Mark>>();
    for (const [tenant, marks] of this.pending) {
      if (only !== undefined && tenant !== only) continue;
      batches.set(tenant, marks);
      this.pending.delete(tenant);
      this.size -= marks.size;
    }
    const oldest = this.oldest;
    if (this.size === 0) this.oldest = performance.now();
    const started = performance.now();
    const interrupted = () => polite && this.latest > started;
    let written = 0;
    this.running = true;
    try {
      for (const [tenant, marks] of batches) {
        try {
          this.writing.set(tenant, marks);
          const memories = await this.store.memories(tenant);
          const ids = [...marks.keys()];
          // In slices: rewriting thousands of rows in one go is a long synchronous stretch (Arrow
          // encoding, the cached rows) that recalls arriving meanwhile would wait out.
          for (let from = 0; from < ids.length && !interrupted(); from += FLUSH_SLICE) {
            const slice = ids.slice(from, from + FLUSH_SLICE);
            await memories.patch(slice, (row) => {
              const mark = marks.get(row.id);
              return mark ? applyMark(row, mark) : undefined;
            });
            for (const id of slice) marks.delete(id);
            written += slice.length;
          }
        } catch (error) {
          this.logger.warn({ tenant, err: String(error) }, "access marks not written");
          marks.clear();
        } finally {
          this.writing.delete(tenant);
        }
        if (marks.size > 0) this.putBack(tenant, marks, oldest);
      }
    } finally {
      this.running = false;
    }
    if (written > 0) {
      this.logger.debug({ rows: written, left: this.size, millis: Math.round(performance.now() - started), polite }, "access marks written");
    }
  }

  /** Returns unwritten marks to the buffer, merged with any that arrived since. */
  private putBack(tenant: string, marks: Map<string, Mark>, since: number): void {
    if (this.size === 0 || since < this.oldest) this.oldest = since;
    let m = this.pending.get(tenant);
    if (!m) this.pending.set(tenant, (m = new Map()));
    for (const [id, mark] of marks) {
      const e = m.get(id);
      if (e) {
        e.at = Math.max(e.at, mark.at);
        e.count += mark.count;
      } else {
        m.set(id, mark);
        this.size++;
      }
    }
  }

  /** Stops the timer and flushes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

function applyMark<M extends Pick<MemoryRecord, "lastAccessedAt" | "accessCount">>(record: M, mark: Mark | undefined): M {
  return mark ? { ...record, lastAccessedAt: Math.max(record.lastAccessedAt, mark.at), accessCount: record.accessCount + mark.count } : record;
}
