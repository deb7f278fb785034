import { type ChannelScaling, DEFAULT_SCALING, minMax, scaleChannel } from "./channel-scaling.js";
import { asksOnly } from "./query-terms.js";
import type { MemoryRecord } from "./records.js";

/** Channel weights for hybrid fusion. */
export interface FusionWeights {
  lexical: number;
  vector: number;
  /** Word-vector channel (mean of the content words' vectors), blended into the match like lexical and vector. */
  words: number;
  names: number;
  /** Weight of salience against the decayed base (the rest). */
  salience: number;
  /** Share of the previous turn's match that a turn inherits (0 = no context channel). */
  context: number;
  /** Weight of the time channel (memories on a date the query names). */
  time: number;
}

/**
 * Defaults: an even lexical/vector split (the spec's Lucenia blend is 0.35 / 0.65; the even split
 * won both LoCoMo conversations and every import variant, docs/recall.md), salience 0.25, plus the
 * names (0.15), context (0.8) and time (0.1) channels, each chosen by the LoCoMo ablation.
 */
export const DEFAULT_WEIGHTS: FusionWeights = { lexical: 0.5, vector: 0.5, words: 0, names: 0.15, salience: 0.25, context: 0.8, time: 0.1 };

/** What a turn that only asks keeps of its match: the answer is in the reply, not the question. */
export const QUESTION_FACTOR = 0.8;

/** Half-life of the recency decay, from last use. */
export const DECAY_HALF_LIFE_DAYS = 30;

/** One candidate with its raw channel scores. */
export interface Candidate {
  memory: MemoryRecord;
  /** Raw cosine similarity to the query. */
  similarity: number;
  /** Raw BM25 score (0 when the lexical channel did not return it). */
  bm25: number;
  /** Raw word-vector cosine to the query (absent = 0). */
  words?: number;
  /** Names channel in 0..1. */
  names: number;
  /** Time channel, 0 or 1 (absent = 0). */
  time?: number;
  /** Id of the memory of the turn just before this one in the same session, when known. */
  previous?: string;
}

/** Options of `fuse` beyond the weights. */
export interface FuseOptions {
  /** Factor for turns that only ask (default `QUESTION_FACTOR`; 1 turns it off). */
  questionFactor?: number;
  /** How raw channel scores become 0..1 (default `DEFAULT_SCALING`). */
  scaling?: ChannelScaling;
  /** Share of the next turn's match that a turn inherits (default 0: only replies inherit, from what they answer). */
  nextContext?: number;
}

/** A ranked candidate with every component of its score. */
export interface RankedHit {
  memory: MemoryRecord;
  lexical: number;
  vector: number;
  /** Scaled word-vector channel. */
  words: number;
  names: number;
  /** Match (lexical + vector) of the previous turn, 0..1. */
  context: number;
  time: number;
  base: number;
  decay: number;
  salience: number;
  fused: number;
  similarity: number;
  /** Raw BM25 score (0 = no word match). */
  bm25: number;
}

export { minMax };

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

/**
 * Fuses candidates. Lexical, vector and word-vector scores are scaled over the candidates
 * (`options.scaling`) and blended into a match; a turn's match is raised to `context` × its previous turn's match when that is higher
 * (a reply inherits the relevance of what it answers) and multiplied by `questionFactor` when the
 * turn only asks; the names and time channels are added by weight; the base is × recency decay
 * and blended with salience.
 */
export function fuse(candidates: readonly Candidate[], weights: FusionWeights, nowMs: number, options: FuseOptions = {}): RankedHit[] {
  const questionFactor = options.questionFactor ?? QUESTION_FACTOR;
  const scaling = options.scaling ?? DEFAULT_SCALING;
  const lexical = scaleChannel(candidates.map((c) => c.bm25), scaling, "lexical");
  const vector = scaleChannel(candidates.map((c) => c.similarity), scaling, "vector");
  const words = weights.words > 0 ? scaleChannel(candidates.map((c) => c.words ?? 0), scaling, "words") : candidates.map(() => 0);
  const textWeight = weights.lexical + weights.vector + weights.words;
  const match = candidates.map((_, i) =>
    textWeight > 0 ? (weights.lexical * lexical[i] + weights.vector * vector[i] + weights.words * words[i]) / textWeight : 0,
  );
  const matchById = new Map(candidates.map((c, i) => [c.memory.id, match[i]]));
  const channelSum = textWeight + weights.names + weights.time || 1;
  const nextContext = options.nextContext ?? 0;
  const nextMatch = new Map<string, number>();
  if (nextContext > 0) for (const [i, c] of candidates.entries()) if (c.previous !== undefined) nextMatch.set(c.previous, Math.max(nextMatch.get(c.previous) ?? 0, match[i]));
  return candidates
    .map((c, i) => {
      const context = c.previous === undefined ? 0 : (matchById.get(c.previous) ?? 0);
      const next = nextMatch.get(c.memory.id) ?? 0;
      const carried = Math.max(match[i], weights.context * context, nextContext * next) * (asksOnly(c.memory.text) ? questionFactor : 1);
      const time = c.time ?? 0;
      const base = (textWeight * carried + weights.names * c.names + weights.time * time) / channelSum;
      const decay = recencyDecay(c.memory.lastAccessedAt, nowMs);
      const sal = salience(c.memory);
      const fused = (1 - weights.salience) * base * decay + weights.salience * sal;
      return {
        memory: c.memory,
        lexical: lexical[i],
        vector: vector[i],
        words: words[i],
        names: c.names,
        context,
        time,
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
