import { CRISIS_CLASSES, type CrisisClass } from "./prototypes.js";

/**
 * A linear crisis reading for one embedder's vectors (logistic regression, trained on the tune
 * half of bench/labels by bench/judgement/train-crisis-model.ts): weights over the message vector
 * and its best similarity to each crisis class's prototypes and to the look-alike prototypes.
 */
export interface CrisisModel {
  /** One weight per feature of {@link crisisFeatures}, then the bias. */
  weights: readonly number[];
  /** Least score (log-odds) that reads as a crisis, chosen by cross-validation on tune. */
  threshold: number;
}

// Features are scaled so the vector and the similarities share one L2 penalty sensibly.
const SCALE = 4;

/**
 * The model's features: the vector, the best similarity per crisis class (in `CRISIS_CLASSES`
 * order), the best look-alike similarity, and the lead of the best class over it, all scaled;
 * then the message's word features (`wordFeatures` in text-model.ts) when given.
 */
export function crisisFeatures(vector: ArrayLike<number>, classSimilarity: ReadonlyMap<CrisisClass, number>, safeSimilarity: number, words: readonly number[] = []): number[] {
  const classes = CRISIS_CLASSES.map((c) => classSimilarity.get(c) ?? 0);
  const out = Array.from(vector, (x) => x * SCALE);
  out.push(...classes.map((s) => s * SCALE), safeSimilarity * SCALE, (Math.max(...classes) - safeSimilarity) * SCALE, ...words);
  return out;
}

/**
 * The second reading, over the words alone (`wordFeatures`): it needs no sentence embedder, so it
 * also runs with the `hash` embedder. Its threshold beside the sentence model (an OR of the two)
 * and alone differ; both were chosen by cross-validation on tune.
 */
export interface WordCrisisModel {
  vocabulary: readonly string[];
  weights: readonly number[];
  /** Least score read as a crisis beside the sentence model. */
  threshold: number;
  /** Least score read as a crisis when there is no sentence model (embedders without one). */
  thresholdAlone: number;
  /**
   * A weak rule reading (one cue class, no explicit intent) is dropped when every model's score is
   * more than this below its threshold (beside the sentence model, and alone); Infinity: never.
   */
  veto: number;
  vetoAlone: number;
}

/** The model's score (log-odds of a crisis) for some features. */
export function crisisScore(model: CrisisModel, features: readonly number[]): number {
  const w = model.weights;
  let z = w[w.length - 1];
  const n = Math.min(features.length, w.length - 1);
  for (let j = 0; j < n; j++) z += w[j] * features[j];
  return z;
}
