import { CRISIS_VOTE } from "./crisis-examples.js";
import { CRISIS_CUES, foldForCues, IDIOMS, PAST_RECOVERED, RISK_WORDS, SAFE_CONTEXT } from "./crisis-rules.js";
import { crisisFeatures, crisisScore, type WordCrisisModel } from "./crisis-model.js";
import { CRISIS_VETO, CRISIS_VETO_ALONE, CRISIS_WORD_THRESHOLD, CRISIS_WORD_THRESHOLD_ALONE, CRISIS_WORD_WEIGHTS } from "./crisis-weights.js";
import { bestPerLabel, crisisMeaning, type MessageMeaning } from "./meaning.js";
import { CRISIS_CLASSES, type CrisisClass } from "./prototypes.js";
import { CONCEPT_NAMES, conceptFeatures } from "./text-features.js";
import { linearScore, wordFeatures } from "./text-model.js";
import { valence } from "./valence.js";
import { WORD_VOCABULARY } from "./word-vocabulary.js";

/** Why a message reads as a crisis. */
export interface CrisisJudgement {
  crisisClass: CrisisClass;
  /**
   * "rules" when a cue matched, "meaning" when only the trained readings (sentence or word
   * model, or the similarity to the labelled sentences) did, "model" when only the configured
   * chat model did.
   */
  by: "rules" | "meaning" | "model";
}

/**
 * Settings of the judgement by meaning, chosen by leave-one-out on the tune half of bench/labels
 * (bench/judgement/train-crisis.ts).
 */
export interface CrisisMeaningThresholds {
  /** How many nearest sentences of each side (crisis, look-alike) are averaged. */
  k: number;
  /** Least mean similarity of the k nearest crisis sentences. */
  minCrisis: number;
  /** Least lead of that mean over the k nearest look-alikes' mean. */
  minMargin: number;
}

/** The defaults `Process` uses (generated into crisis-examples.ts). */
export const CRISIS_MEANING_THRESHOLDS: CrisisMeaningThresholds = { ...CRISIS_VOTE };

/** The word model `Process` uses (generated into crisis-weights.ts by bench/judgement/train-crisis-model.ts). */
export const CRISIS_WORD_MODEL: WordCrisisModel = {
  vocabulary: WORD_VOCABULARY,
  weights: CRISIS_WORD_WEIGHTS,
  threshold: CRISIS_WORD_THRESHOLD,
  thresholdAlone: CRISIS_WORD_THRESHOLD_ALONE,
  veto: CRISIS_VETO,
  vetoAlone: CRISIS_VETO_ALONE,
};

// The crisis class a concept points to, for a message the word model flags without a sentence vector.
const CONCEPT_CLASS: Readonly<Record<string, CrisisClass>> = {
  death: "ideation",
  hopeless: "hopelessness",
  burden: "burden",
  giving: "preparation",
  finality: "goodbye",
  means: "method",
  self_harm: "self_harm",
  symptoms: "medical",
  threat: "violence",
  harm_others: "harm_others",
};

const CLASS_PATTERNS = CRISIS_CLASSES.map((c) => [c, new RegExp(`(?<![\\w])(?:${CRISIS_CUES[c].join("|")})(?![\\w])`, "u")] as const);
const SAFE = new RegExp(SAFE_CONTEXT.join("|"), "u");
// Explicit present intent is a crisis even inside a joke marker or a story.
const EXPLICIT = /suicid|kill(?:ing)? myself|end(?:ing)? my (?:own )?life|want(?:ed)? to die|better off dead/u;
// The speaker's own intent, never vetoed by the models ("suicide" alone may be about someone else).
const EXPLICIT_INTENT = /(?:im|i am|i feel|feeling|ive been|been) (?:\w+ )?suicidal|kill(?:ing)? myself|end(?:ing)? my (?:own )?life|(?:i|id|i just|i really) (?:want|wanna|wanted) to die|(?:im|i am|id be|i would be) better off dead/u;
const IDIOM = new RegExp(`(?<![\\w])(?:${IDIOMS.join("|")})`, "gu");
const SPEAKER = new RegExp(RISK_WORDS.speaker, "u");
const DEATH = new RegExp(RISK_WORDS.death, "u");
const FINAL = new RegExp(RISK_WORDS.final, "u");
const PAST = new RegExp(PAST_RECOVERED.past, "u");
const RECOVERED = new RegExp(PAST_RECOVERED.recovered, "u");
const RELAPSE = new RegExp(PAST_RECOVERED.relapse, "u");

/** The first crisis class whose cues match the folded text. */
export function crisisClassByRules(folded: string): CrisisClass | null {
  for (const [c, pattern] of CLASS_PATTERNS) if (pattern.test(folded)) return c;
  return null;
}

/** The co-occurrence net: the speaker, a death word and a finality word, once idioms are removed. */
export function riskWords(folded: string): boolean {
  const plain = folded.replace(IDIOM, " ");
  return SPEAKER.test(plain) && DEATH.test(plain) && FINAL.test(plain);
}

/** True when the message tells of a crisis as over ("I used to … but I've been clean for years"). */
export function pastRecovered(folded: string): boolean {
  return PAST.test(folded) && RECOVERED.test(folded) && !RELAPSE.test(folded);
}

/**
 * Judges whether a message is a crisis: the class cues, cancelled by a look-alike context (a joke
 * marker, a story, an exclamation) unless the intent is explicit, and by the past told as
 * recovered; then, with a semantic embedder, meaning (`crisisByMeaning`). Null when the message
 * is not a crisis.
 */
export function judgeCrisis(
  message: string,
  meaning?: MessageMeaning,
  thresholds = CRISIS_MEANING_THRESHOLDS,
  wordModel: WordCrisisModel | null = CRISIS_WORD_MODEL,
): CrisisJudgement | null {
  if (lookAlike(message)) return null;
  const ruled = judgeCrisisByRules(message);
  if (ruled && strongByRules(message)) return ruled;
  const words = wordModel ? wordFeatures(message, valence(message), wordModel.vocabulary) : undefined;
  const sentence = meaning ? crisisByMeaning(meaning, thresholds, words) : null;
  const alone = !meaning?.prototypes.crisisModel;
  const wordMargin = wordModel && words ? linearScore(wordModel.weights, words) - (alone ? wordModel.thresholdAlone : wordModel.threshold) : -Infinity;
  if (ruled) {
    // A single weak cue stands unless both models read the message as far from a crisis.
    if (!wordModel) return ruled;
    const margin = Math.max(wordMargin, sentence?.margin ?? -Infinity);
    return margin >= -(alone ? wordModel.vetoAlone : wordModel.veto) ? ruled : null;
  }
  if (sentence && sentence.margin >= 0) return sentence.judgement;
  if (wordMargin < 0) return null;
  return { crisisClass: meaning ? closestClass(meaning) : classByConcepts(message), by: "meaning" };
}

/**
 * True when the rules' reading is strong, and no model may veto it: an explicit statement of
 * intent, or cues of two different classes (the co-occurrence net counts as one).
 */
export function strongByRules(message: string): boolean {
  const folded = foldForCues(message);
  if (EXPLICIT_INTENT.test(folded)) return true;
  const classes = CLASS_PATTERNS.filter(([, pattern]) => pattern.test(folded)).length + (riskWords(folded) ? 1 : 0);
  return classes >= 2;
}

/**
 * True when the message is a look-alike by the rules: the past told as recovered, or a joke
 * marker, a story or an exclamation around no explicit statement of intent. It cancels every
 * reading (rules and models).
 */
export function lookAlike(message: string): boolean {
  const folded = foldForCues(message);
  return pastRecovered(folded) || (!EXPLICIT.test(folded) && SAFE.test(folded));
}

/** The rules alone: class cues and the co-occurrence net, cancelled by look-alikes and the past told as recovered. */
export function judgeCrisisByRules(message: string): CrisisJudgement | null {
  if (lookAlike(message)) return null;
  const folded = foldForCues(message);
  const ruled = crisisClassByRules(folded);
  if (ruled) return { crisisClass: ruled, by: "rules" };
  if (riskWords(folded)) return { crisisClass: "ideation", by: "rules" };
  return null;
}

function closestClass(meaning: MessageMeaning): CrisisClass {
  return [...bestPerLabel(meaning.vector, meaning.prototypes.crisis)].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "ideation";
}

/** The crisis class of the crisis concept the message holds most of (ideation when none). */
function classByConcepts(message: string): CrisisClass {
  const f = conceptFeatures(message);
  let best: CrisisClass = "ideation";
  let most = 0;
  CONCEPT_NAMES.forEach((c, i) => {
    const crisisClass = CONCEPT_CLASS[c];
    if (crisisClass && f[2 * i] > most) {
      most = f[2 * i];
      best = crisisClass;
    }
  });
  return best;
}

/**
 * The reading by meaning alone: the trained crisis model when the embedder has one (its class,
 * and its score's margin over the threshold: a crisis at 0 or more), else the nearest labelled
 * sentences (a crisis, margin 0, or null). The class is that of the closest crisis prototype
 * (model) or of the closest crisis sentence naming one (vote).
 */
export function crisisByMeaning(meaning: MessageMeaning, thresholds = CRISIS_MEANING_THRESHOLDS, words: readonly number[] = []): { judgement: CrisisJudgement; margin: number } | null {
  const model = meaning.prototypes.crisisModel;
  if (model) {
    const classes = bestPerLabel(meaning.vector, meaning.prototypes.crisis);
    const safe = bestPerLabel(meaning.vector, meaning.prototypes.safe).get("safe") ?? 0;
    const margin = crisisScore(model, crisisFeatures(meaning.vector, classes, safe, words)) - model.threshold;
    const [crisisClass] = [...classes].sort((a, b) => b[1] - a[1])[0];
    return { judgement: { crisisClass, by: "meaning" }, margin };
  }
  const m = crisisMeaning(meaning, thresholds.k);
  if (m.crisis >= thresholds.minCrisis && m.crisis - m.safe >= thresholds.minMargin) return { judgement: { crisisClass: m.crisisClass, by: "meaning" }, margin: 0 };
  return null;
}
