import type { Condition } from "../../ports/condition.js";
import { where } from "../../ports/condition.js";
import type { FactTypeName, MemoryRecord, ScopeKey } from "../../core/records.js";
import { type Candidate, cosine, DEFAULT_WEIGHTS, type FusionWeights, fuse, type RankedHit } from "../../core/ranking.js";
import { extractNames, namesScore } from "../../core/names.js";
import { scopeCondition } from "../../core/scope.js";
import type { PatchableCollection } from "../../ports/collection.js";
import type { ServiceDeps } from "../deps.js";

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
export async function replacedBy(memories: PatchableCollection<MemoryRecord>, id: string, depth = 20): Promise<MemoryRecord[]> {
  const chain: MemoryRecord[] = [];
  let frontier = [id];
  for (let i = 0; i < depth && frontier.length > 0; i++) {
    const older = await memories.find(where.in("superseded_by", frontier), { withoutVector: true });
    chain.push(...older);
    frontier = older.map((m) => m.id);
  }
  return chain.sort((a, b) => a.validFrom - b.validFrom);
}

/** Hybrid recall: vector and BM25 channels over-fetch 3×k, min-max fused, decayed, salience-blended. */
export async function recall(deps: ServiceDeps, tenant: string, input: RecallInput): Promise<RecallHit[]> {
  const memories = await deps.store.memories(tenant);
  const [queryVector] = await deps.embedder.embed([input.query]);
  const condition = recallCondition(input);
  const fetch = input.k * 3;
  const [byVector, byWords] = await Promise.all([
    memories.nearest(queryVector, condition, fetch),
    memories.match(input.query, condition, fetch),
  ]);
  const candidates = new Map<string, Candidate>();
  const names = extractNames(input.query);
  for (const { row, score } of byVector) {
    candidates.set(row.id, { memory: row, similarity: score, bm25: 0, names: namesScore(names, row.text, row.entities) });
  }
  for (const { row, score } of byWords) {
    const c = candidates.get(row.id);
    if (c) c.bm25 = score;
    else candidates.set(row.id, { memory: row, similarity: cosine(queryVector, row.vector), bm25: score, names: namesScore(names, row.text, row.entities) });
  }
  let pool = [...candidates.values()];
  if (input.asOfEvent !== undefined) {
    const kept = new Set((await heldAt(memories, pool.map((c) => c.memory), input.asOfEvent)).map((m) => m.id));
    pool = pool.filter((c) => kept.has(c.memory.id));
  }
  const now = deps.clock.now().getTime();
  const ranked = fuse(pool, { ...DEFAULT_WEIGHTS, ...input.weights }, now).slice(0, input.k);
  deps.access.touch(tenant, ranked.map((h) => h.memory.id), now);
  return Promise.all(
    ranked.map(async (h) => ({ ...h, history: input.includeHistory ? await replacedBy(memories, h.memory.id) : [] })),
  );
}
