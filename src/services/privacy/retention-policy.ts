import type { Logger } from "pino";
import { DEFAULT_PLAN, PLAN_CAPS, type PlanName } from "../../core/privacy/retention-plan.js";
import { planTrim } from "../../core/privacy/retention-trim.js";
import type { Clock } from "../../ports/clock.js";
import { where } from "../../ports/condition.js";
import type { Store } from "../../ports/store.js";

/** What enforcing the cap removed. */
export interface TrimCounts {
  episodes: number;
  memories: number;
  /** End-users that lost at least one row. */
  usersTrimmed: number;
}

/** Options for the retention policy. */
export interface RetentionPolicyOptions {
  /** How long a tenant's plan is cached before it is read again (default 5 s; other replicas may change it). */
  planCacheMs?: number;
  /** Ids per delete statement (default 1,000). */
  deleteChunk?: number;
}

const PLAN_ID = "plan";
const NONE: TrimCounts = { episodes: 0, memories: 0, usersTrimmed: 0 };

function add(a: TrimCounts, b: TrimCounts): TrimCounts {
  return { episodes: a.episodes + b.episodes, memories: a.memories + b.memories, usersTrimmed: a.usersTrimmed + b.usersTrimmed };
}

/**
 * Retention caps by plan: the most recent N messages (turns, with the memories only they wrote)
 * per end-user. Enforced after every interaction (`enforce`, called by every path that stores
 * turns) and by a scheduled sweep. Pinned memories and the relational state are never capped.
 */
export class RetentionPolicy {
  private readonly cache = new Map<string, { plan: PlanName; until: number }>();
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<unknown> | null = null;
  private readonly planCacheMs: number;
  private readonly deleteChunk: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: RetentionPolicyOptions = {},
  ) {
    this.planCacheMs = options.planCacheMs ?? 5_000;
    this.deleteChunk = options.deleteChunk ?? 1_000;
  }

  /** The tenant's plan (default `enterprise`: unlimited). */
  async plan(tenant: string): Promise<PlanName> {
    const cached = this.cache.get(tenant);
    const now = Date.now();
    if (cached && cached.until > now) return cached.plan;
    const [row] = await (await this.store.retention(tenant)).get([PLAN_ID]);
    const plan = row?.plan && row.plan in PLAN_CAPS ? row.plan : DEFAULT_PLAN;
    this.cache.set(tenant, { plan, until: now + this.planCacheMs });
    return plan;
  }

  /** Sets the tenant's plan; the new cap applies from the next interaction or sweep. */
  async setPlan(tenant: string, plan: PlanName, actor: string): Promise<void> {
    await (await this.store.retention(tenant)).upsert([{ id: PLAN_ID, plan, updatedAt: this.clock.now().getTime(), actor }]);
    this.cache.set(tenant, { plan, until: Date.now() + this.planCacheMs });
  }

  /** Enforces the tenant's cap for these end-users now (after an interaction). */
  async enforce(tenant: string, users: readonly string[]): Promise<TrimCounts> {
    const cap = PLAN_CAPS[await this.plan(tenant)];
    if (cap === 0) return NONE;
    let total = NONE;
    for (const user of new Set(users)) {
      if (user === "") continue;
      total = add(total, await this.trimUser(tenant, user, cap));
    }
    return total;
  }

  /** Enforces the tenant's cap for every end-user it has. */
  async sweep(tenant: string): Promise<TrimCounts> {
    const cap = PLAN_CAPS[await this.plan(tenant)];
    if (cap === 0) return NONE;
    const episodes = await this.store.episodes(tenant);
    const perUser = new Map<string, number>();
    for (const e of await episodes.find(where.ne("user", ""), { withoutVector: true })) perUser.set(e.user, (perUser.get(e.user) ?? 0) + 1);
    let total = NONE;
    for (const [user, n] of perUser) if (n > cap) total = add(total, await this.trimUser(tenant, user, cap));
    return total;
  }

  /** Sweeps every tenant every `intervalMs` (0 = never); one sweep at a time, never blocking requests. */
  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweepAll().finally(() => {
        this.sweeping = null;
      });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  private async sweepAll(): Promise<void> {
    for (const tenant of await this.store.tenants()) {
      try {
        const trimmed = await this.sweep(tenant);
        if (trimmed.usersTrimmed > 0) this.logger.info({ tenant, ...trimmed }, "retention sweep");
      } catch (error) {
        this.logger.error({ tenant, err: String(error) }, "retention sweep failed");
      }
    }
  }

  private async trimUser(tenant: string, user: string, cap: number): Promise<TrimCounts> {
    const episodes = await this.store.episodes(tenant);
    const mine = where.eq("user", user);
    if ((await episodes.count(mine)) <= cap) return NONE;
    const memories = await this.store.memories(tenant);
    const [turns, facts] = await Promise.all([episodes.find(mine, { withoutVector: true }), memories.find(mine, { withoutVector: true })]);
    const plan = planTrim(turns, facts, cap);
    let deletedEpisodes = 0;
    let deletedMemories = 0;
    for (let i = 0; i < plan.episodeIds.length; i += this.deleteChunk) {
      deletedEpisodes += await episodes.delete(where.and(mine, where.in("id", plan.episodeIds.slice(i, i + this.deleteChunk))));
    }
    for (let i = 0; i < plan.memoryIds.length; i += this.deleteChunk) {
      deletedMemories += await memories.delete(where.and(mine, where.eq("pinned", false), where.in("id", plan.memoryIds.slice(i, i + this.deleteChunk))));
    }
    return { episodes: deletedEpisodes, memories: deletedMemories, usersTrimmed: deletedEpisodes > 0 ? 1 : 0 };
  }
}
