import { z } from "zod";
import type { FactTypeName } from "../records.js";
import { parseEventDate } from "./dates.js";

/** A fact an extractor proposes, before dedup and storage. */
export interface ProposedFact {
  /** Text that stands alone (names the person, the place and the time). */
  text: string;
  /** Free category, e.g. "semantic", "preference", "location". */
  category: string;
  /** 1–10. */
  importance: number;
  /** Epoch ms at UTC midnight (a month-only date is the first of that month); null when unknown. */
  eventDate: number | null;
  entities: string[];
  /** Ids of the new messages it came from. */
  sources: string[];
  /** Ids of stored facts it makes outdated. */
  supersedes: string[];
  factType: FactTypeName;
}

/** One item of the extractor's answer, exactly the seed's shape. */
const answerItem = z.strictObject({
  text: z.string().trim().min(1).max(2_000),
  category: z.string().max(64),
  importance: z.number().min(1).max(10),
  event_date: z
    .string()
    .nullable()
    .refine((v) => !Number.isNaN(parseEventDate(v)), "event_date must be YYYY-MM-DD, YYYY-MM, YYYY or null"),
  entities: z.array(z.string().max(256)).max(50),
  sources: z.array(z.string().max(256)).max(100),
  supersedes: z.array(z.string().max(256)).max(50),
});

/** The extractor's whole answer: `{"memory": [...]}` and nothing else. */
export const extractorAnswerSchema = z.strictObject({ memory: z.array(answerItem).max(50) });

/** The outcome of reading an extractor answer. */
export type AnswerParse = { ok: true; facts: ProposedFact[] } | { ok: false; problem: string };

const PREFERENCE = /^(preference|preferences|like|likes|dislike|dislikes|taste|opinion|wish)$/;
const EVENT = /^(event|events|episodic|plan|plans|milestone|life_event)$/;

/** The stored fact type for an extractor category. */
export function factTypeOfCategory(category: string): FactTypeName {
  const c = category.trim().toLowerCase();
  if (PREFERENCE.test(c)) return "preference";
  if (EVENT.test(c)) return "event";
  return "semantic";
}

/**
 * Reads the extractor's message content. Anything but a JSON object matching the schema is an
 * invalid answer; the problem names the JSON path, never the content.
 */
export function parseExtractorAnswer(content: string): AnswerParse {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { ok: false, problem: "the answer is not valid JSON" };
  }
  const parsed = extractorAnswerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return { ok: false, problem: `the answer does not match the schema at ${path}: ${issue.message}` };
  }
  return {
    ok: true,
    facts: parsed.data.memory.map((m) => ({
      text: m.text.trim(),
      category: m.category.trim().toLowerCase(),
      importance: Math.round(m.importance),
      eventDate: parseEventDate(m.event_date),
      entities: unique(m.entities.map((e) => e.trim()).filter((e) => e !== "")),
      sources: unique(m.sources),
      supersedes: unique(m.supersedes),
      factType: factTypeOfCategory(m.category),
    })),
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
