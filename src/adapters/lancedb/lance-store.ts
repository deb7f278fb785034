import { join } from "node:path";
import "./engine-env.js";
import * as lancedb from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import type { AnchorRecord } from "../../core/drift/anchor-record.js";
import type { ProfileRecord } from "../../core/profile-record.js";
import type { EpisodeRecord, MemoryRecord } from "../../core/records.js";
import type { RelationRecord, ThirdPartyRecord } from "../../core/relational/records.js";
import type { UsageRecord } from "../../core/usage/usage-record.js";
import type { AuditRecord } from "../../core/privacy/audit-record.js";
import type { RetentionRecord } from "../../core/privacy/retention-plan.js";
import { AgentMemError } from "../../core/errors.js";
import type { Keyed } from "../../ports/collection.js";
import type { PersonalTable } from "../../ports/personal-table.js";
import type { Store } from "../../ports/store.js";
import type { WriteFence } from "../../ports/write-fence.js";
import { auditCodec, auditSchema } from "./audit-codec.js";
import { localDirectory } from "./disk-usage.js";
import { DiskSpace, type DiskSpaceLogger } from "./disk-space.js";
import { TableFsync } from "./table-fsync.js";
import { type Exclusive, holdsEndUserRows, LancePersonalTable } from "./personal-table.js";
import { retentionCodec, retentionSchema } from "./retention-codec.js";
import { anchorCodec, anchorSchema } from "./anchor-codec.js";
import { conversationCodec, conversationSchema, messageCodec, messageSchema } from "./conversation-codec.js";
import type { ConversationRecord, MessageRecord } from "../../core/conversations/conversation-record.js";
import { tableBytes } from "./disk-usage.js";
import { episodeCodec, episodeSchema } from "./episode-codec.js";
import { CacheBudget, type CacheCounters } from "../row-cache/cache-budget.js";
import { CachedCollection } from "../row-cache/cached-collection.js";
import { TableCache } from "../row-cache/table-cache.js";
import { Warmer, type WarmerOptions } from "../row-cache/warmer.js";
import { defaultAnalyzer } from "./fts-analyzer.js";
import type { MaintainedTable } from "./maintenance.js";
import { type Codec, LanceCollection } from "./lance-collection.js";
import { memoryCodec, memorySchema } from "./memory-codec.js";
import { addMissingColumns } from "./schema-upgrade.js";
import { memoryUseCodec, memoryUseSchema } from "./memory-use-codec.js";
import type { MemoryUseRecord } from "../../core/memory-use.js";
import { profileCodec, profileSchema } from "./profile-codec.js";
import { relationCodec, relationSchema } from "./relation-codec.js";
import { baseKind, encodeTenant, parseTableName, tableName } from "./table-names.js";
import { ShardedCollection, type ShardTables, shardOf } from "./sharded-collection.js";
import { thirdPartyCodec, thirdPartySchema } from "./third-party-codec.js";
import { usageCodec, usageSchema } from "./usage-codec.js";

/** Options for the LanceDB store. */
export interface LanceStoreOptions {
  /** A directory or any LanceDB URI (`s3://…`, `db://…`). */
  uri: string;
  /** Embedding dimension for new tables; existing tables must match. */
  dimension: number;
  /** Seconds between checks for other processes' writes (default 0: always fresh). */
  readConsistencySeconds?: number;
  /** LanceDB index cache bytes (default 128 MiB: pinned reads are served by the hot-row cache). */
  indexCacheBytes?: number;
  /** LanceDB metadata cache bytes (default 64 MiB). */
  metadataCacheBytes?: number;
  /** Called after each commit with the table kind and row count. */
  onCommit?: (kind: string, rows: number) => void;
  /** Other processes write these tables (default false; detected anyway on their first version seen). */
  sharedWriters?: boolean;
  /** While no other writer is known, seconds between the version checks that would notice one (default 1). */
  soleWriterCheckSeconds?: number;
  /** Byte budget of the row cache over all tables (default 512 MiB; 0 turns the cache layer off). */
  hotRowsBytes?: number;
  /** When the row cache loads an end-user it does not hold (defaults in `WarmerOptions`). */
  warmer?: WarmerOptions;
  /**
   * `process` (default): a write is acknowledged once LanceDB committed it — it survives a crash of
   * this process, not a power loss. `fsync`: each commit's files and directories are fsynced first.
   */
  durability?: "process" | "fsync";
  /** Where storage conditions (a full volume) are reported (default: none). */
  logger?: DiskSpaceLogger;
  /** Asked before rows about an end-user land, so an erasure is a barrier (default: none). */
  fence?: WriteFence;
  /**
   * Shard tables per new tenant for the kinds that grow with it (`memories`, `episodes`; default 8;
   * 1 = one table per kind). A tenant keeps the layout it was created with (see `sharded-collection.ts`).
   */
  tableShards?: number;
}

/** A table kind: its name prefix, schema, codec and the indexes it needs. */
export interface TableKind<T extends Keyed> {
  name: string;
  schema: (dimension: number) => Schema;
  codec: Codec<T>;
  /** Columns that get a scalar (btree) index. */
  scalarIndexes?: readonly string[];
  /** Reads for one end-user (`forUser`) are served by the row cache layer (`CachedCollection`). */
  cached?: boolean;
  /** The row cache also holds vectors (default true). */
  hotVectors?: boolean;
  /**
   * Columns besides `id` that reads of held rows look up through an index (see `CachedCollection`);
   * those with a scalar index are lookups on the engine too (`LanceCollection`).
   */
  lookupColumns?: readonly string[];
  /** A tenant's rows of this kind are split into shard tables by end-user (`tableShards`). */
  sharded?: boolean;
  /** The kind holds one record per end-user, stored as revisions of it: erasure counts the record, not its rows. */
  oneRecordPerUser?: boolean;
}

/** `memories`: sharded by end-user (`store.collection(tenant, MEMORIES)` is its one unsharded table). */
export const MEMORIES: TableKind<MemoryRecord> = {
  name: "memories",
  schema: memorySchema,
  codec: memoryCodec,
  // `id` too: the merge of every write joins on it, and lookups by id are on every Remember.
  // `turn_key`: the turns next to a recall's candidates, one indexed lookup (`adjacentTurns`).
  scalarIndexes: ["user", "id", "turn_key"],
  cached: true,
  sharded: true,
  // History chains (`superseded_by IN …`) on every recall that asks for them; the turns next to
  // a recall's candidates (`turn_key IN …`, and `trace_number IN …` for rows stored without a key).
  lookupColumns: ["superseded_by", "turn_key", "trace_number"],
};
/** `episodes`: sharded by end-user like `MEMORIES`. */
export const EPISODES: TableKind<EpisodeRecord> = {
  name: "episodes",
  schema: episodeSchema,
  codec: episodeCodec,
  scalarIndexes: ["user", "id"],
  cached: true,
  sharded: true,
  hotVectors: false,
  // The neighbouring turns of every recall's candidates (`trace_number IN …`).
  lookupColumns: ["trace_number"],
};

// Small and written only by the access tracker: last-used marks no longer rewrite memory rows.
const MEMORY_USE: TableKind<MemoryUseRecord> = { name: "memory_use", schema: memoryUseSchema, codec: memoryUseCodec, scalarIndexes: ["id"] };

const PROFILES: TableKind<ProfileRecord> = { name: "profiles", schema: profileSchema, codec: profileCodec };
const ANCHORS: TableKind<AnchorRecord> = { name: "anchors", schema: anchorSchema, codec: anchorCodec };
const USAGE: TableKind<UsageRecord> = { name: "usage", schema: usageSchema, codec: usageCodec };

const RELATIONS: TableKind<RelationRecord> = {
  name: "relations",
  schema: relationSchema,
  codec: relationCodec,
  // A relation read for an end-user not held selects that user's revisions.
  scalarIndexes: ["user"],
  oneRecordPerUser: true,
  // Every Process turn reads its end-user's relation first: from memory, not a scan of the table's fragments.
  cached: true,
  hotVectors: false,
};
const THIRD_PARTIES: TableKind<ThirdPartyRecord> = {
  name: "third_parties",
  schema: thirdPartySchema,
  codec: thirdPartyCodec,
  scalarIndexes: ["user"],
};

const CONVERSATIONS: TableKind<ConversationRecord> = {
  name: "conversations",
  schema: conversationSchema,
  codec: conversationCodec,
  scalarIndexes: ["user", "id"],
  // Every call reads one end-user's conversations: served from memory (no vectors to hold).
  cached: true,
  hotVectors: false,
};
const CONVERSATION_MESSAGES: TableKind<MessageRecord> = {
  name: "conversation_messages",
  schema: messageSchema,
  codec: messageCodec,
  scalarIndexes: ["user", "session"],
  cached: true,
  hotVectors: false,
};

const AUDIT: TableKind<AuditRecord> = { name: "audit", schema: auditSchema, codec: auditCodec };
const RETENTION: TableKind<RetentionRecord> = { name: "retention", schema: retentionSchema, codec: retentionCodec };

/** Every table kind this build knows (a kind missing here is still found on disk by `personalTables`). */
export const TABLE_KINDS: readonly TableKind<Keyed>[] = [
  MEMORIES,
  EPISODES,
  MEMORY_USE,
  PROFILES,
  ANCHORS,
  USAGE,
  RELATIONS,
  THIRD_PARTIES,
  AUDIT,
  RETENTION,
  CONVERSATIONS,
  CONVERSATION_MESSAGES,
];

/**
 * A table of the store: the engine collection, or the row cache layer over it (whose `engine` is
 * the engine collection, for maintenance and erasure).
 */
export type StoreCollection<T extends Keyed> = LanceCollection<T> | CachedCollection<T, LanceCollection<T>>;

/** A tenant's collection of a sharded kind: one table (with its cache layer) or its shards. */
export type TenantCollection<T extends Keyed & { user: string }> = StoreCollection<T> | ShardedCollection<T>;

/** What a `renewSession` did: the old session's size and items, the tables reopened, how long it took. */
export interface SessionRenewal {
  bytes: number;
  items: number;
  tables: number;
  /** Of the tables reopened, those warmed first (read in the last `WARM_IF_READ_WITHIN_MS`). */
  warmed: number;
  millis: number;
}

/** A renewal warms the new handle of a table read this recently (`LanceCollection.warm`); others start cold. */
const WARM_IF_READ_WITHIN_MS = 10 * 60_000;

/** Shard tables per new tenant when `tableShards` is not given. */
export const DEFAULT_TABLE_SHARDS = 8;

/** The shard tables of one kind and count as one personal table: an end-user's rows are in their shard. */
class ShardedPersonalTable implements PersonalTable {
  readonly shards = new Map<number, PersonalTable>();
  constructor(
    readonly kind: string,
    private readonly count: number,
  ) {}

  rowsOf(user: string): Promise<Record<string, unknown>[]> {
    return this.shards.get(shardOf(user, this.count))?.rowsOf(user) ?? Promise.resolve([]);
  }

  erase(user: string): Promise<number> {
    return this.shards.get(shardOf(user, this.count))?.erase(user) ?? Promise.resolve(0);
  }
}

/** Opens (lazily) one LanceDB connection and the per-tenant tables behind `Store`. */
export class LanceStore implements Store {
  private connection: Promise<lancedb.Connection> | null = null;
  /** The LanceDB session (index and metadata caches) of `connection`. */
  private session: lancedb.Session | null = null;
  /** A `renewSession` in flight. */
  private renewing: Promise<SessionRenewal> | null = null;
  private readonly collections = new Map<string, Promise<LanceCollection<Keyed>>>();
  /** The row cache layer over a table's engine collection, for the tables that have one. */
  private readonly layers = new Map<string, CachedCollection<Keyed, LanceCollection<Keyed>>>();
  /** The collections whose open finished, readable without waiting (the write watchdog must not wait on the engine). */
  private readonly ready = new Map<string, LanceCollection<Keyed>>();
  private readonly budget: CacheBudget;
  private readonly warmer: Warmer;
  /** Per tenant and sharded kind: its collection (one table, or the shards). */
  private readonly shardedCollections = new Map<string, Promise<unknown>>();
  /** The table names last listed (see `tableExists`). */
  private listing: { at: number; names: Promise<Set<string>> } | null = null;

  /** Whether the data volume is full (health turns NOT_SERVING while it is). */
  readonly disk: DiskSpace;

  constructor(private readonly options: LanceStoreOptions) {
    this.budget = new CacheBudget(options.hotRowsBytes ?? 512 * 2 ** 20);
    this.disk = new DiskSpace(localDirectory(options.uri), options.logger);
    this.warmer = new Warmer(this.budget, options.warmer);
  }

  /** Row cache counters (hits, loads, invalidations, bytes …) for logs and metrics. */
  get cacheCounters(): Readonly<CacheCounters> {
    return this.budget.counters;
  }

  /** Runs a request's work counted as in flight: background loads of end-users not held wait until none is. */
  serving<R>(work: () => Promise<R>): Promise<R> {
    return this.warmer.reading(work);
  }

  /** Resolves once no request or read has been in flight for `idleMs` (at most after `maxWaitMs`). */
  quiet(idleMs: number, maxWaitMs: number): Promise<void> {
    return this.warmer.quiet(idleMs, maxWaitMs);
  }

  /** Whether no request or read has been in flight for `idleMs` now. */
  isQuiet(idleMs: number): boolean {
    return this.warmer.isQuiet(idleMs);
  }

  /** Resolves once the background loads of end-users asked for so far have run (see `Warmer`). */
  warmed(): Promise<void> {
    return this.warmer.idle();
  }

  get dimension(): number {
    return this.options.dimension;
  }

  memories(tenant: string): Promise<TenantCollection<MemoryRecord>> {
    return this.sharded(tenant, MEMORIES);
  }

  episodes(tenant: string): Promise<TenantCollection<EpisodeRecord>> {
    return this.sharded(tenant, EPISODES);
  }

  /**
   * A tenant's collection of a sharded kind: its unsharded table when that exists (a tenant
   * created before shards, or with `tableShards` 1), else a `ShardedCollection` over the shard
   * tables (the count they were created with, or `tableShards` for a new tenant).
   */
  sharded<T extends Keyed & { user: string }>(tenant: string, kind: TableKind<T>): Promise<TenantCollection<T>> {
    const key = `${kind.name}__${encodeTenant(tenant)}`;
    let c = this.shardedCollections.get(key);
    if (!c) {
      c = this.layout(tenant, kind).then((count): Promise<TenantCollection<T>> | TenantCollection<T> =>
        count <= 1 ? this.collection(tenant, kind) : new ShardedCollection(this.shardTables(tenant, kind, count)),
      );
      c.catch(() => this.shardedCollections.delete(key));
      this.shardedCollections.set(key, c);
    }
    return c as Promise<TenantCollection<T>>;
  }

  /** The shard count of a tenant's kind: 1 when its unsharded table exists, else the count its shard tables were created with, else `tableShards`. */
  private async layout(tenant: string, kind: TableKind<Keyed>): Promise<number> {
    const configured = Math.max(1, Math.floor(this.options.tableShards ?? DEFAULT_TABLE_SHARDS));
    if (!kind.sharded) return 1;
    const names = await (await this.connect()).tableNames();
    if (names.includes(tableName(kind.name, tenant))) return 1;
    const counts = new Map<number, number>();
    for (const name of names) {
      const parsed = parseTableName(name);
      if (parsed?.shard && parsed.kind === kind.name && parsed.tenant === tenant) counts.set(parsed.shard.count, (counts.get(parsed.shard.count) ?? 0) + 1);
    }
    if (counts.size === 0) return configured;
    // One count per tenant is the rule; should tables of two counts exist, the one with more tables routes.
    return [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0][0];
  }

  /** How a `ShardedCollection` reaches the shard tables of a tenant's kind. */
  private shardTables<T extends Keyed>(tenant: string, kind: TableKind<T>, count: number): ShardTables<T> {
    const names = Array.from({ length: count }, (_, index) => tableName(kind.name, tenant, { index, count }));
    const name = (index: number) => names[index];
    const layerOf = (n: string, engine: LanceCollection<T>) => (this.layers.get(n) as CachedCollection<T, LanceCollection<T>> | undefined) ?? engine;
    return {
      count,
      opened: (index) => {
        const n = name(index);
        const engine = this.ready.get(n) as LanceCollection<T> | undefined;
        return engine ? layerOf(n, engine) : undefined;
      },
      create: async (index) => layerOf(name(index), await this.engineNamed(tenant, name(index), kind)),
      existing: async (index) => {
        const n = name(index);
        if (!this.collections.has(n) && !(await this.tableExists(n))) return undefined;
        return layerOf(n, await this.engineNamed(tenant, n, kind));
      },
    };
  }

  /** Whether a table exists, from a listing at most a second old (shards another process created show up within it). */
  private async tableExists(name: string): Promise<boolean> {
    const now = performance.now();
    if (!this.listing || now - this.listing.at > 1_000) {
      const names = (await this.connect()).tableNames().then((n) => new Set(n));
      this.listing = { at: now, names };
      names.catch(() => (this.listing = null));
    }
    return (await this.listing.names).has(name);
  }

  memoryUse(tenant: string): Promise<StoreCollection<MemoryUseRecord>> {
    return this.collection(tenant, MEMORY_USE);
  }

  relations(tenant: string): Promise<StoreCollection<RelationRecord>> {
    return this.collection(tenant, RELATIONS);
  }

  thirdParties(tenant: string): Promise<StoreCollection<ThirdPartyRecord>> {
    return this.collection(tenant, THIRD_PARTIES);
  }

  profiles(tenant: string): Promise<StoreCollection<ProfileRecord>> {
    return this.collection(tenant, PROFILES);
  }

  anchors(tenant: string): Promise<StoreCollection<AnchorRecord>> {
    return this.collection(tenant, ANCHORS);
  }

  usage(tenant: string): Promise<StoreCollection<UsageRecord>> {
    return this.collection(tenant, USAGE);
  }

  audit(tenant: string): Promise<StoreCollection<AuditRecord>> {
    return this.collection(tenant, AUDIT);
  }

  retention(tenant: string): Promise<StoreCollection<RetentionRecord>> {
    return this.collection(tenant, RETENTION);
  }

  conversations(tenant: string): Promise<StoreCollection<ConversationRecord>> {
    return this.collection(tenant, CONVERSATIONS);
  }

  conversationMessages(tenant: string): Promise<StoreCollection<MessageRecord>> {
    return this.collection(tenant, CONVERSATION_MESSAGES);
  }

  /**
   * The tenant's tables that hold rows about end-users — every table on disk with a `user`
   * column, whichever code created it — for erasure and export.
   */
  async personalTables(tenant: string): Promise<PersonalTable[]> {
    const db = await this.connect();
    const suffix = `__${encodeTenant(tenant)}`;
    const dir = localDirectory(this.options.uri);
    const out: PersonalTable[] = [];
    // Shard tables of one kind and count become one personal table that goes to the end-user's shard.
    const shardGroups = new Map<string, ShardedPersonalTable>();
    for (const name of (await db.tableNames()).filter((n) => n.endsWith(suffix)).sort()) {
      const prefix = name.slice(0, -suffix.length);
      if (prefix.includes("__")) continue;
      const kindName = baseKind(prefix);
      const shard = parseTableName(name)?.shard;
      const kind = TABLE_KINDS.find((k) => k.name === kindName);
      const opened = this.collections.get(name);
      const collection = opened ? await opened : kind ? await this.engineNamed(tenant, name, kind) : undefined;
      const table = collection?.lanceTable ?? (await db.openTable(name));
      if (!(await holdsEndUserRows(table))) continue;
      // A table no code of this process has opened has no write queue to wait for.
      const exclusive: Exclusive = collection ? (work) => collection.exclusive(work) : (work) => work(table);
      const personal = new LancePersonalTable(kindName, table, exclusive, dir === null ? null : join(dir, `${name}.lance`), kind?.oneRecordPerUser ?? false);
      if (!shard) {
        out.push(personal);
        continue;
      }
      const key = `${kindName}/${shard.count}`;
      let group = shardGroups.get(key);
      if (!group) {
        group = new ShardedPersonalTable(kindName, shard.count);
        shardGroups.set(key, group);
        out.push(group);
      }
      group.shards.set(shard.index, personal);
    }
    return out;
  }

  /** Bytes on disk of every table of the tenant (see `tableBytes`). */
  async bytesOnDisk(tenant: string): Promise<number> {
    const db = await this.connect();
    const suffix = `__${encodeTenant(tenant)}`;
    const names = (await db.tableNames()).filter((n) => n.endsWith(suffix) && !n.slice(0, -suffix.length).includes("__"));
    let total = 0;
    for (const name of names) total += await tableBytes(db, this.options.uri, name);
    return total;
  }

  async tenants(): Promise<string[]> {
    const names = await (await this.connect()).tableNames();
    const out = new Set<string>();
    for (const name of names) {
      const parsed = parseTableName(name);
      if (parsed?.kind === MEMORIES.name) out.add(parsed.tenant);
    }
    return [...out];
  }

  /** The open LanceDB connection (for maintenance and benches). */
  connect(): Promise<lancedb.Connection> {
    this.connection ??= this.newConnection();
    return this.connection;
  }

  /** A connection with a session of its own (empty caches). */
  private newConnection(): Promise<lancedb.Connection> {
    this.session = new lancedb.Session(BigInt(this.options.indexCacheBytes ?? 48 * 2 ** 20), BigInt(this.options.metadataCacheBytes ?? 32 * 2 ** 20));
    return lancedb.connect(this.options.uri, { readConsistencyInterval: this.options.readConsistencySeconds ?? 0, session: this.session });
  }

  /**
   * Opens every open table again on a new connection with a new LanceDB session, whose caches
   * start empty; the old handles serve what already started on them and are then dropped. Why:
   * a session that has seen a large ingest and its compactions reads slower than a new one over
   * the same tables, and stays so — at 1M memories, engine-path recall p50 45–68 ms in the
   * process that ingested against 31–35 ms in a process started afterwards, alternating on the
   * same tables; renewing brought it to 34–41 ms (docs/operations.md, "Measured at 1M"). Reopening
   * on the same session did not help. Background maintenance calls this
   * after its passes (`Maintainer`, `renewSessionMs`); the row cache is unaffected. The old
   * session's caches are freed when V8 collects the old handles.
   */
  renewSession(): Promise<SessionRenewal> {
    this.renewing ??= (async () => {
      const started = performance.now();
      const old = this.session;
      const before = old ? { bytes: Number(old.sizeBytes()), items: old.approxNumItems() } : { bytes: 0, items: 0 };
      if (!this.connection) return { ...before, tables: 0, warmed: 0, millis: 0 };
      // Set first: a table opened from now on opens on the new connection.
      const connection = this.newConnection();
      this.connection = connection;
      const db = await connection;
      let tables = 0;
      let warmed = 0;
      for (const [name, c] of await this.openCollections()) {
        try {
          const table = await db.openTable(name);
          // A table read lately is warmed before it is handed over (requests meanwhile go on
          // reading on the old handle); one nobody reads would only be warmed for nothing.
          if (c.idleForMs() < WARM_IF_READ_WITHIN_MS) {
            await c.warm(table).catch((error: unknown) => this.options.logger?.warn({ table: name, err: String(error) }, "table not warmed on the new LanceDB session"));
            warmed++;
          }
          c.reopened(table);
          tables++;
        } catch (error) {
          // Dropped meanwhile, or unreadable now: the old handle stays (its next read says why).
          this.options.logger?.warn({ table: name, err: String(error) }, "table not reopened on the new LanceDB session");
        }
      }
      return { ...before, tables, warmed, millis: performance.now() - started };
    })().finally(() => (this.renewing = null));
    return this.renewing;
  }

  /**
   * Opens the tables on disk and warms each (`LanceCollection.warm`, and its row cache's user
   * directory, `TableCache.warm`): every tenant's `memories` first, then `episodes`, then the
   * rest, until `budgetMs` has passed. `agentmem serve` runs it before it listens, so the first
   * requests do not each load a cold table's indexes.
   */
  async warmUp(budgetMs: number): Promise<{ tables: number; millis: number }> {
    const started = performance.now();
    const rank = (kind: string) => (kind === MEMORIES.name ? 0 : kind === EPISODES.name ? 1 : 2);
    const tables = (await (await this.connect()).tableNames())
      .map((name) => ({ name, parsed: parseTableName(name) }))
      .flatMap(({ name, parsed }) => {
        const kind = parsed && TABLE_KINDS.find((k) => k.name === parsed.kind);
        return kind ? [{ name, tenant: parsed.tenant, kind }] : [];
      })
      .sort((a, b) => rank(a.kind.name) - rank(b.kind.name) || a.name.localeCompare(b.name));
    let warmed = 0;
    for (const { name, tenant, kind } of tables) {
      if (performance.now() - started >= budgetMs) break;
      try {
        await (await this.engineNamed(tenant, name, kind)).warm();
        await this.layers.get(name)?.cache.warm();
        warmed++;
      } catch (error) {
        this.options.logger?.warn({ table: name, err: String(error) }, "table not warmed");
      }
    }
    return { tables: warmed, millis: performance.now() - started };
  }

  /** The collection of a tenant for any table kind (the cache layer over it, if it has one); creates the table on first use. */
  async collection<T extends Keyed>(tenant: string, kind: TableKind<T>): Promise<StoreCollection<T>> {
    const name = `${kind.name}__${encodeTenant(tenant)}`;
    const engine = await this.engine(tenant, kind);
    return (this.layers.get(name) as CachedCollection<T, LanceCollection<T>> | undefined) ?? engine;
  }

  /** The engine collection of a tenant's table, under any cache layer; creates the table on first use. */
  engine<T extends Keyed>(tenant: string, kind: TableKind<T>): Promise<LanceCollection<T>> {
    return this.engineNamed(tenant, `${kind.name}__${encodeTenant(tenant)}`, kind);
  }

  /** The engine collection of a tenant's table of `kind` called `name` (a shard table, or the one table); creates it on first use. */
  engineNamed<T extends Keyed>(tenant: string, name: string, kind: TableKind<T>): Promise<LanceCollection<T>> {
    let c = this.collections.get(name);
    if (!c) {
      c = this.open(tenant, name, kind).then((opened) => {
        this.ready.set(name, opened as unknown as LanceCollection<Keyed>);
        return opened;
      }, (error: unknown) => {
        this.collections.delete(name);
        throw this.disk.translate(error);
      }) as unknown as Promise<LanceCollection<Keyed>>;
      this.collections.set(name, c);
    }
    return c as unknown as Promise<LanceCollection<T>>;
  }

  /** Commits and write calls per table kind, summed over tenants (monotonic), for logs and metrics. */
  async writeTotals(): Promise<Map<string, { commits: number; tasks: number }>> {
    const out = new Map<string, { commits: number; tasks: number }>();
    for (const [name, c] of await this.openCollections()) {
      const kind = baseKind(name.slice(0, name.indexOf("__")));
      const sum = out.get(kind) ?? { commits: 0, tasks: 0 };
      sum.commits += c.writeTotals.commits;
      sum.tasks += c.writeTotals.tasks;
      out.set(kind, sum);
    }
    return out;
  }

  /** Open tables with their vector column, for background maintenance (`Maintainer`). */
  async maintainedTables(): Promise<Map<string, MaintainedTable>> {
    const out = new Map<string, MaintainedTable>();
    for (const [name, c] of await this.openCollections()) {
      out.set(name, {
        table: c.lanceTable,
        vectorColumn: c.vectorColumn,
        around: (work) => c.maintain(() => work()),
        exclusive: (work) => c.maintainExclusive(() => work()),
      });
    }
    return out;
  }

  /** The table whose engine commit has been running longest, if one is in flight (for `WriteWatchdog`). */
  oldestCommit(): { table: string; ms: number } | null {
    const now = performance.now();
    let oldest: { table: string; ms: number } | null = null;
    for (const [table, c] of this.ready) {
      const ms = c.commitAgeMs(now);
      if (ms > 0 && (!oldest || ms > oldest.ms)) oldest = { table, ms };
    }
    return oldest;
  }

  /** Every open collection by table name. */
  async openCollections(): Promise<Map<string, LanceCollection<Keyed>>> {
    const out = new Map<string, LanceCollection<Keyed>>();
    for (const [name, c] of this.collections) out.set(name, await c);
    return out;
  }

  async close(): Promise<void> {
    this.disk.stop();
    await this.warmer.stop();
    for (const c of (await this.openCollections()).values()) await c.idle();
    if (this.connection) (await this.connection).close();
    this.connection = null;
    this.collections.clear();
    this.shardedCollections.clear();
    this.listing = null;
    this.layers.clear();
    this.ready.clear();
  }

  private async open<T extends Keyed>(tenant: string, name: string, kind: TableKind<T>): Promise<LanceCollection<T>> {
    const db = await this.connect();
    let existing = (await db.tableNames()).includes(name);
    let table: lancedb.Table;
    if (existing) table = await db.openTable(name);
    else {
      try {
        table = await db.createEmptyTable(name, kind.schema(this.dimension), { existOk: true });
      } catch (error) {
        // Another process created it meanwhile (and may have set its key, which `existOk`'s schema
        // comparison does not forgive): open theirs.
        if (!(await db.tableNames()).includes(name)) throw error;
        table = await db.openTable(name);
        existing = true;
      }
    }
    if (kind.codec.vectorColumn) await this.checkDimension(table, kind.codec.vectorColumn);
    if (!existing) await this.prepare(table, kind);
    else await this.upgrade(table, kind);
    const fence = this.options.fence ? { tenant, fence: this.options.fence } : undefined;
    const dir = localDirectory(this.options.uri);
    const fsync = this.options.durability === "fsync" && dir !== null ? new TableFsync(join(dir, `${name}.lance`)) : undefined;
    const guards = { fence, disk: this.disk, fsync };
    // The indexed columns that name a row or a few (not `user`): the engine answers a read restricted to them as a lookup.
    const keys = (kind.scalarIndexes ?? []).filter((c) => c === "id" || (kind.lookupColumns ?? []).includes(c));
    const engine = new LanceCollection(table, kind.codec, (rows) => this.options.onCommit?.(kind.name, rows), guards, keys);
    const layer = await this.cacheLayer(name, table, kind, engine);
    if (layer) this.layers.set(name, layer as unknown as CachedCollection<Keyed, LanceCollection<Keyed>>);
    return engine;
  }

  /** The row cache layer over a table that asks for one, unless the cache is off (`hotRowsBytes` 0). */
  private async cacheLayer<T extends Keyed>(name: string, table: lancedb.Table, kind: TableKind<T>, engine: LanceCollection<T>): Promise<CachedCollection<T, LanceCollection<T>> | undefined> {
    const { vectorColumn, textColumn } = kind.codec;
    if (!kind.cached) return undefined;
    // A kind without vectors is cached only when it says so (`hotVectors: false`): rows alone.
    const vectors = kind.hotVectors ?? true;
    if ((!vectorColumn && vectors) || this.budget.maxBytes <= 0) return undefined;
    const analyzerMatches = textColumn !== undefined && (await defaultAnalyzer(table, textColumn));
    const cache = new TableCache({
      source: engine,
      name,
      budget: this.budget,
      warmer: this.warmer,
      vectors,
      analyzerMatches,
      sharedWriters: this.options.sharedWriters,
      soleWriterCheckMs: (this.options.soleWriterCheckSeconds ?? 1) * 1000,
    });
    return new CachedCollection(engine, cache, kind.lookupColumns);
  }

  private async checkDimension(table: lancedb.Table, column: string): Promise<void> {
    const field = (await table.schema()).fields.find((f) => f.name === column);
    const size = (field?.type as { listSize?: number } | undefined)?.listSize;
    if (size !== undefined && size !== this.dimension) {
      throw new AgentMemError(
        "FAILED_PRECONDITION",
        "EMBEDDING_DIMENSION_MISMATCH",
        `table ${table.name} holds ${size}-d vectors but the embedder makes ${this.dimension}-d; ` +
          "start with the embedder the data was written with, or run `agentmem reembed`",
      );
    }
  }

  /** Adds to an older table the columns it lacks, and the btree indexes this kind keeps on them. */
  private async upgrade<T extends Keyed>(table: lancedb.Table, kind: TableKind<T>): Promise<void> {
    const added = await addMissingColumns(table, kind.schema(this.dimension));
    for (const c of (kind.scalarIndexes ?? []).filter((c) => added.includes(c))) {
      await preparedByEither(() => table.createIndex(c, { config: lancedb.Index.btree(), replace: true }));
    }
  }

  private async prepare<T extends Keyed>(table: lancedb.Table, kind: TableKind<T>): Promise<void> {
    await preparedByEither(() => table.setUnenforcedPrimaryKey("id"));
    if (kind.codec.textColumn) {
      const column = kind.codec.textColumn;
      await preparedByEither(() => table.createIndex(column, { config: lancedb.Index.fts({ withPosition: false }), replace: true }));
    }
    for (const c of kind.scalarIndexes ?? []) {
      await preparedByEither(() => table.createIndex(c, { config: lancedb.Index.btree(), replace: true }));
    }
  }
}

/**
 * One step of preparing a new table. Two processes on one data directory can create the same
 * table at once (a shard table is created by the first write that lands in it): both then make
 * the same key and index commits, and the later one is refused as conflicting with the earlier.
 * (or the step is refused as already done). The earlier did the same step, so that is success.
 */
async function preparedByEither(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!/incompatible transaction|commit conflict|preempted|is already set|already exists/i.test(String(error))) throw error;
  }
}
