import { EMOTIONS, type Emotion } from "./mood.js";

/** The classes the emotion classifier tells apart: no emotion, then `EMOTIONS`. */
export const EMOTION_CLASSES = ["none", ...EMOTIONS] as const;

/** One class of the emotion classifier. */
export type EmotionClass = Emotion | "none";

/** A linear classifier over one embedder's vectors: one weight row per class, bias last. */
export interface EmotionModel {
  weights: readonly (readonly number[])[];
}

/** Class probabilities (softmax of the linear scores) for one vector. */
export function emotionProbabilities(model: EmotionModel, vector: Float32Array): Map<EmotionClass, number> {
  const z = model.weights.map((w) => {
    let s = w[w.length - 1];
    const n = Math.min(vector.length, w.length - 1);
    for (let j = 0; j < n; j++) s += w[j] * vector[j];
    return s;
  });
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return new Map(EMOTION_CLASSES.map((c, i) => [c, e[i] / sum]));
}
