import type { MemoryRecord, ScopeKey } from "../../core/records.js";
import { rollupCutoff } from "../../core/rollup/rollup-plan.js";
import { isGlobal } from "../../core/scope.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import { rollupScope } from "./rollup.js";

/** Options of the scheduled rollup. */
export interface RollupSchedulerOptions {
  /** Milliseconds between passes; 0 turns the schedule off. */
  intervalMs: number;
  /** Tenants to roll up; empty = every tenant with tables. */
  tenants: readonly string[];
  olderThanDays: number;
  maxSources: number;
}

/** What one scheduled pass did. */
export interface RollupSweep {
  tenants: number;
  summaries: number;
  consolidated: number;
  failed: number;
}

/**
 * Distinct full scopes (namespace, agent, session, user) among rows, the global one skipped. The
 * most specific come first: an empty field matches every value, so a broader scope only picks up
 * what the narrower ones left.
 */
function scopesOf(rows: readonly MemoryRecord[]): ScopeKey[] {
  const seen = new Map<string, ScopeKey>();
  for (const r of rows) {
    const key = { namespace: r.namespace, agent: r.agent, session: r.session, user: r.user };
    if (!isGlobal(key)) seen.set(JSON.stringify(key), key);
  }
  const named = (k: ScopeKey) => Object.values(k).filter((v) => v !== "").length;
  return [...seen.values()].sort((a, b) => named(b) - named(a));
}

/**
 * Runs rollup per tenant on a timer, off the request path. Each pass groups a tenant's aged
 * memories by their full scope and rolls up every group (one summary per group per pass), so it
 * never merges memories of different sessions or users. Failures are logged and retried next pass.
 */
export class RollupScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RollupSweep> | null = null;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly options: RollupSchedulerOptions,
  ) {}

  /** Starts the timer (no-op when the interval is 0). */
  start(): void {
    if (this.options.intervalMs > 0 && !this.timer) {
      this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
      this.timer.unref();
    }
  }

  /** One pass over the configured tenants; a pass already running is joined, not repeated. */
  runOnce(): Promise<RollupSweep> {
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  /** Stops the timer and waits for a running pass. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async sweep(): Promise<RollupSweep> {
    const { deps, options } = this;
    const tenants = options.tenants.length > 0 ? options.tenants : await deps.store.tenants();
    const result: RollupSweep = { tenants: tenants.length, summaries: 0, consolidated: 0, failed: 0 };
    for (const tenant of tenants) {
      await deps.usage.attribute(tenant, async () => {
        try {
          const cutoff = rollupCutoff(deps.clock.now().getTime(), options.olderThanDays);
          const aged = await (await deps.store.memories(tenant)).find(
            where.and(where.isNull("valid_to"), where.eq("pinned", false), where.ne("fact_type", "summary"), where.lte("valid_from", cutoff)),
            { withoutVector: true },
          );
          for (const key of scopesOf(aged)) {
            // Under the erase barrier: a summary of an end-user being erased must not land after the erasure.
            const roll = () => rollupScope(deps, tenant, { key, olderThanDays: options.olderThanDays, maxSources: options.maxSources });
            const r = await deps.barrier.write([{ tenant, user: key.user }], roll);
            if (r.rolledUp) {
              result.summaries++;
              result.consolidated += r.consolidated;
            }
          }
        } catch (error) {
          result.failed++;
          deps.logger.warn({ tenant, err: error instanceof Error ? error.message : String(error) }, "scheduled rollup failed");
        }
      });
    }
    if (result.summaries > 0 || result.failed > 0) deps.logger.info({ ...result }, "scheduled rollup");
    return result;
  }
}
