import type { Logger } from "pino";

/** Where the watchdog looks: the engine commit in flight that has run longest. */
export interface CommitSource {
  oldestCommit(): { table: string; ms: number } | null;
}

/** Options for {@link WriteWatchdog}. */
export interface WriteWatchdogOptions {
  /** A commit running longer than this is stuck (0 turns the watchdog off). */
  limitMs: number;
  /** Milliseconds between checks (default: a quarter of the limit, at most 5 s). */
  intervalMs?: number;
}

/**
 * Notices an engine commit that never returns. LanceDB 0.31 wedged this way at ~450k rows (its
 * full-text index writer parked its only CPU thread; `engine-env.ts` has the cause and the
 * setting that fixed it): no error reaches us, requests just queue. Should anything like it come
 * back, the watchdog makes it visible: it logs the stuck table once, turns health NOT_SERVING so
 * an orchestrator restarts the replica (unacknowledged writes are not lost: their callers never
 * got an answer), and turns back when the commit returns.
 */
export class WriteWatchdog {
  /** Stalls seen (monotonic). */
  stalls = 0;
  private timer: NodeJS.Timeout | null = null;
  private stuck: { table: string; ms: number } | null = null;

  constructor(
    private readonly source: CommitSource,
    private readonly logger: Logger,
    private readonly options: WriteWatchdogOptions,
  ) {}

  /** True while a commit has been running past the limit. */
  get stalled(): boolean {
    return this.stuck !== null;
  }

  /** Seconds the oldest commit in flight has been running (0 when none is). */
  oldestSeconds(): number {
    return (this.source.oldestCommit()?.ms ?? 0) / 1000;
  }

  start(): void {
    const { limitMs } = this.options;
    if (limitMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.check(), this.options.intervalMs ?? Math.min(5_000, Math.max(50, limitMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One check (the timer calls it; tests may too). */
  check(): void {
    const oldest = this.source.oldestCommit();
    const over = oldest !== null && oldest.ms >= this.options.limitMs ? oldest : null;
    if (over && !this.stuck) {
      this.stalls++;
      this.logger.error(
        { table: over.table, seconds: Math.round(over.ms / 1000) },
        "engine commit stuck: health is NOT_SERVING until it returns (restart the process if it does not)",
      );
    } else if (!over && this.stuck) {
      this.logger.warn({ table: this.stuck.table }, "engine commit returned after a stall: SERVING again");
    }
    this.stuck = over;
  }
}
