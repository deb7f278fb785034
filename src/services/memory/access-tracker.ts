import type { Logger } from "pino";
import { type MemoryUseRecord, type UsedMemory, type UseFields, withUse } from "../../core/memory-use.js";
import type { Store } from "../../ports/store.js";
import { StoredUses } from "./stored-uses.js";

/** Marks written per commit (a `memory_use` row is five small columns). */
const FLUSH_SLICE = 5_000;

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
  user: string;
  /** The `created_at` of the memory used (see `MemoryUseRecord.memoryCreatedAt`). */
  createdAt: number;
}

/**
 * Buffers "this memory was used" marks and writes them per tenant to the small `memory_use`
 * table, never to the memory rows: rewriting a memory row (vector included) for a mark left a
 * deletion in its fragment, and at 1M rows every compaction of `memories` was preempted by such
 * an update and thrown away (issue 26). Marks still wait for a quiet moment — no recall for
 * `quietMs` — or at the latest `maxDelayMs` / `maxPending`, so a burst of recalls does not share
 * the CPU with writes; a memory used many times meanwhile is written once. Readers do not see the
 * lag: `current` applies stored uses (`StoredUses`) and buffered marks to the records handed out
 * and to ranking, and `current(…, { fresh: true })` after `flush(tenant)` is what Forget
 * `unused_for_days` decides on.
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
  private readonly stored: StoredUses;
  /** Per tenant, end-users erased and when: marks of their memories created up to then are dropped. */
  private readonly erased = new Map<string, Map<string, number>>();

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly options: AccessTrackerOptions = {},
  ) {
    this.stored = new StoredUses(store);
  }

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
  touch(tenant: string, memories: readonly UsedMemory[], at: number): void {
    if (memories.length === 0) return;
    const now = performance.now();
    if (this.size === 0) this.oldest = now;
    this.latest = now;
    let m = this.pending.get(tenant);
    if (!m) this.pending.set(tenant, (m = new Map()));
    const erased = this.erased.get(tenant);
    for (const { id, user, createdAt } of memories) {
      const erasedAt = erased?.get(user);
      if (erasedAt !== undefined && createdAt <= erasedAt) continue;
      const e = m.get(id);
      if (e && e.createdAt === createdAt) {
        e.at = Math.max(at, e.at);
        e.count++;
      } else {
        if (!e) this.size++;
        m.set(id, { at, count: 1, user, createdAt });
      }
    }
  }

  /**
   * Drops the marks of the end-user's memories created up to `before` (epoch ms), buffered, being
   * written, or arriving from a recall still running: erasure runs this before it empties the
   * tables, so no mark of the end-user lands after it.
   */
  forgetUser(tenant: string, user: string, before: number): void {
    let erased = this.erased.get(tenant);
    if (!erased) this.erased.set(tenant, (erased = new Map()));
    erased.set(user, Math.max(before, erased.get(user) ?? before));
    for (const marks of [this.pending.get(tenant), this.writing.get(tenant)]) {
      for (const [id, mark] of marks ?? []) {
        if (mark.user !== user || mark.createdAt > before) continue;
        marks!.delete(id);
        if (marks === this.pending.get(tenant)) this.size--;
      }
    }
  }

  /**
   * The records with every recorded use applied: stored in `memory_use`, being written, buffered.
   * `fresh` reads the stored uses from the table first (another replica's included).
   */
  async current<M extends UseFields>(tenant: string, records: readonly M[], options: { fresh?: boolean } = {}): Promise<M[]> {
    if (records.length === 0) return [];
    const stored = options.fresh ? await this.stored.fresh(tenant) : await this.stored.of(tenant);
    const writing = this.writing.get(tenant);
    const pending = this.pending.get(tenant);
    return records.map((r) => withUse(withUse(withUse(r, stored.get(r.id)), markUse(writing?.get(r.id))), markUse(pending?.get(r.id))));
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
          const uses = await this.store.memoryUse(tenant);
          const ids = [...marks.keys()];
          // In slices, so a polite flush can stop between commits when recalls resume.
          for (let from = 0; from < ids.length && !interrupted(); from += FLUSH_SLICE) {
            const slice = ids.slice(from, from + FLUSH_SLICE);
            const stored = await this.stored.of(tenant);
            // Marks an erasure dropped meanwhile are gone from `marks`.
            const rows = slice.flatMap((id) => {
              const mark = marks.get(id);
              return mark ? [useRow(id, mark, stored.get(id))] : [];
            });
            await uses.upsert(rows);
            // In the same tick: a reader sees these uses either as buffered or as stored, never both.
            this.stored.apply(tenant, rows);
            for (const id of slice) marks.delete(id);
            written += rows.length;
          }
          this.stored.apply(tenant, [], await uses.version());
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
      if (e && e.createdAt === mark.createdAt) {
        e.at = Math.max(e.at, mark.at);
        e.count += mark.count;
      } else if (!e) {
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

/** A buffered mark in the shape of a stored use. */
function markUse(mark: Mark | undefined) {
  return mark && { memoryCreatedAt: mark.createdAt, lastAccessedAt: mark.at, accessCount: mark.count };
}

/** The `memory_use` row after a mark: the stored row of the same memory, plus the mark. */
function useRow(id: string, mark: Mark, stored: MemoryUseRecord | undefined): MemoryUseRecord {
  const base = stored?.memoryCreatedAt === mark.createdAt ? stored : undefined;
  return {
    id,
    user: mark.user,
    memoryCreatedAt: mark.createdAt,
    lastAccessedAt: Math.max(base?.lastAccessedAt ?? 0, mark.at),
    accessCount: (base?.accessCount ?? 0) + mark.count,
  };
}
