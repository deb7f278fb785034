import type { Logger } from "pino";
import { DEFAULT_PLAN, PLAN_CAPS, type PlanName } from "../../core/privacy/retention-plan.js";
import { planTrim } from "../../core/privacy/retention-trim.js";
import type { Clock } from "../../ports/clock.js";
import type { Collection, Keyed } from "../../ports/collection.js";
import { type Condition, where } from "../../ports/condition.js";
import type { Store } from "../../ports/store.js";
import { trimConversationMessages } from "../conversations/trim.js";

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

/** The trim running for one end-user, and the one queued behind it. */
interface TrimSlot {
  running: Promise<TrimCounts>;
  queued: Promise<TrimCounts> | null;
}
const NONE: TrimCounts = { episodes: 0, memories: 0, usersTrimmed: 0 };

const settled = (): void => undefined;

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
  private readonly trims = new Map<string, TrimSlot>();
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
      total = add(total, await this.trimSoon(tenant, user, cap));
    }
    return total;
  }

  /**
   * Coalesces trims of one end-user: a caller arriving while a trim runs (which may have read the
   * rows before this caller's write) waits for one more trim, shared by everyone arriving
   * meanwhile. Ten concurrent turns cost two trims, not ten.
   */
  private trimSoon(tenant: string, user: string, cap: number): Promise<TrimCounts> {
    const key = `${tenant}\u0000${user}`;
    const existing = this.trims.get(key);
    if (existing) {
      existing.queued ??= existing.running.then(settled, settled).then(() => this.runTrim(key, existing, tenant, user, cap));
      return existing.queued;
    }
    const slot: TrimSlot = { running: Promise.resolve(NONE), queued: null };
    this.trims.set(key, slot);
    return this.runTrim(key, slot, tenant, user, cap);
  }

  private runTrim(key: string, slot: TrimSlot, tenant: string, user: string, cap: number): Promise<TrimCounts> {
    const run = this.trimUser(tenant, user, cap);
    slot.running = run;
    slot.queued = null;
    const done = () => {
      if (slot.running === run && slot.queued === null && this.trims.get(key) === slot) this.trims.delete(key);
    };
    run.then(done, done);
    return run;
  }

  /** Enforces the tenant's cap for every end-user it has. */
  async sweep(tenant: string): Promise<TrimCounts> {
    const cap = PLAN_CAPS[await this.plan(tenant)];
    if (cap === 0) return NONE;
    const episodes = await this.store.episodes(tenant);
    const perUser = new Map<string, number>();
    for (const e of await episodes.find(where.ne("user", ""), { withoutVector: true })) perUser.set(e.user, (perUser.get(e.user) ?? 0) + 1);
    let total = NONE;
    for (const [user, n] of perUser) if (n > cap) total = add(total, await this.trimSoon(tenant, user, cap));
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
    const deleteIn = async (collection: Collection<Keyed>, ids: readonly string[], only?: Condition) => {
      let n = 0;
      for (let i = 0; i < ids.length; i += this.deleteChunk) n += await collection.delete(where.and(mine, only, where.in("id", ids.slice(i, i + this.deleteChunk))));
      return n;
    };
    const [deletedEpisodes, deletedMemories] = await Promise.all([
      deleteIn(episodes, plan.episodeIds),
      deleteIn(memories, plan.memoryIds, where.eq("pinned", false)),
    ]);
    await trimConversationMessages(this.store, tenant, user, plan.episodeIds);
    return { episodes: deletedEpisodes, memories: deletedMemories, usersTrimmed: deletedEpisodes > 0 ? 1 : 0 };
  }
}
