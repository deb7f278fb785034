import type { Logger } from "pino";
import { DEFAULT_PLAN, PLAN_CAPS, type PlanName } from "../../core/privacy/retention-plan.js";
import { planTrim } from "../../core/privacy/retention-trim.js";
import type { Clock } from "../../ports/clock.js";
import type { Collection, Keyed } from "../../ports/collection.js";
import { type Condition, where } from "../../core/condition.js";
import type { Store } from "../../ports/store.js";
import { trimConversationMessages } from "../conversations/trim.js";

/**
 * Whose messages a cap counts: an end-user (all their scopes), or, for rows without `scope.user`,
 * the (namespace, agent) scope they were written in (all its sessions).
 */
export interface RetentionOwner {
  namespace: string;
  agent: string;
  user: string;
}

/** The owner of a row, as the cap counts it. */
function ownerOf(row: RetentionOwner): RetentionOwner {
  return row.user !== "" ? { namespace: "", agent: "", user: row.user } : { namespace: row.namespace, agent: row.agent, user: "" };
}

function ownerKey(tenant: string, o: RetentionOwner): string {
  return o.user !== "" ? `${tenant}\u0000u\u0000${o.user}` : `${tenant}\u0000s\u0000${o.namespace}\u0000${o.agent}`;
}

/** The rows an owner's cap counts. */
function ownerCondition(o: RetentionOwner): Condition {
  return o.user !== "" ? where.eq("user", o.user) : where.and(where.eq("user", ""), where.eq("namespace", o.namespace), where.eq("agent", o.agent));
}

/** What enforcing the cap removed. */
export interface TrimCounts {
  episodes: number;
  memories: number;
  /** End-users (and user-less scopes) that lost at least one row. */
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
 * per end-user, and per (namespace, agent) scope for rows without a user. Enforced after every interaction (`enforce`, called by every path that stores
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

  /** Enforces the tenant's cap for the owners of these scopes now (after an interaction). */
  async enforce(tenant: string, scopes: readonly RetentionOwner[]): Promise<TrimCounts> {
    const cap = PLAN_CAPS[await this.plan(tenant)];
    if (cap === 0) return NONE;
    const owners = new Map(scopes.map((s) => ownerOf(s)).map((o) => [ownerKey(tenant, o), o]));
    let total = NONE;
    for (const owner of owners.values()) total = add(total, await this.trimSoon(tenant, owner, cap));
    return total;
  }

  /**
   * Coalesces trims of one end-user: a caller arriving while a trim runs (which may have read the
   * rows before this caller's write) waits for one more trim, shared by everyone arriving
   * meanwhile. Ten concurrent turns cost two trims, not ten.
   */
  private trimSoon(tenant: string, owner: RetentionOwner, cap: number): Promise<TrimCounts> {
    const key = ownerKey(tenant, owner);
    const existing = this.trims.get(key);
    if (existing) {
      existing.queued ??= existing.running.then(settled, settled).then(() => this.runTrim(key, existing, tenant, owner, cap));
      return existing.queued;
    }
    const slot: TrimSlot = { running: Promise.resolve(NONE), queued: null };
    this.trims.set(key, slot);
    return this.runTrim(key, slot, tenant, owner, cap);
  }

  private runTrim(key: string, slot: TrimSlot, tenant: string, owner: RetentionOwner, cap: number): Promise<TrimCounts> {
    const run = this.trimOwner(tenant, owner, cap);
    slot.running = run;
    slot.queued = null;
    const done = () => {
      if (slot.running === run && slot.queued === null && this.trims.get(key) === slot) this.trims.delete(key);
    };
    run.then(done, done);
    return run;
  }

  /** Enforces the tenant's cap for every end-user and user-less scope it has. */
  async sweep(tenant: string): Promise<TrimCounts> {
    const cap = PLAN_CAPS[await this.plan(tenant)];
    if (cap === 0) return NONE;
    const episodes = await this.store.episodes(tenant);
    const perOwner = new Map<string, { owner: RetentionOwner; n: number }>();
    for (const e of await episodes.find(where.all(), { withoutVector: true })) {
      const owner = ownerOf(e);
      const key = ownerKey(tenant, owner);
      const entry = perOwner.get(key) ?? { owner, n: 0 };
      entry.n++;
      perOwner.set(key, entry);
    }
    let total = NONE;
    for (const { owner, n } of perOwner.values()) if (n > cap) total = add(total, await this.trimSoon(tenant, owner, cap));
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

  private async trimOwner(tenant: string, owner: RetentionOwner, cap: number): Promise<TrimCounts> {
    const episodes = await this.store.episodes(tenant);
    const mine = ownerCondition(owner);
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
    await trimConversationMessages(this.store, tenant, owner.user, plan.episodeIds);
    return { episodes: deletedEpisodes, memories: deletedMemories, usersTrimmed: deletedEpisodes > 0 ? 1 : 0 };
  }
}
