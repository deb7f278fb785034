import type { EmbedderMode } from "../embedder-mode.js";

/**
 * How a cosine similarity becomes a drift distance in [0,1]: 0 at or above `similar`, 1 at or
 * below `unrelated`, linear in between. Raw `1 − cos` is useless as a distance because sentence
 * encoders never put unrelated sentences near cos 0 → distance 1 or paraphrases near 1 → 0:
 * on the `use` encoder unrelated sentences sit at cos −0.05…0.25 and on-topic answers at 0.40…0.76.
 */
export interface DriftCalibration {
  /** Cosine at and above which a text counts as on the anchor's topic (distance 0). */
  readonly similar: number;
  /** Cosine at and below which a text counts as unrelated (distance 1). */
  readonly unrelated: number;
}

/**
 * Measured on the `use` embedder (Universal Sentence Encoder lite) with the sentences in
 * `test/fixtures/drift-calibration.ts` (summarised in docs/lifecycle.md, "Calibration"): on-topic
 * answers sit at cos 0.41–0.76 to their goal, off-topic ones at −0.04–0.25, related-but-off-goal
 * ones around 0.27–0.37. This band puts the first on NUDGE or better, the last on CORRECT and
 * every off-topic answer on BLOCK.
 */
export const USE_CALIBRATION: DriftCalibration = { similar: 0.55, unrelated: 0.15 };

/**
 * The hashing embedder only sees shared words: off-topic texts score 0–0.14 against a goal and
 * topical answers 0.05–0.44, so drift with it is a rough word-overlap check (tests and CI only).
 */
export const HASH_CALIBRATION: DriftCalibration = { similar: 0.3, unrelated: 0.05 };

/** The calibration for an embedder family (`openai` models share the `use` band: not measured). */
export function calibrationFor(mode: EmbedderMode): DriftCalibration {
  return mode === "hash" ? HASH_CALIBRATION : USE_CALIBRATION;
}

/** Maps a cosine similarity to a distance in [0,1] under a calibration. */
export function cosineToDistance(cos: number, calibration: DriftCalibration): number {
  const { similar, unrelated } = calibration;
  const d = (similar - cos) / (similar - unrelated);
  return Math.min(1, Math.max(0, d));
}
