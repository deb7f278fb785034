import { CRISIS_VOTE } from "./crisis-examples.js";
import { CRISIS_CUES, foldForCues, IDIOMS, PAST_RECOVERED, RISK_WORDS, SAFE_CONTEXT } from "./crisis-rules.js";
import { crisisFeatures, crisisScore } from "./crisis-model.js";
import { bestPerLabel, crisisMeaning, type MessageMeaning } from "./meaning.js";
import { CRISIS_CLASSES, type CrisisClass } from "./prototypes.js";

/** Why a message reads as a crisis. */
export interface CrisisJudgement {
  crisisClass: CrisisClass;
  /**
   * "rules" when a cue matched, "meaning" when only the similarity to the labelled sentences did,
   * "model" when only the configured chat model did.
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

const CLASS_PATTERNS = CRISIS_CLASSES.map((c) => [c, new RegExp(`(?<![\\w])(?:${CRISIS_CUES[c].join("|")})(?![\\w])`, "u")] as const);
const SAFE = new RegExp(SAFE_CONTEXT.join("|"), "u");
// Explicit present intent is a crisis even inside a joke marker or a story.
const EXPLICIT = /suicid|kill(?:ing)? myself|end(?:ing)? my (?:own )?life|want(?:ed)? to die|better off dead/u;
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
export function judgeCrisis(message: string, meaning?: MessageMeaning, thresholds = CRISIS_MEANING_THRESHOLDS): CrisisJudgement | null {
  const folded = foldForCues(message);
  if (pastRecovered(folded)) return null;
  const explicit = EXPLICIT.test(folded);
  if (!explicit && SAFE.test(folded)) return null;
  const ruled = crisisClassByRules(folded);
  if (ruled) return { crisisClass: ruled, by: "rules" };
  if (riskWords(folded)) return { crisisClass: "ideation", by: "rules" };
  if (!meaning) return null;
  return crisisByMeaning(meaning, thresholds);
}

/**
 * The reading by meaning alone: the trained crisis model when the embedder has one, else the
 * nearest labelled sentences. The class is that of the closest crisis prototype (model) or of
 * the closest crisis sentence naming one (vote).
 */
export function crisisByMeaning(meaning: MessageMeaning, thresholds = CRISIS_MEANING_THRESHOLDS): CrisisJudgement | null {
  const model = meaning.prototypes.crisisModel;
  if (model) {
    const classes = bestPerLabel(meaning.vector, meaning.prototypes.crisis);
    const safe = bestPerLabel(meaning.vector, meaning.prototypes.safe).get("safe") ?? 0;
    if (crisisScore(model, crisisFeatures(meaning.vector, classes, safe)) < model.threshold) return null;
    const [crisisClass] = [...classes].sort((a, b) => b[1] - a[1])[0];
    return { crisisClass, by: "meaning" };
  }
  const m = crisisMeaning(meaning, thresholds.k);
  if (m.crisis >= thresholds.minCrisis && m.crisis - m.safe >= thresholds.minMargin) return { crisisClass: m.crisisClass, by: "meaning" };
  return null;
}
