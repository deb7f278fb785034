import { z } from "zod";
import type { ChatMessage } from "../chat-message.js";
import type { Detection } from "./detector.js";
import { classifyIntent } from "./intent.js";
import { EMOTIONS, strongestFirst } from "./mood.js";
import { CRISIS_CLASSES } from "./prototypes.js";

/** The chat model's judgement of one message, as its strict JSON answer holds it. */
export const modelJudgementSchema = z.strictObject({
  crisis: z.boolean(),
  crisis_class: z.enum(CRISIS_CLASSES).nullable(),
  emotions: z.array(z.enum(EMOTIONS)).max(EMOTIONS.length),
  top_emotion: z.enum(EMOTIONS).nullable(),
});

/** A validated model judgement. */
export type ModelJudgement = z.infer<typeof modelJudgementSchema>;

const INSTRUCTIONS = [
  "You judge one message a user sent to a care, coaching or support assistant. Answer with one JSON object and nothing else:",
  '{"crisis": boolean, "crisis_class": one of ' + CRISIS_CLASSES.map((c) => `"${c}"`).join(", ") + " or null,",
  ' "emotions": the emotions the writer feels, a subset of ' + EMOTIONS.map((e) => `"${e}"`).join(", ") + ',',
  ' "top_emotion": the strongest of them, or null when there is none}.',
  "crisis is true when the writer may be at risk now: suicidal thoughts, even passive or veiled (a wish not to wake up, feeling a burden,",
  "no way out, giving things away, saying goodbye, asking about methods), self-harm, a medical emergency described by its symptoms,",
  "violence or threats at home, or a threat to harm others. Idioms (\"this commute is murder\", \"I'm dying to see it\"), dark humour,",
  "fiction, news, routine medical questions and crises told as long over are not crises. Read sarcasm by meaning: \"oh great, cancelled",
  "again\" is frustration, not joy.",
].join("\n");

/** The chat request that asks for a judgement of `message` (strict JSON). */
export function modelJudgementPrompt(message: string): ChatMessage[] {
  return [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: message },
  ];
}

/** The validated judgement in a model answer, or null when it is not exactly the asked-for JSON. */
export function parseModelJudgement(content: string): ModelJudgement | null {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return null;
  }
  const parsed = modelJudgementSchema.safeParse(json);
  if (!parsed.success) return null;
  const j = parsed.data;
  // A crisis needs a class and a class needs a crisis; the top emotion must be one of the emotions.
  if (j.crisis !== (j.crisis_class !== null)) return null;
  if (j.top_emotion !== null && !j.emotions.includes(j.top_emotion)) return null;
  return j;
}

/**
 * Combines the offline detection with the model's judgement: crisis is the OR of both (a model
 * "no" never clears an offline "yes", and the offline reason is kept when both flag), the
 * emotions are the model's (it reads sarcasm and idioms better than cue sets), and the intent is
 * classified again from the combined signals.
 */
export function withModelJudgement(message: string, offline: Detection, model: ModelJudgement, complaintCue: boolean): Detection {
  const crisisReason = offline.crisisReason ?? (model.crisis && model.crisis_class ? { crisisClass: model.crisis_class, by: "model" as const } : null);
  const crisis = crisisReason !== null;
  const topEmotion = model.top_emotion;
  const emotions = strongestFirst(EMOTIONS.filter((e) => model.emotions.includes(e)), topEmotion);
  return { ...offline, emotions, topEmotion, crisis, crisisReason, intent: classifyIntent(message, { emotions, crisis, complaintCue }) };
}
