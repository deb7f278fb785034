import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";
import { addUsage, USAGE_TOTALS_ID, type UsageCounters, zeroUsage } from "../../core/usage/usage-record.js";
import type { Clock } from "../../ports/clock.js";
import type { Store } from "../../ports/store.js";

/** Options for the usage meter. */
export interface UsageMeterOptions {
  /** Flush interval in ms (default 5,000). 0 disables the timer (flush by hand or on stop). */
  intervalMs?: number;
}

/**
 * Counts what each tenant costs at external model providers — tokens billed and characters of
 * content sent — and keeps running totals in the tenant's `usage` table. Counts are buffered and
 * written every few seconds and on stop, so a hard crash loses at most one interval.
 *
 * Chat usage names its tenant; embedding calls don't, so the tenant is carried by
 * `attribute(tenant, fn)` (an AsyncLocalStorage scope around each request or background job).
 */
export class UsageMeter {
  private readonly current = new AsyncLocalStorage<string>();
  private pending = new Map<string, UsageCounters>();
  private unattributedCounts = zeroUsage();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly listeners: ((delta: Readonly<UsageCounters>) => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: UsageMeterOptions = {},
  ) {}

  /** Runs `fn` with `tenant` billed for the embedding calls made inside it. */
  attribute<T>(tenant: string, fn: () => T): T {
    return this.current.run(tenant, fn);
  }

  /** Provider hook: one embedding request billed `tokens` for `chars` characters sent. */
  recordEmbedding(tokens: number, chars: number): void {
    this.add(this.current.getStore(), { ...zeroUsage(), embeddingTokens: tokens, externalChars: chars, embeddingRequests: 1 });
  }

  /** Provider hook: one chat request. */
  recordChat(tenant: string, promptTokens: number, completionTokens: number, chars: number): void {
    this.add(tenant || this.current.getStore(), {
      ...zeroUsage(),
      llmPromptTokens: promptTokens,
      llmCompletionTokens: completionTokens,
      externalChars: chars,
      chatRequests: 1,
    });
  }

  /** Calls `listener` with every recorded delta, attributed or not (for `/metrics`). */
  onRecord(listener: (delta: Readonly<UsageCounters>) => void): void {
    this.listeners.push(listener);
  }

  /** Provider usage no request was running for (e.g. the start-up probe); kept in memory only. */
  get unattributed(): UsageCounters {
    return { ...this.unattributedCounts };
  }

  /** A tenant's totals: what is stored plus what is still buffered. */
  async totals(tenant: string): Promise<UsageCounters> {
    await this.flushing;
    const [row] = await (await this.store.usage(tenant)).get([USAGE_TOTALS_ID]);
    return addUsage(row ?? zeroUsage(), this.pending.get(tenant) ?? zeroUsage());
  }

  /** Starts the periodic flush. */
  start(): void {
    const ms = this.options.intervalMs ?? 5000;
    if (ms > 0 && !this.timer) {
      this.timer = setInterval(() => void this.flush(), ms);
      this.timer.unref();
    }
  }

  /** Writes every buffered count (one flush at a time). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  /** Stops the timer and flushes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private add(tenant: string | undefined, delta: UsageCounters): void {
    for (const listener of this.listeners) listener(delta);
    this.buffer(tenant, delta);
  }

  private buffer(tenant: string | undefined, delta: UsageCounters): void {
    if (tenant === undefined) {
      this.unattributedCounts = addUsage(this.unattributedCounts, delta);
      return;
    }
    this.pending.set(tenant, addUsage(this.pending.get(tenant) ?? zeroUsage(), delta));
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    const now = this.clock.now().getTime();
    for (const [tenant, delta] of batch) {
      try {
        const usage = await this.store.usage(tenant);
        const changed = await usage.patch([USAGE_TOTALS_ID], (row) => ({ ...row, ...addUsage(row, delta), updatedAt: now }));
        if (changed.length === 0) await usage.insertNew([{ id: USAGE_TOTALS_ID, ...delta, updatedAt: now }]);
      } catch (error) {
        // Keep the counts for the next flush rather than lose billing data.
        this.buffer(tenant, delta);
        this.logger.warn({ tenant, err: error instanceof Error ? error.message : String(error) }, "usage counts not written");
      }
    }
  }
}
