import type { EpisodeRecord, MemoryRecord, ScopeKey } from "../../core/records.js";
import type { Condition } from "../../core/condition.js";
import { where } from "../../core/condition.js";
import { scopeCondition } from "../../core/scope.js";
import type { ServiceDeps } from "../deps.js";
import { readsOf } from "../user-reads.js";

/** The transcript around a set of recalled turns. */
export interface Neighbourhood {
  /** Memory id → memory id of the turn just before it (same scope, trace_number − 1). */
  previous: Map<string, string>;
  /**
   * Ids of the memories of adjacent turns that were not among the given rows; the caller reads
   * them inside the recall's filter (with their similarity, in the one read that scores the rows
   * no vector search found), so nothing outside the recall's scope, time or tags comes back.
   */
  adjacent: string[];
}

const SCOPE_COLUMNS = ["namespace", "agent", "session", "user"] as const;

const scopeOf = (e: ScopeKey) => SCOPE_COLUMNS.map((c) => e[c]).join("\u0000");
const slot = (e: ScopeKey, trace: number) => `${scopeOf(e)}\u0000${trace}`;

/** Equality on every scope column, empty ones included: a turn's neighbours share its exact scope. */
function exactScope(key: ScopeKey): Condition {
  return where.and(...SCOPE_COLUMNS.map((c) => where.eq(c, key[c])));
}

/** A transcript read whole only up to this many turns; a longer one is looked up turn by turn. */
const TRANSCRIPT_MAX = 5_000;

/**
 * The scope's whole transcript, when its end-user's turns are not in memory and it is short: read
 * beside a recall's two searches, it spares `neighbours` two storage round trips after them.
 * `undefined` → `neighbours` looks the turns up (cheap in memory, or for a long transcript).
 */
export async function transcriptToScan(deps: ServiceDeps, tenant: string, key: ScopeKey): Promise<EpisodeRecord[] | undefined> {
  if (key.user === "") return undefined;
  const episodes = (await deps.store.episodes(tenant)).forUser(key.user);
  if (episodes.inMemory()) return undefined;
  const turns = await episodes.find(scopeCondition(key), { withoutVector: true, limit: TRANSCRIPT_MAX + 1 });
  return turns.length > TRANSCRIPT_MAX ? undefined : turns;
}

/**
 * Finds the turns before and after each row that is a raw transcript turn (its one source episode
 * carries a trace_number ≥ 1 and points back at it): in `transcript` when given (every turn of the
 * recall's scope), else with two reads — the rows' episodes, and the episodes at trace_number ± 1
 * in the same scope.
 */
export async function neighbours(deps: ServiceDeps, tenant: string, rows: readonly MemoryRecord[], transcript?: readonly EpisodeRecord[]): Promise<Neighbourhood> {
  const previous = new Map<string, string>();
  const sourceIds = rows.filter((r) => r.sourceIds.length === 1).map((r) => r.sourceIds[0]);
  if (sourceIds.length === 0) return { previous, adjacent: [] };
  const rowIds = new Set(rows.map((r) => r.id));
  const own = (await ownEpisodes(deps, tenant, rows, sourceIds, transcript)).filter((e) => e.traceNumber >= 1 && rowIds.has(e.memoryId));
  if (own.length === 0) return { previous, adjacent: [] };

  const tracesByScope = new Map<string, { key: ScopeKey; traces: Set<number> }>();
  for (const e of own) {
    const group = tracesByScope.get(scopeOf(e)) ?? { key: e, traces: new Set<number>() };
    group.traces.add(e.traceNumber - 1).add(e.traceNumber + 1);
    tracesByScope.set(scopeOf(e), group);
  }
  // Turns are looked up among their end-user's rows when every group shares one.
  const groupUsers = new Set([...tracesByScope.values()].map((g) => g.key.user));
  const around = transcript
    ? transcript.filter((e) => tracesByScope.get(scopeOf(e))?.traces.has(e.traceNumber))
    : await readsOf(await deps.store.episodes(tenant), groupUsers.size === 1 ? [...groupUsers][0] : undefined).find(
        where.or(...[...tracesByScope.values()].map((g) => where.and(exactScope(g.key), where.in("trace_number", [...g.traces])))),
        { withoutVector: true },
      );
  const atSlot = new Map<string, EpisodeRecord[]>();
  // Position 0 is "not given" (a single Remember without trace_number), never a neighbour.
  for (const e of [...around, ...own].filter((x) => x.traceNumber >= 1) as EpisodeRecord[]) {
    const list = atSlot.get(slot(e, e.traceNumber)) ?? [];
    if (!list.some((x) => x.id === e.id)) list.push(e);
    atSlot.set(slot(e, e.traceNumber), list);
  }
  for (const e of own) {
    const before = closest(atSlot.get(slot(e, e.traceNumber - 1)), e);
    const after = closest(atSlot.get(slot(e, e.traceNumber + 1)), e);
    if (before !== undefined) previous.set(e.memoryId, before);
    if (after !== undefined && !previous.has(after)) previous.set(after, e.memoryId);
  }
  const adjacent = [...new Set(around.map((e) => e.memoryId))].filter((id) => !rowIds.has(id));
  return { previous, adjacent };
}

/**
 * Of the turns at a neighbouring position, the one of `e`'s own stretch of conversation: positions
 * repeat in a scope when several sessions or batches were numbered from 1 in it, so the turn
 * nearest in observed time (then in storage time) is the neighbour. Its memory id, unless it is `e`'s.
 */
function closest(turns: readonly EpisodeRecord[] | undefined, e: EpisodeRecord): string | undefined {
  let best: EpisodeRecord | undefined;
  const distance = (x: EpisodeRecord) => [Math.abs(x.observedAt - e.observedAt), Math.abs(x.createdAt - e.createdAt)];
  for (const t of turns ?? []) {
    if (best === undefined) best = t;
    else {
      const [a, b] = [distance(t), distance(best)];
      if (a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])) best = t;
    }
  }
  return best === undefined || best.memoryId === e.memoryId ? undefined : best.memoryId;
}

/** The rows' source episodes: from the transcript when given, else by id. */
async function ownEpisodes(
  deps: ServiceDeps,
  tenant: string,
  rows: readonly MemoryRecord[],
  sourceIds: readonly string[],
  transcript: readonly EpisodeRecord[] | undefined,
): Promise<EpisodeRecord[]> {
  if (transcript) {
    const wanted = new Set(sourceIds);
    return transcript.filter((e) => wanted.has(e.id));
  }
  // Naming the end-user when every row shares one lets the store answer from that user's rows.
  const users = new Set(rows.map((r) => r.user));
  return readsOf(await deps.store.episodes(tenant), users.size === 1 ? rows[0].user : undefined).find(where.in("id", sourceIds), { withoutVector: true });
}
