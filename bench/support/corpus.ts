/**
 * A deterministic synthetic corpus for the benches: English-like sentences over a Zipf-distributed
 * vocabulary (common words are common, as in chat), so full-text and vector channels see realistic
 * term statistics. Same seed → same memories and queries in every run.
 */

/** A seeded PRNG (mulberry32): fast and reproducible. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["ka", "lo", "mi", "ne", "ra", "to", "su", "vi", "de", "po", "an", "el", "or", "ur", "is", "ba", "ce", "fi", "go", "hu", "ja", "ke", "lu", "ma", "ni", "pe", "qu", "ri", "sa", "te"];
const FUNCTION_WORDS = ["the", "a", "and", "of", "to", "in", "my", "is", "was", "with", "for", "on", "at", "about", "we", "i", "she", "he"];

/** A vocabulary of `size` made-up words plus common function words, and a Zipf sampler over it. */
export interface Vocabulary {
  words: readonly string[];
  /** Draws a word index with probability ∝ 1 / (rank + 1). */
  sample(random: () => number): string;
}

/** Builds a vocabulary of `size` distinct content words. */
export function createVocabulary(size: number, seed = 7): Vocabulary {
  const random = createRandom(seed);
  const seen = new Set<string>(FUNCTION_WORDS);
  const words: string[] = [];
  while (words.length < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  // Cumulative Zipf weights for inverse-CDF sampling.
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) cumulative[i] = total += 1 / (i + 1);
  return {
    words,
    sample(rnd) {
      const x = rnd() * total;
      let lo = 0;
      let hi = size - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid] < x) lo = mid + 1;
        else hi = mid;
      }
      return words[lo];
    },
  };
}

/** A sentence of 8–24 words, about a third of them function words. */
export function sentence(vocabulary: Vocabulary, random: () => number): string {
  const n = 8 + Math.floor(random() * 17);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(random() < 0.33 ? FUNCTION_WORDS[Math.floor(random() * FUNCTION_WORDS.length)] : vocabulary.sample(random));
  }
  const s = out.join(" ");
  return s.charAt(0).toUpperCase() + s.slice(1) + ".";
}

/** A query of 2–5 content words (what an agent would ask about). */
export function query(vocabulary: Vocabulary, random: () => number): string {
  const n = 2 + Math.floor(random() * 4);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(vocabulary.sample(random));
  return out.join(" ");
}

/** The user id of user number `i` (zero-padded so ids sort). */
export function userId(i: number): string {
  return `user-${String(i).padStart(5, "0")}`;
}
