import type { EpisodeRecord, MemoryRecord, ScopeKey } from "../../core/records.js";
import type { Condition } from "../../core/condition.js";
import { where } from "../../core/condition.js";
import { turnKey } from "../../core/turn-key.js";
import type { ServiceDeps } from "../deps.js";
import { type Reads, readsOf } from "../user-reads.js";

/** The turns around a recall's candidates. */
export interface Around {
  /** Memory id → memory id of the turn just before it (same exact scope, position − 1). */
  previous: Map<string, string>;
  /**
   * The memory rows of adjacent turns that were not among the candidates, read inside the
   * recall's filter (nothing outside its scope, time or tags comes back), with their vectors.
   */
  adjacent: MemoryRecord[];
}

/** The transcript around a set of recalled turns, as found through the episodes. */
export interface Neighbourhood {
  /** Memory id → memory id of the turn just before it (same scope, trace_number − 1). */
  previous: Map<string, string>;
  /** Ids of the memories of adjacent turns that were not among the given rows. */
  adjacent: string[];
}

const SCOPE_COLUMNS = ["namespace", "agent", "session", "user"] as const;

const scopeOf = (e: ScopeKey) => SCOPE_COLUMNS.map((c) => e[c]).join("\u0000");
const slot = (e: ScopeKey, trace: number) => `${scopeOf(e)}\u0000${trace}`;

/** Equality on every scope column, empty ones included: a turn's neighbours share its exact scope. */
function exactScope(key: ScopeKey): Condition {
  return where.and(...SCOPE_COLUMNS.map((c) => where.eq(c, key[c])));
}

/**
 * Whether every row that may be a raw turn says its position: rows stored before memory rows
 * carried `trace_number` read it as null, and their neighbours must be found through the episodes.
 */
export function positionsKnown(rows: readonly MemoryRecord[]): boolean {
  return rows.every((r) => r.traceNumber !== null || r.sourceIds.length !== 1);
}

/**
 * The turns before and after each candidate that is a raw transcript turn (a memory row with a
 * position ≥ 1), in ONE read of the memory rows after the recall's two searches: the rows at
 * position ± 1 in each candidate's exact scope, inside the recall's filter (`condition`). By key
 * (`byTurnKey`: one btree lookup on the engine, an index lookup among a held end-user's rows)
 * when every candidate turn was stored with one, else by position (`byPosition`). When a position
 * repeats in a scope (sessions or batches each numbered from 1), the neighbour is the turn nearest
 * in observed time, then storage time.
 */
export async function adjacentTurns(reads: Reads<MemoryRecord>, condition: Condition, rows: readonly MemoryRecord[]): Promise<Around> {
  const previous = new Map<string, string>();
  const turns = rows.filter((r) => r.traceNumber !== null && r.traceNumber >= 1);
  const near = turns.every((r) => !r.unkeyedTurn) ? byTurnKey(turns) : byPosition(turns);
  if (near === undefined) return { previous, adjacent: [] };
  const found = await reads.find(where.and(condition, near));
  const atSlot = new Map<string, MemoryRecord[]>();
  for (const r of [...found, ...turns]) {
    const key = slot(r, r.traceNumber!);
    const list = atSlot.get(key) ?? [];
    if (!list.some((x) => x.id === r.id)) list.push(r);
    atSlot.set(key, list);
  }
  const nearest = (list: readonly MemoryRecord[] | undefined, r: MemoryRecord) =>
    closestBy(list, r, (x) => [Math.abs(x.validFrom - r.validFrom), Math.abs(x.createdAt - r.createdAt)], (x) => x.id);
  for (const r of turns) {
    const before = nearest(atSlot.get(slot(r, r.traceNumber! - 1)), r);
    const after = nearest(atSlot.get(slot(r, r.traceNumber! + 1)), r);
    if (before !== undefined) previous.set(r.id, before);
    if (after !== undefined && !previous.has(after)) previous.set(after, r.id);
  }
  const candidates = new Set(rows.map((r) => r.id));
  return { previous, adjacent: found.filter((r) => !candidates.has(r.id)) };
}

/** The turns at position ± 1 around `turns` (positioned rows) by their keys; none when there are none. */
export function byTurnKey(turns: readonly MemoryRecord[]): Condition | undefined {
  const keys = new Set(turns.flatMap((r) => [r.traceNumber! - 1, r.traceNumber! + 1].filter((p) => p >= 1).map((p) => turnKey(r, p))));
  return keys.size === 0 ? undefined : where.in("turn_key", [...keys]);
}

/**
 * The same turns by position: `trace_number` and the exact scope (how rows stored without a key
 * are found; on the engine a filter over the end-user's rows, which costs several times the lookup).
 */
export function byPosition(turns: readonly MemoryRecord[]): Condition | undefined {
  const groups = new Map<string, { key: ScopeKey; traces: Set<number> }>();
  for (const r of turns) {
    const group = groups.get(scopeOf(r)) ?? { key: r, traces: new Set<number>() };
    group.traces.add(r.traceNumber! - 1).add(r.traceNumber! + 1);
    groups.set(scopeOf(r), group);
  }
  const traces = new Set([...groups.values()].flatMap((g) => [...g.traces]));
  traces.delete(0); // 0 is "not given", never a neighbour
  if (traces.size === 0) return undefined;
  const near = where.or(...[...groups.values()].map((g) => where.and(exactScope(g.key), where.in("trace_number", [...g.traces]))));
  return where.and(where.in("trace_number", [...traces]), near);
}

/**
 * Of the rows at a neighbouring position, the one of `e`'s own stretch of conversation (smallest
 * `distance`, compared in order). Its memory id, unless it is `e`'s own.
 */
function closestBy<R>(list: readonly R[] | undefined, e: R, distance: (x: R) => number[], memoryOf: (x: R) => string): string | undefined {
  let best: R | undefined;
  let bestDistance: number[] = [];
  for (const t of list ?? []) {
    const d = distance(t);
    if (best === undefined || d[0] < bestDistance[0] || (d[0] === bestDistance[0] && d[1] < bestDistance[1])) {
      best = t;
      bestDistance = d;
    }
  }
  return best === undefined || memoryOf(best) === memoryOf(e) ? undefined : memoryOf(best);
}

/**
 * The route for rows stored before memory rows carried their position (`positionsKnown` false):
 * finds the turns before and after each row that is a raw transcript turn (its one source episode
 * carries a trace_number ≥ 1 and points back at it) with two reads of the episodes — the rows'
 * own, and those at trace_number ± 1 in the same scope; the caller reads the adjacent memories by id.
 */
export async function neighbours(deps: ServiceDeps, tenant: string, rows: readonly MemoryRecord[]): Promise<Neighbourhood> {
  const previous = new Map<string, string>();
  const sourceIds = rows.filter((r) => r.sourceIds.length === 1).map((r) => r.sourceIds[0]);
  if (sourceIds.length === 0) return { previous, adjacent: [] };
  const rowIds = new Set(rows.map((r) => r.id));
  // Naming the end-user when every row shares one lets the store answer from that user's rows.
  const users = new Set(rows.map((r) => r.user));
  const episodes = readsOf(await deps.store.episodes(tenant), users.size === 1 ? rows[0].user : undefined);
  const own = (await episodes.find(where.in("id", sourceIds), { withoutVector: true })).filter((e) => e.traceNumber >= 1 && rowIds.has(e.memoryId));
  if (own.length === 0) return { previous, adjacent: [] };

  const tracesByScope = new Map<string, { key: ScopeKey; traces: Set<number> }>();
  for (const e of own) {
    const group = tracesByScope.get(scopeOf(e)) ?? { key: e, traces: new Set<number>() };
    group.traces.add(e.traceNumber - 1).add(e.traceNumber + 1);
    tracesByScope.set(scopeOf(e), group);
  }
  const around = await episodes.find(
    where.or(...[...tracesByScope.values()].map((g) => where.and(exactScope(g.key), where.in("trace_number", [...g.traces])))),
    { withoutVector: true },
  );
  const atSlot = new Map<string, EpisodeRecord[]>();
  // Position 0 is "not given" (a single Remember without trace_number), never a neighbour.
  for (const e of [...around, ...own].filter((x) => x.traceNumber >= 1)) {
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

/** Of the turns at a neighbouring position, the one nearest `e` in observed time, then storage time. */
function closest(turns: readonly EpisodeRecord[] | undefined, e: EpisodeRecord): string | undefined {
  return closestBy(turns, e, (x) => [Math.abs(x.observedAt - e.observedAt), Math.abs(x.createdAt - e.createdAt)], (x) => x.memoryId);
}
