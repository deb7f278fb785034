/** A human label for how well a hit matches. */
export type Strength = "strong" | "moderate" | "weak";

/**
 * Judged on raw signals, not min-max ranks (which make the best of two weak hits look perfect):
 * strong — cosine ≥ 0.5, or ≥ 0.35 with a word match; moderate — cosine ≥ 0.3 (Humane's relevance
 * floor) or any word match; weak — the rest.
 */
export function matchStrength(similarity: number, wordMatch: boolean): Strength {
  if (similarity >= 0.5 || (similarity >= 0.35 && wordMatch)) return "strong";
  if (similarity >= 0.3 || wordMatch) return "moderate";
  return "weak";
}
