/** Options for the background loader of end-users not held. Every field has a default. */
export interface WarmerOptions {
  /** At most this many end-users wait to be loaded; further requests are dropped (default 64). */
  maxQueued?: number;
  /**
   * An end-user who would not fit the budget without evicting another is loaded only once they
   * have been asked for this many times while not held (default 2): with more end-users than the
   * budget holds, loading every miss would evict a user as likely to come back as the one loaded.
   */
  admitAfterMisses?: number;
  /** Misses remembered for admission (default 4,096; the oldest are forgotten). */
  rememberedMisses?: number;
  /**
   * Reads of one key closer together than this count as one miss (default 1,000 ms): a recall
   * makes several reads of its end-user's rows, and each must not count as the user coming back.
   */
  missWindowMs?: number;
}

/** What the warmer asks of the budget it fills. */
export interface WarmBudget {
  readonly maxBytes: number;
  readonly counters: { bytes: number; partitions: number; warms: number; warmsSkipped: number };
}

/** A queued load: `run` loads the end-user's rows; `wanted` says whether it still should (not held, table not rewritten). */
export interface WarmJob {
  run(): Promise<unknown>;
  wanted(): boolean;
}

/**
 * Loads end-users' rows into the row cache off the request path: a read
 * for an end-user who is not held is answered by the engine at once and asks for a load here. One
 * load runs at a time, and only while no read or request is in flight (a load is a filtered scan
 * that would share the cores with the reads waiting); the queue is bounded and `stop` cancels what waits.
 */
export class Warmer {
  private readonly queue = new Map<string, WarmJob>();
  /** Per key: misses counted, and `performance.now()` of the last one. */
  private readonly misses = new Map<string, { count: number; at: number }>();
  private reads = 0;
  /** `performance.now()` when the last read or request in flight ended. */
  private quietSince = 0;
  private running: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly budget: WarmBudget,
    private readonly options: WarmerOptions = {},
  ) {}

  /** End-users waiting to be loaded. */
  get queued(): number {
    return this.queue.size;
  }

  /** Runs a read (or a whole request), counted as in flight: loads wait until none is. */
  async reading<R>(read: () => Promise<R>): Promise<R> {
    this.reads++;
    try {
      return await read();
    } finally {
      if (--this.reads === 0) {
        this.quietSince = performance.now();
        this.wake?.();
      }
    }
  }

  /** Whether no read or request has been in flight for `idleMs` now. */
  isQuiet(idleMs: number): boolean {
    return this.reads === 0 && performance.now() - this.quietSince >= idleMs;
  }

  /**
   * Resolves once no read or request has been in flight for `idleMs`, or after `maxWaitMs` at the
   * latest (for heavy background work such as compaction, which must still make progress).
   */
  async quiet(idleMs: number, maxWaitMs: number): Promise<void> {
    const started = performance.now();
    for (;;) {
      const now = performance.now();
      if ((this.reads === 0 && now - this.quietSince >= idleMs) || now - started >= maxWaitMs) return;
      await new Promise((r) => setTimeout(r, Math.min(100, idleMs)).unref());
    }
  }

  /** Asks for `key` to be loaded later; dropped when the queue is full or the budget would not admit it. */
  request(key: string, job: WarmJob): void {
    if (this.stopped || this.queue.has(key)) return;
    const now = performance.now();
    const last = this.misses.get(key);
    const misses = last && now - last.at < (this.options.missWindowMs ?? 1_000) ? last.count : (last?.count ?? 0) + 1;
    this.misses.delete(key);
    this.misses.set(key, { count: misses, at: now });
    if (this.misses.size > (this.options.rememberedMisses ?? 4096)) this.misses.delete(this.misses.keys().next().value as string);
    if (!this.admits(misses) || this.queue.size >= (this.options.maxQueued ?? 64)) {
      this.budget.counters.warmsSkipped++;
      return;
    }
    this.queue.set(key, job);
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** Resolves once nothing waits to be loaded and no load runs (for tests and benches). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Drops what waits and resolves once the load in flight (if any) has ended; later requests queue again. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.clear();
    this.wake?.();
    await this.running;
    this.stopped = false;
  }

  /** An end-user fits without evicting, or has been missed often enough to displace one. */
  private admits(misses: number): boolean {
    const { bytes, partitions } = this.budget.counters;
    const typical = partitions > 0 ? bytes / partitions : 0;
    return bytes + typical <= this.budget.maxBytes || misses >= (this.options.admitAfterMisses ?? 2);
  }

  private async drain(): Promise<void> {
    // After the answer that asked for it: the first load starts no earlier than the next turn.
    await new Promise((r) => setImmediate(r));
    while (!this.stopped && this.queue.size > 0) {
      if (this.reads > 0) {
        await new Promise<void>((r) => (this.wake = r));
        this.wake = null;
        // A request's next read starts in the continuation of its last one, before the next
        // macrotask: look again after one, so a load never starts between two reads of one request.
        await new Promise((r) => setImmediate(r));
        continue;
      }
      const [key, job] = this.queue.entries().next().value as [string, WarmJob];
      this.queue.delete(key);
      if (!job.wanted() || !this.admits(this.misses.get(key)?.count ?? 1)) {
        this.budget.counters.warmsSkipped++;
        continue;
      }
      try {
        await job.run();
        this.misses.delete(key);
        this.budget.counters.warms++;
      } catch {
        // A failed load leaves the user not held; the next read asks again.
        this.budget.counters.warmsSkipped++;
      }
    }
  }
}
