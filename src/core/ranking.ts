import type { MemoryRecord } from "./records.js";

/** Channel weights for hybrid fusion. */
export interface FusionWeights {
  lexical: number;
  vector: number;
  names: number;
  /** Weight of salience against the decayed base (the rest). */
  salience: number;
}

/** The spec's Lucenia defaults: 0.35 lexical + 0.65 vector, salience 0.25. */
export const DEFAULT_WEIGHTS: FusionWeights = { lexical: 0.35, vector: 0.65, names: 0, salience: 0.25 };

/** Half-life of the recency decay, from last use. */
export const DECAY_HALF_LIFE_DAYS = 30;

/** One candidate with its raw channel scores. */
export interface Candidate {
  memory: MemoryRecord;
  /** Raw cosine similarity to the query. */
  similarity: number;
  /** Raw BM25 score (0 when the lexical channel did not return it). */
  bm25: number;
  /** Names channel in 0..1. */
  names: number;
}

/** A ranked candidate with every component of its score. */
export interface RankedHit {
  memory: MemoryRecord;
  lexical: number;
  vector: number;
  names: number;
  base: number;
  decay: number;
  salience: number;
  fused: number;
  similarity: number;
  /** Raw BM25 score (0 = no word match). */
  bm25: number;
}

/** Min-max scales values to 0..1; a constant channel scales to 1 when positive, else 0. */
export function minMax(values: readonly number[]): number[] {
  if (values.length === 0) return [];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi - lo < 1e-12) return values.map((v) => (v > 0 ? 1 : 0));
  return values.map((v) => (v - lo) / (hi - lo));
}

/** 0.5^(days since last use / 30). */
export function recencyDecay(lastUsedMs: number, nowMs: number): number {
  const days = Math.max(0, nowMs - lastUsedMs) / 86_400_000;
  return 0.5 ** (days / DECAY_HALF_LIFE_DAYS);
}

/** Salience in 0..1: importance (60%), pinned (20%), use (20%, log-scaled up to 10 uses). */
export function salience(m: Pick<MemoryRecord, "importance" | "pinned" | "accessCount">): number {
  const importance = Math.min(10, Math.max(1, m.importance)) / 10;
  const use = Math.min(1, Math.log1p(m.accessCount) / Math.log(11));
  return 0.6 * importance + 0.2 * (m.pinned ? 1 : 0) + 0.2 * use;
}

/** Fuses candidates: min-max per channel, weighted base, × decay, blended with salience. */
export function fuse(candidates: readonly Candidate[], weights: FusionWeights, nowMs: number): RankedHit[] {
  const lexical = minMax(candidates.map((c) => c.bm25));
  const vector = minMax(candidates.map((c) => c.similarity));
  const channelSum = weights.lexical + weights.vector + weights.names || 1;
  return candidates
    .map((c, i) => {
      const base = (weights.lexical * lexical[i] + weights.vector * vector[i] + weights.names * c.names) / channelSum;
      const decay = recencyDecay(c.memory.lastAccessedAt, nowMs);
      const sal = salience(c.memory);
      const fused = (1 - weights.salience) * base * decay + weights.salience * sal;
      return {
        memory: c.memory,
        lexical: lexical[i],
        vector: vector[i],
        names: c.names,
        base,
        decay,
        salience: sal,
        fused,
        similarity: c.similarity,
        bm25: c.bm25,
      };
    })
    .sort((a, b) => b.fused - a.fused || a.memory.id.localeCompare(b.memory.id));
}

/** Cosine similarity of two L2-normalised vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
