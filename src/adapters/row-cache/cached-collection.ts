import type {
  AppendableCollection,
  FindOptions,
  Keyed,
  Scored,
  ScoreOptions,
  UserCollection,
  VersionedCollection,
} from "../../ports/collection.js";
import type { Condition } from "../../core/condition.js";
import { where } from "../../core/condition.js";
import { lookupValues, rowFilter } from "../../core/row-filter.js";
import type { CacheableCollection, StoredRow } from "./source.js";
import { TableCache, USER_COLUMN } from "./table-cache.js";
import type { RowHit, UserRows } from "./user-rows.js";

/** Ids per engine lookup when a write tells new ids from stored ones among users not held. */
const LOOKUP_IDS = 1_000;

// The engine's full-text query is the text reduced to words; held rows are matched on the same words.
function ftsQuery(text: string): string {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).join(" ").slice(0, 4096);
}

/** What a read of held rows needs them to carry. */
type Need = "rows" | "vectors" | "match";

/**
 * The row cache as a layer: a `Collection` over another `Collection` (the engine's) that answers
 * reads for one end-user (`forUser`) from that user's rows held in memory — flat cosine scan,
 * in-memory BM25 with the index's analyzer, the same filter semantics — and lookups by id from
 * every held user. Writes go to the collection underneath, which tells the cache what it
 * committed (`CommitObserver`), so held rows are current for every acknowledged write. A read for
 * an end-user who is not held goes down at once; the user is loaded in the background.
 */
export class CachedCollection<T extends Keyed, E extends CacheableCollection<T> = CacheableCollection<T>>
  implements VersionedCollection<T>, AppendableCollection<T>
{
  constructor(
    /** The collection underneath (the storage engine's). */
    readonly engine: E,
    /** The held rows of this table. */
    readonly cache: TableCache,
    /** Besides `id`, columns whose `=` / `IN` reads of held rows go through a per-user index (e.g. `trace_number`). */
    private readonly lookupColumns: readonly string[] = [],
  ) {
    engine.observe(
      {
        commitStarted: () => cache.beginCommit(),
        committed: (version, rows, mode) => cache.committed(version, rows, mode),
        deleted: (version, user) => cache.deleted(version, user),
        commitFailed: () => cache.failed(),
        rewritten: (from, to) => cache.rewritten(from, to),
        maintenanceStarted: () => cache.beginMaintenance(),
        maintenanceEnded: (from, to) => cache.endMaintenance(from, to),
      },
      { knownIds: (rows) => this.knownIds(rows), byIds: (ids) => this.heldByIds(ids) },
    );
  }

  upsert(rows: readonly T[]): Promise<void> {
    return this.engine.upsert(rows);
  }

  insertNew(rows: readonly T[]): Promise<void> {
    return this.engine.insertNew(rows);
  }

  append(rows: readonly T[]): Promise<void> {
    return this.engine.append(rows);
  }

  patch(ids: readonly string[], change: (row: T) => T | undefined, insert?: readonly T[]): Promise<T[]> {
    return this.engine.patch(ids, change, insert);
  }

  delete(condition: Condition): Promise<number> {
    return this.engine.delete(condition);
  }

  version(): Promise<number> {
    return this.engine.version();
  }

  project(condition: Condition, columns: readonly string[]): Promise<Record<string, string | number | null>[]> {
    return this.engine.project(condition, columns);
  }

  get(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.find(where.in("id", ids));
  }

  find(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    return this.cache.reading(async () => {
      const withVector = !options.withoutVector;
      const ids = !withVector || this.cache.servesVectors ? lookupValues(condition, "id") : undefined;
      if (!ids || options.limit !== undefined) return this.engine.find(condition, options);
      // Lookups by id: rows held in memory are current, so only the others go to the engine.
      const { hits, missing } = await this.cache.byIds([...ids].map(String));
      const keep = rowFilter(condition);
      const found = hits.filter((h) => keep(h.row)).map((h) => this.decode(h, withVector));
      return missing.length === 0 ? found : [...found, ...(await this.engine.find(where.and(condition, where.in("id", missing)), options))];
    });
  }

  count(condition: Condition): Promise<number> {
    return this.cache.reading(() => this.engine.count(condition));
  }

  nearest(vector: Float32Array, condition: Condition, limit: number, options?: ScoreOptions): Promise<Scored<T>[]> {
    return this.cache.reading(() => this.engine.nearest(vector, condition, limit, options));
  }

  match(text: string, condition: Condition, limit: number, options?: ScoreOptions): Promise<Scored<T>[]> {
    return this.cache.reading(() => this.engine.match(text, condition, limit, options));
  }

  forUser(user: string): UserCollection<T> {
    return new CachedUserCollection(this, user);
  }

  /**
   * The held rows of `user` if they can serve `need` now; `undefined` → ask the engine (a user not
   * held is loaded in the background, see `TableCache.cached`).
   */
  async held(user: string, need: Need): Promise<UserRows | undefined> {
    if ((need === "vectors" && !this.cache.servesVectors) || (need === "match" && !this.cache.servesMatch)) return undefined;
    return this.cache.cached(user);
  }

  /** Which `lookupValues` columns a read of held rows answers through an index. */
  get indexedColumns(): readonly string[] {
    return this.lookupColumns;
  }

  /**
   * A record from a held row. Codecs build fresh objects and arrays from what they read, so callers
   * may mutate what they get; the vector is the hit's own copy (or empty).
   */
  decode(hit: RowHit, withVector: boolean): T {
    if (!this.engine.vectorColumn) return this.engine.decode(hit.row);
    return this.engine.decode(hit.row, withVector ? hit.vector : EMPTY);
  }

  /**
   * The stored ids among these rows' ids, while no other writer is known: a held end-user (or one
   * the table never held, started empty at no cost) knows every id of theirs; the ids of other users
   * are looked up in the engine (`id IN …`, one btree lookup). Loading those users instead
   * (as before 2026-12-06) cost a scan of all their rows and ~45 ms of the main thread per 1,000
   * rows for each single write to a user not held, who is not thereby read again soon. Asked inside
   * the engine's write queue, so no other write of this process lands in between; another process
   * appending the same new id at the same instant could still add it twice (see docs/operations.md).
   */
  private async knownIds(rows: readonly StoredRow[]): Promise<ReadonlySet<string> | undefined> {
    if (!this.cache.soleWriter) return undefined;
    const byUser = new Map<string, string[]>();
    for (const r of rows) {
      const user = String(r.row[USER_COLUMN]);
      const ids = byUser.get(user);
      if (ids) ids.push(r.id);
      else byUser.set(user, [r.id]);
    }
    const known = new Set<string>();
    const elsewhere: string[] = [];
    for (const [user, ids] of byUser) {
      const held = this.cache.held(user) || (await this.cache.isNew(user)) ? await this.cache.rowsOf(user) : undefined;
      if (held) for (const id of ids) if (held.has(id)) known.add(id);
      if (!held) elsewhere.push(...ids);
    }
    for (let i = 0; i < elsewhere.length; i += LOOKUP_IDS) {
      const stored = await this.engine.project(where.in("id", elsewhere.slice(i, i + LOOKUP_IDS)), ["id"]);
      for (const r of stored) known.add(String(r.id));
    }
    return known;
  }

  /** Rows by id from held users (with vectors), for the engine's patch. */
  private async heldByIds(ids: readonly string[]): Promise<{ found: T[]; missing: string[] }> {
    if (!this.cache.servesVectors) return { found: [], missing: [...ids] };
    const { hits, missing } = await this.cache.byIds(ids);
    return { found: hits.map((h) => this.decode(h, true)), missing };
  }
}

const EMPTY = new Float32Array(0);

/** One end-user's reads through the cache layer: from the user's held rows, else the engine's. */
class CachedUserCollection<T extends Keyed> implements UserCollection<T> {
  private engineReads: UserCollection<T> | undefined;

  constructor(
    private readonly outer: CachedCollection<T>,
    readonly user: string,
  ) {}

  /** The engine's reads for this user (it narrows every condition to the user). */
  private get engine(): UserCollection<T> {
    this.engineReads ??= this.outer.engine.forUser(this.user);
    return this.engineReads;
  }

  inMemory(): boolean {
    return this.outer.cache.held(this.user);
  }

  get(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.find(where.in("id", ids));
  }

  find(condition: Condition, options: FindOptions = {}): Promise<T[]> {
    return this.outer.cache.reading(async () => {
      const withVector = !options.withoutVector;
      const held = await this.outer.held(this.user, withVector ? "vectors" : "rows");
      if (!held) return this.engine.find(condition, options);
      const keep = rowFilter(condition);
      for (const column of ["id", ...this.outer.indexedColumns]) {
        const values = lookupValues(condition, column);
        if (values) return held.lookup(column, values, keep, options.limit, withVector).map((h) => this.outer.decode(h, withVector));
      }
      return held.filter(keep, options.limit, withVector).map((h) => this.outer.decode(h, withVector));
    });
  }

  project(condition: Condition, columns: readonly string[]): Promise<Record<string, string | number | null>[]> {
    return this.engine.project(condition, columns);
  }

  count(condition: Condition): Promise<number> {
    return this.outer.cache.reading(async () => {
      const held = await this.outer.held(this.user, "rows");
      return held ? held.count(rowFilter(condition)) : this.engine.count(condition);
    });
  }

  nearest(vector: Float32Array, condition: Condition, limit: number, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    return this.outer.cache.reading(async () => {
      const held = await this.outer.held(this.user, "vectors");
      if (!held) return this.engine.nearest(vector, condition, limit, options);
      const withVector = !options.withoutVector;
      const ids = lookupValues(condition, "id");
      const hits = ids ? held.nearestAmong(ids, vector, rowFilter(condition), limit, withVector) : held.nearest(vector, rowFilter(condition), limit, withVector);
      return hits.map((h) => ({ row: this.outer.decode(h, withVector), score: h.score }));
    });
  }

  match(text: string, condition: Condition, limit: number, options: ScoreOptions = {}): Promise<Scored<T>[]> {
    return this.outer.cache.reading(async () => {
      const query = ftsQuery(text);
      if (!this.outer.engine.textColumn || query === "") return [];
      const held = await this.outer.held(this.user, "match");
      if (!held) return this.engine.match(text, condition, limit, options);
      const withVector = !options.withoutVector;
      return held.match(query, rowFilter(condition), limit, withVector).map((h) => ({ row: this.outer.decode(h, withVector), score: h.score }));
    });
  }

  delete(condition: Condition): Promise<number> {
    return this.engine.delete(condition);
  }
}
