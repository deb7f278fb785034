import { type CrisisJudgement, judgeCrisis } from "./crisis.js";
import { classifyIntent, type Intent } from "./intent.js";
import { COMPLAINT_CUES, cuePattern, EMOTION_CUES, NEGATORS } from "./lexicon.js";
import type { MessageMeaning } from "./meaning.js";
import { type Emotion, EMOTIONS } from "./mood.js";
import { valence } from "./valence.js";

/** What the offline detector reads from one user message. */
export interface Detection {
  /** Emotions present, in `EMOTIONS` order. */
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

interface Span {
  start: number;
  end: number;
  label: string;
}

const EMOTION_PATTERNS = EMOTIONS.map((e) => [e, cuePattern(EMOTION_CUES[e])] as const);
const COMPLAINT = cuePattern(COMPLAINT_CUES);

/** Lower-cases and folds typographic apostrophes so cues match "don’t" and "don't" alike. */
export function normalizeMessage(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc]/g, "'").toLowerCase();
}

function negated(text: string, at: number): boolean {
  const before = text.slice(0, at).split(/\s+/).filter(Boolean).slice(-3);
  // "can't stop crying", "couldn't help crying": the negator governs the verb, not the feeling.
  if (/^(?:stop|help)$/.test(before.at(-1) ?? "")) return false;
  return NEGATORS.test(before.join(" "));
}

/** Un-negated cue matches of `pattern`, labelled. */
function spans(text: string, pattern: RegExp, label: string, checkNegation = true): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(pattern)) {
    const start = m.index ?? 0;
    if (checkNegation && negated(text, start)) continue;
    out.push({ start, end: start + m[0].length, label });
  }
  return out;
}

/** Where cues overlap ("thanks for nothing" inside "thanks"), only the longest counts. */
function longestOnly(all: Span[]): Span[] {
  const sorted = [...all].sort((a, b) => b.end - b.start - (a.end - a.start));
  const kept: Span[] = [];
  for (const s of sorted) if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  return kept;
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
  const selfHarm = crisisReason !== null && crisisReason.crisisClass !== "medical" && crisisReason.crisisClass !== "violence";
  const found = new Set<Emotion>(
    longestOnly(EMOTION_PATTERNS.flatMap(([e, p]) => spans(text, p, e))).map((s) => s.label as Emotion),
  );
  if (selfHarm) found.add("sadness");
  if (shouting && (found.has("frustration") || v <= (options.shoutedAngerValence ?? -0.2))) {
    found.delete("frustration");
    found.add("anger");
  }
  // VADER rates "not sad" positive; a negated message is not joy just because it is not sad.
  if (found.size === 0 && v >= (options.joyValence ?? 0.6) && !NEGATORS.test(text)) found.add("joy");
  const emotions = EMOTIONS.filter((e) => found.has(e));
  const complaintCue = spans(text, COMPLAINT, "complaint").length > 0;
  const topEmotion = emotions[0] ?? null;
  return { emotions, topEmotion, shouting, crisis, crisisReason, valence: v, intent: classifyIntent(message, { emotions, crisis, complaintCue }) };
}
