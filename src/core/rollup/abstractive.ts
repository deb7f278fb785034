import type { ChatMessage } from "../chat-message.js";
import type { MemoryRecord } from "../records.js";

/** Longest abstractive summary accepted from a model; anything longer falls back to the merge. */
export const MAX_ABSTRACT_CHARS = 16_384;

const SYSTEM = [
  "You consolidate an AI agent's long-term memories about one user or task into a single summary memory.",
  "Keep every distinct fact: names, numbers, places, preferences and dates. Drop only repetition.",
  "Write plain sentences in the third person. No preamble, no headings, no markdown.",
].join(" ");

/** The chat messages asking for an abstractive summary of `sources` (oldest first, dated). */
export function rollupMessages(sources: readonly MemoryRecord[]): ChatMessage[] {
  const lines = sources.map((m) => `- (${new Date(m.validFrom).toISOString().slice(0, 10)}) ${m.text}`);
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: `Memories, oldest first, with the day each was observed:\n${lines.join("\n")}\n\nSummary:` },
  ];
}

/** The model's summary, trimmed, or undefined when it is unusable (empty or too long). */
export function acceptAbstract(content: string): string | undefined {
  const text = content.trim();
  return text === "" || text.length > MAX_ABSTRACT_CHARS ? undefined : text;
}
