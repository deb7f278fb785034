import { type CrisisJudgement, judgeCrisis } from "./crisis.js";
import { classifyIntent, type Intent } from "./intent.js";
import { judgeEmotions } from "./emotion.js";
import { COMPLAINT_CUES, cuePattern, NEGATORS } from "./lexicon.js";
import type { MessageMeaning } from "./meaning.js";
import { type Emotion, strongestFirst } from "./mood.js";
import { valence } from "./valence.js";

/** What the offline detector reads from one user message. */
export interface Detection {
  /** Emotions present, the strongest (`topEmotion`) first, then in `EMOTIONS` order. */
  emotions: Emotion[];
  /** The strongest emotion present, or null when none is. */
  topEmotion: Emotion | null;
  /** Mostly capitals, or repeated `!`. */
  shouting: boolean;
  /** Self-harm, suicide risk, or a medical or safety emergency. */
  crisis: boolean;
  /** Why the message reads as a crisis (class, and whether rules or meaning said so); null when it does not. */
  crisisReason: CrisisJudgement | null;
  intent: Intent;
  /** VADER compound valence in [-1,1]. */
  valence: number;
}

/** Tuning of the detector; the defaults are what `Process` uses. */
export interface DetectorOptions {
  /** Share of capitals among letters that reads as shouting (default 0.7, with ≥ 6 letters). */
  capsRatio?: number;
  /** Valence at or below which a shouted message reads as anger (default −0.2). */
  shoutedAngerValence?: number;
  /** Valence at or above which a message with no cue reads as joy (default 0.6). */
  joyValence?: number;
}

const COMPLAINT = cuePattern(COMPLAINT_CUES);

/** Lower-cases and folds typographic apostrophes so cues match "don’t" and "don't" alike. */
export function normalizeMessage(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc]/g, "'").toLowerCase();
}

function unnegatedMatch(text: string, pattern: RegExp): boolean {
  for (const m of text.matchAll(pattern)) {
    const before = text.slice(0, m.index ?? 0).split(/\s+/).filter(Boolean).slice(-3);
    if (!NEGATORS.test(before.join(" "))) return true;
  }
  return false;
}

/** True when the message carries an unnegated complaint cue (refund, charged twice …). */
export function hasComplaintCue(message: string): boolean {
  return unnegatedMatch(normalizeMessage(message), COMPLAINT);
}

/** True for mostly capital letters (≥ 6 letters) or repeated exclamation marks. */
export function isShouting(text: string, capsRatio = 0.7): boolean {
  if (/!\s*!/.test(text)) return true;
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length < 6) return false;
  const upper = letters.filter((c) => c !== c.toLowerCase() && c === c.toUpperCase()).length;
  return upper / letters.length >= capsRatio;
}

/**
 * Offline detection with lexicons and rules: emotion cue sets (with negation), self-harm and
 * emergency phrases for the crisis flag, VADER valence, shouting, then intent rules. A shouted
 * negative or frustrated message reads as anger; a strongly positive message with no cue reads
 * as joy; a self-harm message reads as sadness.
 */
export function detect(message: string, options: DetectorOptions = {}, meaning?: MessageMeaning): Detection {
  const text = normalizeMessage(message);
  const v = valence(message);
  const shouting = isShouting(message, options.capsRatio);
  const crisisReason = judgeCrisis(message, meaning);
  const crisis = crisisReason !== null;
  const judged = judgeEmotions(text, {
    valence: v,
    shouting,
    crisis: crisisReason,
    meaning,
    shoutedAngerValence: options.shoutedAngerValence ?? -0.2,
    joyValence: options.joyValence ?? 0.6,
  });
  const topEmotion = judged.top;
  const emotions = strongestFirst(judged.emotions, topEmotion);
  const complaintCue = hasComplaintCue(message);
  return { emotions, topEmotion, shouting, crisis, crisisReason, valence: v, intent: classifyIntent(message, { emotions, crisis, complaintCue }) };
}
