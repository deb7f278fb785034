/** One queued unit of work; tasks with the same non-null `group` may share one commit. */
interface Task<P> {
  group: string | null;
  payload: P;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Runs a group of payloads as one commit and returns one result per payload, in order. */
export type GroupRunner<P> = (group: string | null, payloads: P[]) => Promise<unknown[]>;

/** Options for a write queue. */
export interface WriteQueueOptions {
  /** Max payloads folded into one commit (default 5,000 rows' worth of tasks). */
  maxGroup?: number;
  /** Attempts on a retryable commit conflict (default 5). */
  attempts?: number;
}

const RETRYABLE = /retryable|commit conflict|conflict/i;

/**
 * Serialises the writes of one table and groups consecutive writes of the same kind into one
 * commit, so N concurrent single-row writes become one LanceDB version instead of N fragments.
 */
export class WriteQueue<P> {
  private readonly tasks: Task<P>[] = [];
  private running: Promise<void> = Promise.resolve();
  private draining = false;
  private readonly maxGroup: number;
  private readonly attempts: number;
  /** Sizes of the commits made, for metrics. */
  readonly groupSizes: number[] = [];
  /** Commits run and tasks they carried (monotonic), for metrics: tasks / commits is the mean group size. */
  readonly totals = { commits: 0, tasks: 0 };
  /** When the commit in flight started (`performance.now()`), 0 when none is. */
  private commitSince = 0;

  constructor(
    private readonly run: GroupRunner<P>,
    options: WriteQueueOptions = {},
  ) {
    this.maxGroup = options.maxGroup ?? 5000;
    this.attempts = options.attempts ?? 5;
  }

  /** Queues a payload; resolves with its result once its commit is durable. */
  submit<R>(group: string | null, payload: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.tasks.push({ group, payload, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) {
        // Set and cleared synchronously with the emptiness check, so no task is ever stranded.
        this.draining = true;
        this.running = this.drain();
      }
    });
  }

  /** Milliseconds the commit in flight has been running (retries included); 0 when none is. */
  commitAgeMs(now = performance.now()): number {
    return this.commitSince === 0 ? 0 : now - this.commitSince;
  }

  /** Resolves when every queued write has finished. */
  async idle(): Promise<void> {
    while (this.draining) await this.running;
  }

  private async drain(): Promise<void> {
    // Yield once so writes arriving in the same tick join the first commit.
    await new Promise((r) => setImmediate(r));
    while (this.tasks.length > 0) {
      const first = this.tasks[0];
      let n = 1;
      if (first.group !== null) {
        while (n < this.tasks.length && n < this.maxGroup && this.tasks[n].group === first.group) n++;
      }
      const batch = this.tasks.splice(0, n);
      this.groupSizes.push(batch.length);
      this.totals.commits++;
      this.totals.tasks += batch.length;
      if (this.groupSizes.length > 1000) this.groupSizes.splice(0, 500);
      this.commitSince = performance.now();
      try {
        const results = await this.withRetry(() => this.run(first.group, batch.map((t) => t.payload)));
        batch.forEach((t, i) => t.resolve(results[i]));
      } catch (error) {
        batch.forEach((t) => t.reject(error));
      } finally {
        this.commitSince = 0;
      }
    }
    this.draining = false;
  }

  private async withRetry<R>(fn: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (attempt >= this.attempts || !RETRYABLE.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 20 * 2 ** attempt + Math.random() * 20));
      }
    }
  }
}
