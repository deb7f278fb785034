import type { MemoryRecord, ScopeKey } from "../../core/records.js";
import type { Collection } from "../../ports/collection.js";
import { type Condition, where } from "../../core/condition.js";

/**
 * The rows a write may read, dedupe against and close: exactly the same namespace, agent and
 * end-user (an empty value means "unset", not "any"), across sessions — facts about a person
 * outlive the session they were said in, and no write can touch another end-user's facts.
 */
export function factScopeCondition(key: ScopeKey): Condition {
  return where.and(where.eq("namespace", key.namespace), where.eq("agent", key.agent), where.eq("user", key.user));
}

/** True when a row lies in the fact scope of `key` (see {@link factScopeCondition}). */
export function inFactScope(key: ScopeKey, row: ScopeKey): boolean {
  return row.namespace === key.namespace && row.agent === key.agent && row.user === key.user;
}

/** Exactly this scope, session included: one conversation's turns. */
export function exactScopeCondition(key: ScopeKey): Condition {
  return where.and(factScopeCondition(key), where.eq("session", key.session));
}

/** Open rows (not closed by a supersede). */
export const openRows: Condition = where.isNull("valid_to");

/** Rows the store believed at `t`: valid_from ≤ t < valid_to (open rows have no end). */
export function believedAt(t: number): Condition {
  return where.and(where.lte("valid_from", t), where.or(where.isNull("valid_to"), where.gt("valid_to", t)));
}

/** Rows whose world time (event date, else observation) had begun by `t`. */
export function startedBy(t: number): Condition {
  return where.or(where.lte("event_date", t), where.and(where.isNull("event_date"), where.lte("valid_from", t)));
}

/** When a row began to hold in the world: its event date, else when it was observed. */
export const worldStart = (m: Pick<MemoryRecord, "eventDate" | "validFrom">): number => m.eventDate ?? m.validFrom;

/**
 * Keeps the rows that were still true in the world at `t`: open rows, and closed rows whose
 * successor began after `t` (the move to Paris in March 2026 leaves London true in June 2025).
 */
export async function heldAt(memories: Collection<MemoryRecord>, rows: readonly MemoryRecord[], t: number): Promise<MemoryRecord[]> {
  const successorIds = [...new Set(rows.filter((r) => r.validTo !== null && r.supersededBy !== "").map((r) => r.supersededBy))];
  const successors = new Map((await memories.get(successorIds)).map((s) => [s.id, s]));
  return rows.filter((r) => {
    if (r.validTo === null) return true;
    const next = successors.get(r.supersededBy);
    return next !== undefined && worldStart(next) > t;
  });
}

/**
 * The closed rows each of `ids` replaced, following the chain back (oldest first per id), with
 * one query per chain step for all ids together. `user`, when given, is the hits' end-user.
 */
export async function replacedChains(
  memories: Collection<MemoryRecord>,
  ids: readonly string[],
  user?: string,
  depth = 20,
): Promise<Map<string, MemoryRecord[]>> {
  const chains = new Map<string, MemoryRecord[]>(ids.map((id) => [id, []]));
  const owner = new Map<string, string>(ids.map((id) => [id, id]));
  let frontier = [...ids];
  for (let step = 0; step < depth && frontier.length > 0; step++) {
    // Supersedes never cross end-users, so naming the user only narrows the scan.
    const older = await memories.find(where.and(user ? where.eq("user", user) : undefined, where.in("superseded_by", frontier)), { withoutVector: true });
    frontier = [];
    for (const row of older) {
      const head = owner.get(row.supersededBy);
      if (head === undefined || owner.has(row.id)) continue;
      owner.set(row.id, head);
      chains.get(head)?.push(row);
      frontier.push(row.id);
    }
  }
  for (const chain of chains.values()) chain.sort((a, b) => a.validFrom - b.validFrom || a.id.localeCompare(b.id));
  return chains;
}
