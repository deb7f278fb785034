import type { Condition } from "../../core/condition.js";
import { where } from "../../core/condition.js";
import type { FactTypeName, MemoryRecord, ScopeKey } from "../../core/records.js";
import { type ChannelScaling, DEFAULT_SCALING } from "../../core/channel-scaling.js";
import { type Candidate, cosine, DEFAULT_WEIGHTS, type FusionWeights, fuse, QUESTION_FACTOR, type RankedHit } from "../../core/ranking.js";
import { clampedCosine } from "../../core/drift/vector-math.js";
import { meanWordVector } from "../../core/word-channel.js";
import { extractNames, namesScore, speakerNamesScore, speakerPrefix } from "../../core/names.js";
import { contentQuery } from "../../core/query-terms.js";
import { queryDates, timeScore } from "../../core/time-cue.js";
import { scopeCondition } from "../../core/scope.js";
import type { PatchableCollection } from "../../ports/collection.js";
import type { WordVectors } from "../../ports/word-vectors.js";
import type { ServiceDeps } from "../deps.js";
import { replacedChains } from "./fact-rows.js";
import { type Reads, readsOf, scopeUser } from "../user-reads.js";
import { adjacentTurns, type Around, neighbours, positionsKnown } from "./neighbours.js";
import { StepTimer } from "../step-timer.js";

/** A validated recall. */
export interface RecallInput {
  key: ScopeKey;
  query: string;
  k: number;
  asOf?: number;
  asOfEvent?: number;
  factTypes: FactTypeName[];
  tags: Record<string, string>;
  includeHistory: boolean;
  weights?: Partial<FusionWeights>;
}

/** A ranked hit with the closed rows it replaced. */
export interface RecallHit extends RankedHit {
  history: MemoryRecord[];
}

/** Rows believed at `asOf`, or open rows when no time is given. */
function beliefCondition(asOf: number | undefined): Condition {
  if (asOf === undefined) return where.isNull("valid_to");
  return where.and(where.lte("valid_from", asOf), where.or(where.isNull("valid_to"), where.gt("valid_to", asOf)));
}

/** Rows whose world time (event date, else observation) had begun at `t`. */
function startedBy(t: number): Condition {
  return where.or(where.lte("event_date", t), where.and(where.isNull("event_date"), where.lte("valid_from", t)));
}

const worldStart = (m: MemoryRecord) => m.eventDate ?? m.validFrom;

/** The filter a recall applies inside the engine. */
export function recallCondition(input: RecallInput): Condition {
  const tags = Object.entries(input.tags).map(([k, v]) => `${k}=${v}`);
  return where.and(
    scopeCondition(input.key),
    input.asOfEvent === undefined ? beliefCondition(input.asOf) : startedBy(input.asOfEvent),
    input.asOf !== undefined && input.asOfEvent !== undefined ? beliefCondition(input.asOf) : undefined,
    input.factTypes.length > 0 ? where.in("fact_type", input.factTypes) : undefined,
    tags.length > 0 ? where.hasAll("tag_pairs", tags) : undefined,
  );
}

/** Keeps closed rows only when their successor began after `t` in the world (they still held then). */
async function heldAt(memories: PatchableCollection<MemoryRecord>, rows: MemoryRecord[], t: number): Promise<MemoryRecord[]> {
  const successorIds = [...new Set(rows.filter((r) => r.validTo !== null && r.supersededBy).map((r) => r.supersededBy))];
  const successors = new Map((await memories.get(successorIds)).map((s) => [s.id, s]));
  return rows.filter((r) => {
    if (r.validTo === null) return true;
    const next = successors.get(r.supersededBy);
    return next !== undefined && worldStart(next) > t;
  });
}

/** The closed rows an open row replaced, oldest first (follows the chain back). */
export async function replacedBy(memories: Reads<MemoryRecord>, id: string, depth = 20): Promise<MemoryRecord[]> {
  const chain: MemoryRecord[] = [];
  let frontier = [id];
  for (let i = 0; i < depth && frontier.length > 0; i++) {
    const older = await memories.find(where.in("superseded_by", frontier), { withoutVector: true });
    chain.push(...older);
    frontier = older.map((m) => m.id);
  }
  return chain.sort((a, b) => a.validFrom - b.validFrom);
}

/**
 * The turns next to the candidates (context channel). Memory rows carry their turn's position, so
 * this is one read of the memory rows after the two searches (`adjacentTurns`): a recall of an
 * end-user not held costs the engine what raw LanceDB's hybrid query costs, plus that one read.
 * Rows stored before the column existed are found through the episodes (two reads), and their
 * adjacent rows by id (one more).
 */
async function turnsAround(deps: ServiceDeps, tenant: string, reads: Reads<MemoryRecord>, condition: Condition, rows: MemoryRecord[]): Promise<Around> {
  if (positionsKnown(rows)) return adjacentTurns(reads, condition, rows);
  const around = await neighbours(deps, tenant, rows);
  const adjacent = around.adjacent.length > 0 ? await reads.find(where.and(condition, where.in("id", around.adjacent))) : [];
  return { previous: around.previous, adjacent };
}

/** Recall knobs beyond the per-request channel weights; the defaults are what the server uses. */
export interface RecallTuning {
  /** Default channel weights (a request's own weights still win). */
  weights: FusionWeights;
  /** Also embed the query's content words and average both vectors (default true). */
  expandQuery: boolean;
  /** Factor for turns that only ask (default 0.8; 1 = off). */
  questionFactor: number;
  /** Count names merely mentioned in the text in the names channel (default false: speaker and entities only). */
  namesFromText: boolean;
  /** How raw channel scores become 0..1 before fusion. */
  scaling: ChannelScaling;
  /** Share of the next turn's match a turn inherits (default 0; the context channel must be on). */
  nextContext: number;
  /**
   * Whose neighbours are read: the candidates in the first `contextWindow` × k places of a ranking
   * without the context channel (default 2; 0 = every candidate). Each neighbour read costs the
   * engine a scattered row fetch; at 1M memories reading those of all ~60 candidates took 13.7 ms
   * (p50) against 10.4 ms for the first 2 × k, with LoCoMo R@5 / R@10 0.659 / 0.725 → 0.654 / 0.729
   * (docs/recall.md).
   */
  contextWindow: number;
}

/** The tuning `agentmem serve` uses; each choice is backed by a row of `npm run bench:locomo`. */
export const DEFAULT_TUNING: RecallTuning = {
  weights: DEFAULT_WEIGHTS,
  expandQuery: true,
  questionFactor: QUESTION_FACTOR,
  namesFromText: false,
  scaling: DEFAULT_SCALING,
  nextContext: 0,
  contextWindow: 2,
};

/** Cosine similarity of a row read with its vector to the query vector (0 when the row has none). */
function similarityTo(query: Float32Array, row: MemoryRecord): number {
  return clampedCosine(query, row.vector);
}

/** The row without its vector (ranking and the answer need only its similarity). */
function withoutVector(row: MemoryRecord): MemoryRecord {
  return row.vector.length === 0 ? row : { ...row, vector: new Float32Array(0) };
}

/** Normalised sum of vectors. */
function centroid(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0].length);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i] += v[i];
  const norm = Math.hypot(...out) || 1;
  return out.map((x) => x / norm);
}

/** The query vector: the query's, averaged with its content words' when expansion is on and they differ. */
async function queryVector(deps: ServiceDeps, query: string, expand: boolean): Promise<Float32Array> {
  const content = expand ? contentQuery(query) : "";
  const texts = content !== "" && content !== query.trim() ? [query, content] : [query];
  const vectors = await deps.embedder.embed(texts);
  return vectors.length === 1 ? vectors[0] : centroid(vectors);
}

/** Sets each candidate's word-vector cosine to the query (0 when either side has no known word). */
function scoreWords(vectors: WordVectors, query: string, pool: Candidate[]): void {
  const q = meanWordVector(vectors, query);
  if (q === undefined) return;
  for (const c of pool) {
    const m = meanWordVector(vectors, c.memory.text);
    c.words = m === undefined ? 0 : cosine(q, m);
  }
}

/**
 * Hybrid recall: vector and BM25 channels over-fetch 3×k; the adjacent turns of the candidates
 * join them (context channel); min-max fused with the names and time channels, decayed,
 * salience-blended.
 */
export async function recall(deps: ServiceDeps, tenant: string, input: RecallInput, tuning: RecallTuning = DEFAULT_TUNING): Promise<RecallHit[]> {
  const weights = { ...tuning.weights, ...input.weights };
  const timer = new StepTimer();
  const memories = await deps.store.memories(tenant);
  // The end-user's rows when the scope names one (a cache layer answers them from memory).
  const reads = readsOf(memories, scopeUser(input.key));
  const condition = recallCondition(input);
  const fetch = input.k * 3;
  // The word search needs no query vector: it runs while the query is being embedded. Its hits
  // come with their vectors, so the similarity of rows only words found is computed here, not
  // asked of the engine in a second read (the vector search's hits need none: they carry a score).
  const scores = { withoutVector: true };
  const wordSearch = weights.lexical > 0 ? reads.match(input.query, condition, fetch) : Promise.resolve([]);
  const vectorSearch = queryVector(deps, input.query, tuning.expandQuery).then(async (v) => ({ v, hits: await reads.nearest(v, condition, fetch, scores) }));
  const [{ v: vector, hits: byVector }, byWords] = await Promise.all([vectorSearch, wordSearch]);
  timer.lap("searches");
  const names = extractNames(input.query);
  const now = deps.clock.now().getTime();
  const dates = weights.time > 0 ? queryDates(input.query, now) : [];
  // A turn stored without `name` may still say who speaks ("Caroline: …"), as an outside import might.
  const speaker = (m: MemoryRecord) => m.name || speakerPrefix(m.text);
  const namesOf = (m: MemoryRecord) =>
    tuning.namesFromText ? namesScore(names, `${m.name} ${m.text}`, m.entities) : speakerNamesScore(names, { name: speaker(m), entities: m.entities });
  const candidates = new Map<string, Candidate>();
  const add = (row: MemoryRecord, similarity: number, bm25: number) => {
    const c = candidates.get(row.id);
    if (c) c.bm25 = Math.max(c.bm25, bm25);
    else candidates.set(row.id, { memory: row, similarity, bm25, names: namesOf(row), time: timeScore(dates, row) });
  };
  for (const { row, score } of byVector) add(row, score, 0);
  for (const { row, score } of byWords) add(withoutVector(row), similarityTo(vector, row), score);
  if (weights.context > 0) {
    const from = performance.now();
    // The neighbours of the candidates that can reach the top k: those ranked first without context.
    const all = [...candidates.values()];
    const window = tuning.contextWindow > 0 ? Math.ceil(tuning.contextWindow * input.k) : all.length;
    const near = window >= all.length ? all : fuse(all, { ...weights, context: 0 }, now, { questionFactor: tuning.questionFactor, scaling: tuning.scaling }).slice(0, window);
    const around = await turnsAround(deps, tenant, reads, condition, near.map((c) => c.memory));
    timer.since("adjacent", from);
    // Their similarity is computed here from the vectors they were read with.
    for (const row of around.adjacent) add(withoutVector(row), similarityTo(vector, row), 0);
    for (const [id, before] of around.previous) {
      const c = candidates.get(id);
      if (c) c.previous = before;
    }
  }
  let pool = [...candidates.values()];
  if (weights.words > 0 && deps.wordVectors) scoreWords(deps.wordVectors, input.query, pool);
  if (input.asOfEvent !== undefined) {
    const kept = new Set((await heldAt(memories, pool.map((c) => c.memory), input.asOfEvent)).map((m) => m.id));
    pool = pool.filter((c) => kept.has(c.memory.id));
  }
  // Decay and salience read the recorded uses (kept out of the memory rows, see AccessTracker).
  const usesFrom = performance.now();
  const used = await deps.access.current(tenant, pool.map((c) => c.memory));
  timer.since("uses", usesFrom);
  pool = pool.map((c, i) => ({ ...c, memory: used[i] }));
  const ranked = fuse(pool, weights, now, { questionFactor: tuning.questionFactor, scaling: tuning.scaling, nextContext: tuning.nextContext }).slice(0, input.k);
  deps.access.touch(tenant, ranked.map((h) => h.memory), now);
  // One read per chain step for all hits, among the end-user's rows when the scope names one.
  const chains = input.includeHistory ? await replacedChains(reads, ranked.map((h) => h.memory.id)) : undefined;
  deps.logger.debug({ tenant, candidates: candidates.size, steps: timer.total() }, "recall steps");
  return Promise.all(ranked.map(async (h) => ({ ...h, history: chains ? await deps.access.current(tenant, chains.get(h.memory.id) ?? []) : [] })));
}
