import { cosine } from "../ranking.js";
import { type EmotionClass, type EmotionModel, emotionProbabilities } from "./emotion-model.js";
import { EMOTIONS, type Emotion } from "./mood.js";
import { CRISIS_CLASSES, CRISIS_PROTOTYPES, type CrisisClass, EMOTION_PROTOTYPES, SAFE_PROTOTYPES } from "./prototypes.js";

/** A labelled prototype sentence and its vector. */
export interface Prototype<L extends string> {
  label: L;
  vector: Float32Array;
}

/** The prototype sentences embedded once by the semantic embedder. */
export interface PrototypeVectors {
  crisis: readonly Prototype<CrisisClass>[];
  safe: readonly Prototype<"safe">[];
  emotions: readonly Prototype<Emotion | "none">[];
  /** A classifier trained for this embedder's vectors, when there is one (the `use` embedder). */
  emotionModel: EmotionModel | null;
}

/** A message's vector and the prototypes to compare it with (only with a semantic embedder). */
export interface MessageMeaning {
  vector: Float32Array;
  prototypes: PrototypeVectors;
}

/** The prototype sentences in a fixed order: crisis, then safe, then emotions. */
export function prototypeTexts(): { crisis: [CrisisClass, string][]; safe: string[]; emotions: [Emotion | "none", string][] } {
  return {
    crisis: CRISIS_CLASSES.flatMap((c) => CRISIS_PROTOTYPES[c].map((t) => [c, t] as [CrisisClass, string])),
    safe: [...SAFE_PROTOTYPES],
    emotions: [...EMOTIONS, "none" as const].flatMap((e) => EMOTION_PROTOTYPES[e].map((t) => [e, t] as [Emotion | "none", string])),
  };
}

/** Builds the prototype set from vectors embedded in `prototypeTexts()` order (crisis, safe, emotions). */
export function prototypeVectors(vectors: readonly Float32Array[], emotionModel: EmotionModel | null = null): PrototypeVectors {
  const texts = prototypeTexts();
  let i = 0;
  const crisis = texts.crisis.map(([label]) => ({ label, vector: vectors[i++] }));
  const safe = texts.safe.map(() => ({ label: "safe" as const, vector: vectors[i++] }));
  const emotions = texts.emotions.map(([label]) => ({ label, vector: vectors[i++] }));
  return { crisis, safe, emotions, emotionModel };
}

/** The best similarity per label. */
export function bestPerLabel<L extends string>(vector: Float32Array, prototypes: readonly Prototype<L>[]): Map<L, number> {
  const best = new Map<L, number>();
  for (const p of prototypes) {
    const s = cosine(vector, p.vector);
    if (s > (best.get(p.label) ?? -2)) best.set(p.label, s);
  }
  return best;
}

/** How close a message comes to the crisis and to the look-alike (safe) prototypes. */
export interface CrisisMeaning {
  /** The closest crisis class. */
  crisisClass: CrisisClass;
  /** Its similarity. */
  crisis: number;
  /** The best similarity to a non-crisis look-alike. */
  safe: number;
}

/** The closest crisis class and the closest look-alike. */
export function crisisMeaning(meaning: MessageMeaning): CrisisMeaning {
  let crisisClass: CrisisClass = "ideation";
  let crisis = -2;
  for (const [label, s] of bestPerLabel(meaning.vector, meaning.prototypes.crisis)) {
    if (s > crisis) [crisis, crisisClass] = [s, label];
  }
  const safe = Math.max(-2, ...bestPerLabel(meaning.vector, meaning.prototypes.safe).values());
  return { crisisClass, crisis, safe };
}

/**
 * How strongly the message carries each emotion class by meaning: the trained classifier's
 * probabilities when the embedder has one, else the best similarity to each class's prototypes.
 */
export function emotionScores(meaning: MessageMeaning): Map<EmotionClass, number> {
  const model = meaning.prototypes.emotionModel;
  return model ? emotionProbabilities(model, meaning.vector) : bestPerLabel(meaning.vector, meaning.prototypes.emotions);
}
