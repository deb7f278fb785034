/** Options for the background loader of end-users not held. Every field has a default. */
export interface WarmerOptions {
  /** At most this many end-users wait to be loaded; further requests are dropped (default 64). */
  maxQueued?: number;
  /**
   * An end-user is loaded only once they have been read this many times recently (default 2;
   * TinyLFU's "doorkeeper"): a user read once — a one-off lookup, a batch job, most users of a large
   * service at any moment — costs the engine one read, not a load (a filtered scan of all their
   * rows and ~45 ms of the main thread per 1,000 rows) that shares the cores with the reads waiting.
   */
  admitAfterReads?: number;
  /** Keys whose recent reads are counted (default 4,096; the least recently read are forgotten). */
  rememberedKeys?: number;
  /**
   * Reads of one key closer together than this count as one (default 1,000 ms): a recall
   * makes several reads of its end-user's rows, and each must not count as the user coming back.
   */
  missWindowMs?: number;
  /**
   * Every count is halved this often (default 60,000 ms), so the counts say how often a user was
   * read lately, not ever: a bulk import's reads, or yesterday's conversation, fade within minutes.
   */
  halfLifeMs?: number;
}

/** What the warmer asks of the budget it fills. */
export interface WarmBudget {
  readonly maxBytes: number;
  readonly counters: { bytes: number; partitions: number; warms: number; warmsSkipped: number };
  /** The held key the budget would evict next (least recently used), if any. */
  victim?(): string | undefined;
}

/** A queued load: `run` loads the end-user's rows; `wanted` says whether it still should (not held, table not rewritten). */
export interface WarmJob {
  run(): Promise<unknown>;
  wanted(): boolean;
  /** Background work that is not a user's load (learning which users a table holds): neither counted nor weighed for admission. */
  always?: boolean;
}

/**
 * Loads end-users' rows into the row cache off the request path: a read
 * for an end-user who is not held is answered by the engine at once and asks for a load here. One
 * load runs at a time, and only while no read or request is in flight (a load is a filtered scan
 * that would share the cores with the reads waiting); the queue is bounded and `stop` cancels what waits.
 *
 * Admission is TinyLFU's (Einziger, Friedman & Manes, 2017): recent reads are counted per key
 * (misses here, hits through `accessed`), with the counts halved every `halfLifeMs`. A user
 * is loaded once read `admitAfterReads` times lately, and, when the budget is full, only if read
 * more often lately than the user it would evict. With far more end-users than the budget holds
 * and reads spread evenly over them, a load that evicts a user as likely to come back as the one
 * loaded gains no hits and costs the reads waiting its scan; users in conversation are read every
 * turn and win their place.
 */
export class Warmer {
  private readonly queue = new Map<string, WarmJob>();
  /** Per key: recent reads counted, and `performance.now()` of the last one. */
  private readonly seen = new Map<string, { count: number; at: number }>();
  /** `performance.now()` when the counts were last halved. */
  private halvedAt = performance.now();
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

  /** Counts a read of `key` answered from memory (the budget's victims are compared by it). */
  accessed(key: string): void {
    this.count(key);
  }

  /** Asks for `key` to be loaded later; dropped when the queue is full or the key is not admitted. */
  request(key: string, job: WarmJob): void {
    if (this.stopped || this.queue.has(key)) return;
    if (!job.always) this.count(key);
    if (!(job.always || this.admits(key)) || this.queue.size >= (this.options.maxQueued ?? 64)) {
      this.budget.counters.warmsSkipped++;
      return;
    }
    this.queue.set(key, job);
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** Counts a read of `key` (reads within `missWindowMs` of the last one count once), after halving every count once per half-life passed. */
  private count(key: string): void {
    const now = performance.now();
    const halfLife = this.options.halfLifeMs ?? 60_000;
    const halvings = Math.floor((now - this.halvedAt) / halfLife);
    if (halvings > 0) {
      this.halvedAt += halvings * halfLife;
      for (const [k, v] of this.seen) {
        v.count = Math.floor(v.count / 2 ** halvings);
        if (v.count === 0) this.seen.delete(k);
      }
    }
    const last = this.seen.get(key);
    const fresh = !last || now - last.at >= (this.options.missWindowMs ?? 1_000);
    this.seen.delete(key);
    this.seen.set(key, { count: (last?.count ?? 0) + (fresh ? 1 : 0), at: now });
    if (this.seen.size > (this.options.rememberedKeys ?? 4096)) this.seen.delete(this.seen.keys().next().value as string);
  }

  private recentReads(key: string | undefined): number {
    return key === undefined ? 0 : (this.seen.get(key)?.count ?? 0);
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

  /** Read often enough lately, and either fits without evicting or was read more lately than the user it would evict. */
  private admits(key: string): boolean {
    const reads = this.recentReads(key);
    if (reads < (this.options.admitAfterReads ?? 2)) return false;
    const { bytes, partitions } = this.budget.counters;
    const typical = partitions > 0 ? bytes / partitions : 0;
    if (bytes + typical <= this.budget.maxBytes) return true;
    return reads > this.recentReads(this.budget.victim?.());
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
      if (!job.wanted() || !(job.always || this.admits(key))) {
        this.budget.counters.warmsSkipped++;
        continue;
      }
      try {
        await job.run();
        if (!job.always) this.budget.counters.warms++;
      } catch {
        // A failed load leaves the user not held; the next read asks again.
        this.budget.counters.warmsSkipped++;
      }
    }
  }
}
