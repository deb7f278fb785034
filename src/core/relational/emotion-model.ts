import { EMOTIONS, type Emotion } from "./mood.js";

/** The classes the emotion classifier tells apart: no emotion, then `EMOTIONS`. */
export const EMOTION_CLASSES = ["none", ...EMOTIONS] as const;

/** One class of the emotion classifier. */
export type EmotionClass = Emotion | "none";

/** A linear classifier over {@link emotionFeatures}: one weight row per class, bias last. */
export interface EmotionModel {
  weights: readonly (readonly number[])[];
  /** The bag-of-terms vocabulary of the word features the weights also read; none: the vector, valence and rules only. */
  vocabulary?: readonly string[];
  /** A log-odds offset per class, added before the softmax (calibration chosen out of fold); none: 0. */
  bias?: readonly number[];
}

// The vector is scaled so it and the lexicon features share one L2 penalty sensibly.
const SCALE = 4;

/**
 * The classifier's features: the message vector (scaled), VADER valence, and one flag per emotion
 * the rules found (cue sets with negation, sarcasm, the crisis, shouting), in `EMOTIONS` order;
 * then the message's word features (`wordFeatures` in text-model.ts) when given.
 */
export function emotionFeatures(vector: ArrayLike<number>, ruleEmotions: ReadonlySet<Emotion> | readonly Emotion[], valence: number, words: readonly number[] = []): number[] {
  const has = (e: Emotion) => ("has" in ruleEmotions ? ruleEmotions.has(e) : ruleEmotions.includes(e));
  const out = Array.from(vector, (x) => x * SCALE);
  out.push(valence, ...EMOTIONS.map((e) => (has(e) ? 1 : 0)), ...words);
  return out;
}

/** Class probabilities (softmax of the linear scores) for some features. */
export function emotionProbabilities(model: EmotionModel, features: readonly number[]): Map<EmotionClass, number> {
  const z = model.weights.map((w, i) => {
    let s = w[w.length - 1] + (model.bias?.[i] ?? 0);
    const n = Math.min(features.length, w.length - 1);
    for (let j = 0; j < n; j++) s += w[j] * features[j];
    return s;
  });
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return new Map(EMOTION_CLASSES.map((c, i) => [c, e[i] / sum]));
}
