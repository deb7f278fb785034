import type { Condition } from "../../core/condition.js";
import type { AppendableCollection, FindOptions, Keyed, Scored, ScoreOptions, UserCollection, VersionedCollection } from "../../ports/collection.js";

// One tenant's big kind (`memories`, `episodes`) split into N tables by a stable hash of the
// end-user. Each shard is an ordinary collection (the row cache layer over a `LanceCollection`),
// maintained on its own, so a compaction pass rewrites at most one shard's fragments and its cost
// stops growing with the tenant. Services see one collection (the port hides the shards).

/** FNV-1a (32-bit) of a string's UTF-16 code units: stable across processes and releases. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The shard (0 … count-1) an end-user's rows live in. */
export function shardOf(user: string, count: number): number {
  return count <= 1 ? 0 : fnv1a(user) % count;
}

/** How a `ShardedCollection` reaches its shard tables. */
export interface ShardTables<T extends Keyed> {
  readonly count: number;
  /** Shard `index` if its table exists (opened on first use), else undefined: reads of it find nothing. */
  existing(index: number): Promise<VersionedCollection<T> | undefined>;
  /** Shard `index`, its table created on the first write that lands in it. */
  create(index: number): Promise<VersionedCollection<T> & AppendableCollection<T>>;
  /** Shard `index` if it is open already (no I/O), for the synchronous `forUser`. */
  opened(index: number): VersionedCollection<T> | undefined;
}

const NOTHING_SCORED = Promise.resolve([]) as Promise<never[]>;

/**
 * A `PatchableCollection` over the shard tables of one tenant's kind. Writes go to the shard of
 * each row's `user`; `forUser` goes to the user's shard alone (its cache layer, if any); a read
 * that names no end-user fans out over the shards that exist and merges: rows are concatenated,
 * scored rows merged by score, limits applied after merging. Writes of one call that span shards
 * commit per shard (each shard's commit is atomic; rows of one end-user always share one).
 */
export class ShardedCollection<T extends Keyed & { user: string }> implements VersionedCollection<T>, AppendableCollection<T> {
  constructor(private readonly shards: ShardTables<T>) {}

  /** Number of shards. */
  get shardCount(): number {
    return this.shards.count;
  }

  /** The sum of the shards' versions: it changes with every commit to any shard (and grows when one is created). */
  async version(): Promise<number> {
    return (await this.fanOut((c) => c.version())).reduce((a, b) => a + b, 0);
  }

  upsert(rows: readonly T[]): Promise<void> {
    return this.write(rows, (c, part) => c.upsert(part));
  }

  insertNew(rows: readonly T[]): Promise<void> {
    return this.write(rows, (c, part) => c.insertNew(part));
  }

  append(rows: readonly T[]): Promise<void> {
    return this.write(rows, (c, part) => c.append(part));
  }

  async patch(ids: readonly string[], change: (row: T) => T | undefined, insert: readonly T[] = []): Promise<T[]> {
    const inserts = this.byShard(insert);
    // The rows to change may be in any shard (only ids are known): every existing shard looks
    // them up; a shard that gets inserted rows is created, and its change and inserts share a commit.
    const targets = new Set<number>(inserts.keys());
    const found = ids.length === 0 ? [] : await this.existingShards();
    for (const [i] of found) targets.add(i);
    const out = await Promise.all(
      [...targets].sort((a, b) => a - b).map(async (i) => {
        const part = inserts.get(i) ?? [];
        const c = part.length > 0 ? await this.shards.create(i) : found.find(([j]) => j === i)?.[1];
        return c ? c.patch(ids, change, part) : [];
      }),
    );
    return out.flat();
  }

  async get(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    return (await this.fanOut((c) => c.get(ids))).flat();
  }

  async find(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    const rows = (await this.fanOut((c) => c.find(condition, options))).flat();
    return options.limit !== undefined && rows.length > options.limit ? rows.slice(0, options.limit) : rows;
  }

  async project(condition: Condition, columns: readonly string[]): Promise<Record<string, string | number | null>[]> {
    return (await this.fanOut((c) => c.project(condition, columns))).flat();
  }

  async count(condition: Condition): Promise<number> {
    return (await this.fanOut((c) => c.count(condition))).reduce((a, b) => a + b, 0);
  }

  async nearest(vector: Float32Array, condition: Condition, limit: number, options?: ScoreOptions): Promise<Scored<T>[]> {
    return mergeScored(await this.fanOut((c) => c.nearest(vector, condition, limit, options)), limit);
  }

  /** BM25 scores come from each shard's own index statistics; merged by score all the same. */
  async match(text: string, condition: Condition, limit: number, options?: ScoreOptions): Promise<Scored<T>[]> {
    return mergeScored(await this.fanOut((c) => c.match(text, condition, limit, options)), limit);
  }

  async delete(condition: Condition): Promise<number> {
    return (await this.fanOut((c) => c.delete(condition))).reduce((a, b) => a + b, 0);
  }

  forUser(user: string): UserCollection<T> {
    const index = shardOf(user, this.shards.count);
    const open = this.shards.opened(index);
    if (open) return open.forUser(user);
    // Not open yet (or no table): each call resolves the shard; one that does not exist holds no rows.
    const reads = async () => (await this.shards.existing(index))?.forUser(user);
    return {
      user,
      get: async (ids) => (ids.length === 0 ? [] : ((await (await reads())?.get(ids)) ?? [])),
      find: async (c, options) => (await (await reads())?.find(c, options)) ?? [],
      project: async (c, columns) => (await (await reads())?.project(c, columns)) ?? [],
      count: async (c) => (await (await reads())?.count(c)) ?? 0,
      nearest: async (vector, c, limit, options) => (await (await reads())?.nearest(vector, c, limit, options)) ?? NOTHING_SCORED,
      match: async (text, c, limit, options) => (await (await reads())?.match(text, c, limit, options)) ?? NOTHING_SCORED,
      delete: async (c) => (await (await reads())?.delete(c)) ?? 0,
      inMemory: () => this.shards.opened(index)?.forUser(user).inMemory() ?? false,
    };
  }

  /** Rows grouped by the shard of their `user`. */
  private byShard(rows: readonly T[]): Map<number, T[]> {
    const out = new Map<number, T[]>();
    for (const row of rows) {
      const i = shardOf(row.user, this.shards.count);
      const part = out.get(i);
      if (part) part.push(row);
      else out.set(i, [row]);
    }
    return out;
  }

  private async write(rows: readonly T[], each: (c: VersionedCollection<T> & AppendableCollection<T>, part: T[]) => Promise<void>): Promise<void> {
    if (rows.length === 0) return;
    await Promise.all([...this.byShard(rows)].map(async ([i, part]) => each(await this.shards.create(i), part)));
  }

  /** The shards whose tables exist, with their index. */
  private async existingShards(): Promise<[number, VersionedCollection<T>][]> {
    const all = await Promise.all(Array.from({ length: this.shards.count }, (_, i) => this.shards.existing(i)));
    return all.flatMap((c, i) => (c ? [[i, c] as [number, VersionedCollection<T>]] : []));
  }

  private async fanOut<R>(read: (c: VersionedCollection<T>) => Promise<R>): Promise<R[]> {
    return Promise.all((await this.existingShards()).map(([, c]) => read(c)));
  }
}

/** Scored rows of several shards as one list, best first, at most `limit`. */
function mergeScored<T>(parts: readonly Scored<T>[][], limit: number): Scored<T>[] {
  if (parts.length === 1) return parts[0].slice(0, limit);
  return parts
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
