import { findDates, type NamedDate, onAnyDate } from "../../core/extract/dates.js";
import { notCurrentFor, type ScoredCandidate, type SearchCandidate, scoreCandidates, topWithReservedPlaces } from "../../core/fact-search.js";
import { questionNames } from "../../core/extract/entities.js";
import { namesScore } from "../../core/names.js";
import { cosine } from "../../core/ranking.js";
import type { EpisodeRecord, MemoryRecord, ScopeKey } from "../../core/records.js";
import { scopeCondition } from "../../core/scope.js";
import { type Condition, where } from "../../core/condition.js";
import { readsOf, scopeUser } from "../user-reads.js";
import type { ServiceDeps } from "../deps.js";
import { believedAt, heldAt, openRows, replacedChains, startedBy } from "./fact-rows.js";

/** A validated Search. */
export interface SearchInput {
  key: ScopeKey;
  query: string;
  k: number;
  /** What the store believed then (valid_from ≤ t < valid_to). */
  asOf?: number;
  /** What was true in the world then (by event date). */
  asOfEvent?: number;
}

/** A fact hit with the closed rows it replaced, oldest first. */
export interface FactHit extends ScoredCandidate<MemoryRecord> {
  history: MemoryRecord[];
}

/** What the question names: its vector, its names and its dates. */
export interface QuestionSignals {
  vector: Float32Array;
  names: string[];
  dates: NamedDate[];
}

/**
 * Embeds the question and finds the names (capitalised runs, see `questionNames`: compromise's
 * full tagging costs tens of milliseconds) and dates (chrono, against now) in it.
 */
export async function questionSignals(deps: ServiceDeps, query: string): Promise<QuestionSignals> {
  const [vector] = await deps.embedder.embed([query]);
  return { vector, names: questionNames(query), dates: findDates(query, deps.clock.now().getTime()) };
}

/** The time filter: open rows; or rows believed at `as_of`; or rows begun by `as_of_event` (narrowed later). */
function timeCondition(input: SearchInput): Condition {
  if (input.asOfEvent === undefined) return input.asOf === undefined ? openRows : believedAt(input.asOf);
  return where.and(startedBy(input.asOfEvent), input.asOf === undefined ? undefined : believedAt(input.asOf));
}

/** Rows recorded, or happening, on one of the named dates. */
function onDatesCondition(dates: readonly NamedDate[]): Condition {
  return where.or(
    ...dates.flatMap((d) => [
      where.and(where.gte("event_date", d.start), where.lt("event_date", d.end)),
      where.and(where.gte("valid_from", d.start), where.lt("valid_from", d.end)),
    ]),
  );
}

const onNamedDate = (m: MemoryRecord, dates: readonly NamedDate[]) => onAnyDate(m.eventDate, dates) || onAnyDate(m.validFrom, dates);

/**
 * The hanumem read path: dates and names found in the question; meaning (cosine), words (BM25)
 * and rows on a named date fetched in parallel over open rows only (or the rows of `as_of` /
 * `as_of_event`); score = 0.8·meaning + 0.1·words + 0.1·names, lowered for a row filed as not
 * current (`notCurrentFor`), raised for a row that replaced an older fact; up to half of the top k reserved
 * for rows on a named date; each hit brings the closed rows it replaced as `history`.
 */
export async function searchFacts(deps: ServiceDeps, tenant: string, input: SearchInput, signals?: QuestionSignals): Promise<FactHit[]> {
  const memories = await deps.store.memories(tenant);
  const reads = readsOf(memories, scopeUser(input.key));
  const q = signals ?? (await questionSignals(deps, input.query));
  const condition = where.and(scopeCondition(input.key), timeCondition(input));
  const fetch = Math.max(30, input.k * 3);
  const [byMeaning, byWords, byDate] = await Promise.all([
    reads.nearest(q.vector, condition, fetch),
    reads.match(input.query, condition, fetch),
    q.dates.length > 0 ? reads.find(where.and(condition, onDatesCondition(q.dates)), { limit: fetch }) : Promise.resolve([]),
  ]);
  const candidates = new Map<string, SearchCandidate<MemoryRecord>>();
  const notCurrent = notCurrentFor(input.query);
  const add = (row: MemoryRecord, similarity?: number) => {
    let c = candidates.get(row.id);
    if (!c) {
      c = {
        item: row,
        similarity: similarity ?? cosine(q.vector, row.vector),
        bm25: 0,
        names: namesScore(q.names, row.text, row.entities),
        onNamedDate: onNamedDate(row, q.dates),
        current: !notCurrent(row.category),
      };
      candidates.set(row.id, c);
    }
    return c;
  };
  for (const { row, score } of byMeaning) add(row, score);
  for (const { row, score } of byWords) add(row).bm25 = score;
  for (const row of byDate) add(row);
  let pool = [...candidates.values()];
  if (input.asOfEvent !== undefined) {
    const kept = new Set((await heldAt(memories, pool.map((c) => c.item), input.asOfEvent)).map((m) => m.id));
    pool = pool.filter((c) => kept.has(c.item.id));
  }
  // The rows each candidate replaced: a row that replaced one ranks up, and every hit carries its history.
  const chains = await replacedChains(reads, pool.map((c) => c.item.id));
  for (const c of pool) c.replaced = (chains.get(c.item.id)?.length ?? 0) > 0;
  const top = topWithReservedPlaces(scoreCandidates(pool), input.k);
  const now = deps.clock.now().getTime();
  deps.access.touch(tenant, top.map((h) => h.item), now);
  return top.map((h) => ({ ...h, history: chains.get(h.item.id) ?? [] }));
}

/** Raw transcript turns that best match a question, scored like facts (for `[message]` lines). */
export async function searchTurns(
  deps: ServiceDeps,
  tenant: string,
  key: ScopeKey,
  query: string,
  k: number,
  signals?: QuestionSignals,
): Promise<ScoredCandidate<EpisodeRecord>[]> {
  const episodes = readsOf(await deps.store.episodes(tenant), scopeUser(key));
  const q = signals ?? (await questionSignals(deps, query));
  const condition = scopeCondition(key);
  const fetch = Math.max(10, k * 3);
  const [byMeaning, byWords] = await Promise.all([episodes.nearest(q.vector, condition, fetch), episodes.match(query, condition, fetch)]);
  const candidates = new Map<string, SearchCandidate<EpisodeRecord>>();
  const add = (row: EpisodeRecord, similarity?: number) => {
    let c = candidates.get(row.id);
    if (!c) {
      const names = namesScore(q.names, `${row.name} ${row.content}`);
      c = { item: row, similarity: similarity ?? cosine(q.vector, row.vector), bm25: 0, names, onNamedDate: onAnyDate(row.observedAt, q.dates) };
      candidates.set(row.id, c);
    }
    return c;
  };
  for (const { row, score } of byMeaning) add(row, score);
  for (const { row, score } of byWords) add(row).bm25 = score;
  return topWithReservedPlaces(scoreCandidates([...candidates.values()]), k);
}
