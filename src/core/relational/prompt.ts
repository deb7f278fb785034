import type { Intent } from "./intent.js";
import type { Emotion } from "./mood.js";
import type { RelationalScalars } from "./records.js";
import type { Tone } from "./state.js";

/** A memory stitched into the prompt. */
export interface PromptMemory {
  text: string;
  /** Epoch ms of the interaction. */
  at: number;
  similarity: number;
}

/** What the ContextBuilder knows about this turn. */
export interface PromptContext {
  state: RelationalScalars;
  relationBias: number;
  tone: Tone;
  emotions: readonly Emotion[];
  intent: Intent;
  crisis: boolean;
  shouting: boolean;
  interactionCount: number;
  memories: readonly PromptMemory[];
}

const TONE_GUIDANCE: Record<Exclude<Tone, "">, string> = {
  cautious:
    "Tone: cautious. The user has been upset with you recently. Acknowledge their frustration plainly, do not be defensive, promise only what you can do.",
  cautious_defensive:
    "Tone: cautious_defensive. The user has been angry with you for a while. Stay calm and brief, set clear boundaries, never argue, and offer a concrete next step or a human contact.",
};

const CRISIS_GUIDANCE =
  "Safety: this message may describe a crisis (self-harm or an emergency). Respond with care, take it seriously, encourage contacting local emergency services or a crisis line right away, and do not leave the user alone with it.";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const fixed = (x: number) => x.toFixed(2);

function familiarityLine(count: number, bias: number): string {
  if (count <= 1) return "You are meeting this user for the first time.";
  return `You have talked with this user ${count} times before (relation bias ${fixed(bias)}: the higher, the more you may rely on shared history).`;
}

/**
 * The system prompt: who the agent is talking to, how it stands with them (the four scalars,
 * relation_bias and the tone override), what this message carries (emotions, intent, crisis,
 * shouting) and the relevant memories, each dated.
 */
export function buildSystemPrompt(c: PromptContext): string {
  const s = c.state;
  const lines = [
    "You are a helpful assistant with long-term memory of this user. Use what you remember naturally; never invent memories.",
    familiarityLine(c.interactionCount, c.relationBias),
    `Relationship state: trust ${fixed(s.trust)}, sentiment ${fixed(s.sentiment)}, grudge ${fixed(s.grudge)}, familiarity ${fixed(s.familiarity)}.`,
  ];
  if (c.tone !== "") lines.push(TONE_GUIDANCE[c.tone]);
  const felt = c.emotions.length > 0 ? c.emotions.join(", ") : "none detected";
  lines.push(`This message: emotions ${felt}; intent ${c.intent}${c.shouting ? "; the user is shouting" : ""}.`);
  if (c.crisis) lines.push(CRISIS_GUIDANCE);
  if (c.memories.length > 0) {
    lines.push("Relevant memories from earlier conversations (most relevant first):");
    for (const m of c.memories) lines.push(`- (${day(m.at)}, similarity ${fixed(m.similarity)}) ${m.text.replace(/\s*\n\s*/g, " / ")}`);
  } else {
    lines.push("No earlier memories are relevant to this message.");
  }
  return lines.join("\n");
}
