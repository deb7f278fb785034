import { cuePattern, REQUEST_VERBS, SMALL_TALK_CUES } from "./lexicon.js";
import type { Emotion } from "./mood.js";

/** Intents the rules assign, in the order they are tried. */
export const INTENTS = ["crisis", "complaint", "gratitude", "emotional_support", "small_talk", "request", "question", "sharing"] as const;

/** One intent label. */
export type Intent = (typeof INTENTS)[number];

/** Signals the intent rules use besides the text. */
export interface IntentSignals {
  emotions: readonly Emotion[];
  crisis: boolean;
  /** A complaint cue (refund, charged twice …) was found. */
  complaintCue: boolean;
}

const SMALL_TALK = new RegExp(cuePattern(SMALL_TALK_CUES).source, "i");
const REQUEST_START = new RegExp(
  `^(?:(?:please|hey|ok|okay)[, ]+)?(?:(?:can|could|would|will) you (?:please )?|please )?(?:${REQUEST_VERBS.join("|")})\\b`,
  "i",
);
const QUESTION_START = /^(?:what|when|where|who|whom|whose|which|why|how|is|are|am|was|were|do|does|did|can|could|should|would|will|may|might|have|has)\b/i;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * Intent rules, first match wins: crisis → complaint (anger, frustration or a complaint cue) →
 * gratitude (thanks without negative feelings) → emotional_support (anxiety or sadness) →
 * small_talk (a greeting or chit-chat cue in ≤ 8 words) → request (an imperative task verb, maybe
 * after "please" / "can you") → question (a `?` or a question word first) → sharing.
 */
export function classifyIntent(message: string, s: IntentSignals): Intent {
  const text = message.trim().replace(/[\u2018\u2019]/g, "'");
  const has = (e: Emotion) => s.emotions.includes(e);
  if (s.crisis) return "crisis";
  if (has("anger") || has("frustration") || s.complaintCue) return "complaint";
  if (has("gratitude") && !has("anxiety") && !has("sadness")) return "gratitude";
  if (has("anxiety") || has("sadness")) return "emotional_support";
  if (words(text) <= 8 && SMALL_TALK.test(text)) return "small_talk";
  if (REQUEST_START.test(text)) return "request";
  if (text.includes("?") || QUESTION_START.test(text)) return "question";
  return "sharing";
}
