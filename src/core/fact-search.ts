import { mentionsOthers } from "./extract/change-events.js";

/** hanumem's read-path weights: meaning, words and names, each channel scaled to 0..1. */
export const SEARCH_WEIGHTS = { meaning: 0.8, words: 0.1, names: 0.1 } as const;

/**
 * Categories under which the offline extractor files a statement that is not the speaker's
 * present: a plan, a wish or question, a change denied, the past told as past, a stay that ends,
 * someone else's news.
 */
export type NotCurrentCategory = "plan" | "hypothetical" | "denied" | "past" | "temporary" | "about_others";
export const NOT_CURRENT_CATEGORIES: ReadonlySet<string> = new Set<NotCurrentCategory>(["plan", "hypothetical", "denied", "past", "temporary", "about_others"]);

/**
 * What a not-current row keeps of its score, so that it ranks below a current fact of about the
 * same relevance (chosen on the tune half of the supersede scenarios, bench/judgement).
 */
export const NOT_CURRENT_FACTOR = 0.75;

// A question that itself asks of plans, wishes or the past.
const ASKS_NOT_CURRENT = /\b(?:plan\w*|thinking|consider\w*|going\s+to|will|would|might|hop(?:e|es|ing)|want\w*|wish\w*|dream\w*|used\s+to|before|previous\w*|formerly|past|ago|trip|visit\w*|next)\b/i;

/**
 * The rows a question ranks below current facts: those filed as not current (a plan, a wish, the
 * past, a stay, someone else's news), unless the question asks of such things or of someone else.
 */
export function notCurrentFor(query: string): (category: string) => boolean {
  const asksOthers = mentionsOthers(query);
  const asksNotCurrent = ASKS_NOT_CURRENT.test(query);
  return (category) => NOT_CURRENT_CATEGORIES.has(category) && !(category === "about_others" ? asksOthers : asksNotCurrent);
}

/**
 * What a row that replaced an older fact (the head of a supersede chain: the speaker's latest word
 * on a slot) gains over its neighbours, so that it outranks the same turn's sentences that carry
 * no value ("Harold finally did it.") and facts of the same slot never replaced (chosen on the
 * tune half of the supersede scenarios, `bench/judgement/sweep-ranking.ts`).
 */
export const REPLACED_FACTOR = 1.3;

/** Share of the top k kept for rows on a date the question names (rounded up). */
export const DATE_RESERVED_SHARE = 0.5;

/** A candidate with its raw channel signals. */
export interface SearchCandidate<T> {
  item: T;
  /** Raw cosine similarity to the question. */
  similarity: number;
  /** Raw BM25 score (0 when the words channel did not return it). */
  bm25: number;
  /** Share of the question's names found in the row, 0..1. */
  names: number;
  /** True when the row lies on a date the question names. */
  onNamedDate: boolean;
  /** False for a row filed as not current for this question (see NOT_CURRENT_CATEGORIES); absent = current. */
  current?: boolean;
  /** True for a row that replaced an older fact (a closed row points at it). */
  replaced?: boolean;
}

/** A candidate with its scaled channels and score. */
export interface ScoredCandidate<T> extends SearchCandidate<T> {
  /** Cosine clamped to 0..1. */
  meaning: number;
  /** BM25 divided by the best BM25 among the candidates, 0..1. */
  words: number;
  /** 0.8·meaning + 0.1·words + 0.1·names (times NOT_CURRENT_FACTOR for a not-current row, REPLACED_FACTOR for a row that replaced one). */
  score: number;
}

/**
 * Scores candidates: 0.8 meaning + 0.1 words + 0.1 names, times `notCurrentFactor` for a row that
 * is not current and `replacedFactor` for a row that replaced an older fact; best first (ties by input order).
 */
export function scoreCandidates<T>(
  candidates: readonly SearchCandidate<T>[],
  notCurrentFactor = NOT_CURRENT_FACTOR,
  replacedFactor = REPLACED_FACTOR,
): ScoredCandidate<T>[] {
  const best = Math.max(0, ...candidates.map((c) => c.bm25));
  return candidates
    .map((c, i) => {
      const meaning = Math.min(1, Math.max(0, c.similarity));
      const words = best > 0 ? Math.max(0, c.bm25) / best : 0;
      const names = Math.min(1, Math.max(0, c.names));
      const fused = SEARCH_WEIGHTS.meaning * meaning + SEARCH_WEIGHTS.words * words + SEARCH_WEIGHTS.names * names;
      const score = fused * (c.current === false ? notCurrentFactor : 1) * (c.replaced === true ? replacedFactor : 1);
      return { scored: { ...c, meaning, words, names, score }, i };
    })
    .sort((a, b) => b.scored.score - a.scored.score || a.i - b.i)
    .map((x) => x.scored);
}

/**
 * The top k of scored candidates (best first), where rows on a date the question names are
 * guaranteed up to ceil(k · 0.5) places even when their score would not reach the top k.
 */
export function topWithReservedPlaces<T>(scored: readonly ScoredCandidate<T>[], k: number): ScoredCandidate<T>[] {
  const reserved = scored.filter((c) => c.onNamedDate).slice(0, Math.ceil(k * DATE_RESERVED_SHARE));
  const chosen = new Set(reserved);
  for (const c of scored) {
    if (chosen.size >= k) break;
    chosen.add(c);
  }
  return scored.filter((c) => chosen.has(c));
}
