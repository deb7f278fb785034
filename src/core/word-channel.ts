import { contentWords } from "./query-terms.js";

/** What the word channel reads from a vocabulary (`ports/word-vectors` extends it). */
export interface WordLookup {
  /** Vector length. */
  readonly dimension: number;
  /** The vector of a lower-case word, or undefined when the vocabulary lacks it. */
  vector(word: string): Float32Array | undefined;
  /** Frequency rank of a word held (0 = most frequent), or undefined. */
  rank(word: string): number | undefined;
}

/**
 * SIF weight of a word from its frequency rank: a / (a + p(w)) with Zipf's p(w) ≈ 0.088 / rank over
 * a 50k vocabulary and a = 0.001, i.e. rank / (rank + 88). Frequent words barely move the mean.
 */
function sifWeight(rank: number): number {
  const r = rank + 1;
  return r / (r + 88);
}

/**
 * The SIF-weighted mean of a text's content-word vectors, L2-normalised; undefined when none of
 * its content words is in the vocabulary. A possessive ("Melanie's") is looked up without its ending.
 */
export function meanWordVector(vectors: WordLookup, text: string): Float32Array | undefined {
  const sum = new Float32Array(vectors.dimension);
  let found = 0;
  for (const word of contentWords(text)) {
    const lower = word.toLowerCase();
    const key = vectors.rank(lower) !== undefined ? lower : lower.replace(/['’]s$/u, "");
    const v = vectors.vector(key);
    if (v === undefined) continue;
    const w = sifWeight(vectors.rank(key) ?? 0);
    for (let d = 0; d < sum.length; d++) sum[d] += w * v[d];
    found++;
  }
  if (found === 0) return undefined;
  let norm = 0;
  for (let d = 0; d < sum.length; d++) norm += sum[d] * sum[d];
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < sum.length; d++) sum[d] /= norm;
  return sum;
}
