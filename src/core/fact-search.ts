/** hanumem's read-path weights: meaning, words and names, each channel scaled to 0..1. */
export const SEARCH_WEIGHTS = { meaning: 0.8, words: 0.1, names: 0.1 } as const;

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
}

/** A candidate with its scaled channels and score. */
export interface ScoredCandidate<T> extends SearchCandidate<T> {
  /** Cosine clamped to 0..1. */
  meaning: number;
  /** BM25 divided by the best BM25 among the candidates, 0..1. */
  words: number;
  /** 0.8·meaning + 0.1·words + 0.1·names. */
  score: number;
}

/** Scores candidates: 0.8 meaning + 0.1 words + 0.1 names, best first (ties by input order). */
export function scoreCandidates<T>(candidates: readonly SearchCandidate<T>[]): ScoredCandidate<T>[] {
  const best = Math.max(0, ...candidates.map((c) => c.bm25));
  return candidates
    .map((c, i) => {
      const meaning = Math.min(1, Math.max(0, c.similarity));
      const words = best > 0 ? Math.max(0, c.bm25) / best : 0;
      const names = Math.min(1, Math.max(0, c.names));
      const score = SEARCH_WEIGHTS.meaning * meaning + SEARCH_WEIGHTS.words * words + SEARCH_WEIGHTS.names * names;
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
