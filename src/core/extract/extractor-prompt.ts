import type { ChatMessage } from "../chat-message.js";
import type { FactTypeName } from "../records.js";
import { formatIsoDay } from "./dates.js";

/** Extraction strategies for `infer=true`: which kinds of facts to keep. */
export type Strategy = "facts" | "preferences" | "events";

/** Whether a fact of this type is wanted: "facts" (or none) keeps all; "preferences" and "events" keep their type. */
export function keepForStrategies(factType: FactTypeName, strategies: readonly Strategy[]): boolean {
  if (strategies.length === 0 || strategies.includes("facts")) return true;
  return (strategies.includes("preferences") && factType === "preference") || (strategies.includes("events") && factType === "event");
}

/** What the extractor sees. */
export interface ExtractorContext {
  /** When the new messages happened (epoch ms). */
  observedAt: number;
  /** The ~120-word profile so far ("" when none). */
  profile: string;
  /** The last turns before the new messages, oldest first. */
  recentTurns: readonly { role: string; name: string; content: string; observedAt: number }[];
  /** The most similar stored open facts, shown with their real ids. */
  storedFacts: readonly { id: string; text: string; validFrom: number; eventDate: number | null; vector?: Float32Array }[];
  /** The new messages with their (episode) ids. */
  messages: readonly { id: string; role: string; name: string; content: string }[];
  strategies: readonly Strategy[];
}

const SYSTEM = `You are the memory extractor of an assistant. From the NEW MESSAGES, write the facts worth remembering about the people in the conversation.

Answer with one JSON object and nothing else:
{"memory": [{"text": string, "category": string, "importance": integer 1-10, "event_date": string or null, "entities": [string], "sources": [string], "supersedes": [string]}]}

Rules:
- "text" stands alone: name the person (never "I", "me" or "the user" when a name is known), the places, and the time in words (e.g. "in March 2026"). One fact per item, in the third person.
- "category": "semantic" for lasting facts about someone, "preference" for likes, dislikes and wishes, "event" for something that happened or will happen at a time.
- "importance": 9-10 for life events (moving, a new job, marriage, birth, death, diagnosis), 7-8 for lasting facts (home, work, family, health), 4-6 for preferences and plans, 1-3 for small talk.
- "event_date": when it happened or starts in the world, "YYYY-MM-DD", or "YYYY-MM" when only the month is known, or null. Resolve relative dates ("yesterday", "last week") against the observation date.
- "entities": names of people, places and organisations in the fact.
- "sources": ids of the NEW MESSAGES the fact comes from, exactly as shown.
- "supersedes": ids of STORED FACTS that this fact makes outdated (a move replaces the old home, a new job the old job), exactly as shown. Never invent ids. Leave it empty when nothing is replaced.
- Do not repeat a stored fact that is still true. Skip greetings, questions and small talk. If nothing is worth remembering, answer {"memory": []}.`;

const STRATEGY_NOTES: Record<Strategy, string> = {
  facts: "lasting facts about the people",
  preferences: "preferences: likes, dislikes, wishes and how they want things done",
  events: "events: things that happened or will happen at a time",
};

function speakerOf(m: { role: string; name: string }): string {
  return m.name !== "" ? `${m.name} (${m.role})` : m.role;
}

/** The single extractor request: system rules, then the date, speakers, profile, last turns, stored facts and new messages. */
export function extractorMessages(ctx: ExtractorContext): ChatMessage[] {
  const speakers = [...new Set(ctx.messages.map(speakerOf))].join(", ");
  const lines: string[] = [`OBSERVATION DATE: ${formatIsoDay(ctx.observedAt)}`, `SPEAKERS: ${speakers}`];
  lines.push(`PROFILE SO FAR: ${ctx.profile === "" ? "(none yet)" : ctx.profile}`);
  if (ctx.strategies.length > 0 && !ctx.strategies.includes("facts")) {
    lines.push(`EXTRACT ONLY: ${ctx.strategies.map((s) => STRATEGY_NOTES[s]).join("; ")}`);
  }
  lines.push("", "LAST TURNS:");
  if (ctx.recentTurns.length === 0) lines.push("(none)");
  for (const t of ctx.recentTurns) lines.push(`[${formatIsoDay(t.observedAt)}] ${speakerOf(t)}: ${t.content}`);
  lines.push("", "STORED FACTS (id: text):");
  if (ctx.storedFacts.length === 0) lines.push("(none)");
  for (const f of ctx.storedFacts) {
    const when = f.eventDate !== null ? `event ${formatIsoDay(f.eventDate)}` : `recorded ${formatIsoDay(f.validFrom)}`;
    lines.push(`${f.id}: ${f.text} (${when})`);
  }
  lines.push("", "NEW MESSAGES (id: speaker: text):");
  for (const m of ctx.messages) lines.push(`${m.id}: ${speakerOf(m)}: ${m.content}`);
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: lines.join("\n") },
  ];
}

/** The retry after an invalid answer: the same request, the bad answer, and what was wrong. */
export function retryMessages(first: readonly ChatMessage[], badAnswer: string, problem: string): ChatMessage[] {
  return [
    ...first,
    { role: "assistant", content: badAnswer.slice(0, 4_000) },
    { role: "user", content: `That answer was invalid: ${problem}. Answer again with only the JSON object {"memory": [...]} in the exact shape given.` },
  ];
}

/** The profile request: the old profile and the most important open facts → at most ~120 words. */
export function profileMessages(name: string, oldProfile: string, facts: readonly string[]): ChatMessage[] {
  const who = name === "" ? "the user" : name;
  return [
    {
      role: "system",
      content: `Write a profile of ${who} in at most 120 words from the facts given: who they are, where they live and work, the people in their life, lasting preferences. Plain prose, third person, no lists, no invented details. Answer with the profile only.`,
    },
    {
      role: "user",
      content: `OLD PROFILE: ${oldProfile === "" ? "(none)" : oldProfile}\n\nFACTS (most important first):\n${facts.map((f) => `- ${f}`).join("\n")}`,
    },
  ];
}
