import { cosine } from "../ranking.js";
import { CRISIS_EXAMPLES } from "./crisis-examples.js";
import type { CrisisModel } from "./crisis-model.js";
import { type CrisisCloseness, crisisCloseness, type CrisisExampleVector } from "./crisis-vote.js";
import type { EmotionClass, EmotionModel } from "./emotion-model.js";
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
  /**
   * A crisis model trained for this embedder's vectors, when there is one (the `use` embedder):
   * then it reads crises by meaning, and the nearest-sentence vote below is not used.
   */
  crisisModel?: CrisisModel | null;
  /** Labelled messages (crisis and look-alike) the nearest-sentence vote also compares with (crisis-examples.ts). */
  examples?: readonly CrisisExampleVector[];
}

/** A message's vector and the prototypes to compare it with (only with a semantic embedder). */
export interface MessageMeaning {
  vector: Float32Array;
  prototypes: PrototypeVectors;
}

/** A labelled crisis example: whether it is a crisis, its class when named, and its text. */
export type CrisisExampleText = [crisis: boolean, crisisClass: CrisisClass | null, text: string];

/** The labelled crisis examples of crisis-examples.ts ("crisis" without a named class reads as null). */
export function crisisExampleTexts(): CrisisExampleText[] {
  return CRISIS_EXAMPLES.map(([label, text]) => [
    label !== null,
    label !== null && (CRISIS_CLASSES as readonly string[]).includes(label) ? (label as CrisisClass) : null,
    text,
  ]);
}

/** The prototype sentences in a fixed order: crisis, then safe, then emotions, then the crisis examples. */
export function prototypeTexts(): { crisis: [CrisisClass, string][]; safe: string[]; emotions: [Emotion | "none", string][]; examples: CrisisExampleText[] } {
  return {
    crisis: CRISIS_CLASSES.flatMap((c) => CRISIS_PROTOTYPES[c].map((t) => [c, t] as [CrisisClass, string])),
    safe: [...SAFE_PROTOTYPES],
    emotions: [...EMOTIONS, "none" as const].flatMap((e) => EMOTION_PROTOTYPES[e].map((t) => [e, t] as [Emotion | "none", string])),
    examples: crisisExampleTexts(),
  };
}

/** Builds the prototype set from vectors embedded in `prototypeTexts()` order (crisis, safe, emotions, examples). */
export function prototypeVectors(vectors: readonly Float32Array[], emotionModel: EmotionModel | null = null, crisisModel: CrisisModel | null = null): PrototypeVectors {
  const texts = prototypeTexts();
  let i = 0;
  const crisis = texts.crisis.map(([label]) => ({ label, vector: vectors[i++] }));
  const safe = texts.safe.map(() => ({ label: "safe" as const, vector: vectors[i++] }));
  const emotions = texts.emotions.map(([label]) => ({ label, vector: vectors[i++] }));
  const examples = i < vectors.length ? texts.examples.map(([isCrisis, crisisClass]) => ({ crisis: isCrisis, crisisClass, vector: vectors[i++] })) : undefined;
  return { crisis, safe, emotions, emotionModel, crisisModel, examples };
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

/** How close a message comes to the crisis and to the look-alike (safe) sentences. */
export type CrisisMeaning = CrisisCloseness;

const sentences = new WeakMap<PrototypeVectors, CrisisExampleVector[]>();

/** Every labelled crisis and non-crisis sentence: the hand prototypes, then the examples (built once per set). */
export function crisisSentences(prototypes: PrototypeVectors): CrisisExampleVector[] {
  let all = sentences.get(prototypes);
  if (!all) {
    all = [
      ...prototypes.crisis.map((p) => ({ crisis: true, crisisClass: p.label, vector: p.vector })),
      ...prototypes.safe.map((p) => ({ crisis: false, crisisClass: null, vector: p.vector })),
      ...(prototypes.examples ?? []),
    ];
    sentences.set(prototypes, all);
  }
  return all;
}

/**
 * The mean similarity of the k nearest crisis sentences and of the k nearest look-alikes (hand
 * prototypes and labelled examples), and the class of the closest crisis sentence.
 */
export function crisisMeaning(meaning: MessageMeaning, k = 1): CrisisMeaning {
  return crisisCloseness(meaning.vector, crisisSentences(meaning.prototypes), k);
}

/** How close the message comes to each emotion class's prototypes (embedders without a trained classifier). */
export function emotionScores(meaning: MessageMeaning): Map<EmotionClass, number> {
  return bestPerLabel(meaning.vector, meaning.prototypes.emotions);
}
