import { invalidArgument, tooLarge } from "./errors.js";

/** Request size limits, checked before anything touches storage. */
export const LIMITS = {
  contentChars: 32_768,
  queryChars: 4_096,
  nameChars: 256,
  tags: 32,
  tagKeyChars: 64,
  tagValueChars: 256,
  batchItems: 1_000,
  maxK: 100,
  pageSize: 1_000,
  budgetTokens: 32_000,
  imageBytes: 5 * 2 ** 20,
  messages: 100,
  constraints: 32,
} as const;

/** Rejects a string longer than `max` characters. */
export function checkLength(field: string, value: string, max: number): void {
  if (value.length > max) throw tooLarge(field, `${field} is ${value.length} characters; the limit is ${max}`, max);
}

/** Resolves an optional positive count: 0 → default; negative → INVALID_ARGUMENT; > max → INVALID_ARGUMENT / LIMIT_EXCEEDED. */
export function checkCount(field: string, value: number, fallback: number, max: number): number {
  if (!Number.isInteger(value) || value < 0) throw invalidArgument(field, "INVALID_COUNT", `${field} must be a non-negative integer`);
  if (value > max) throw tooLarge(field, `${field} is ${value}; the limit is ${max}`, max);
  return value === 0 ? fallback : value;
}

/** Checks a tag map's size and characters. */
export function checkTags(field: string, tags: Record<string, string>): void {
  const entries = Object.entries(tags);
  if (entries.length > LIMITS.tags) throw tooLarge(field, `at most ${LIMITS.tags} tags`, LIMITS.tags);
  for (const [k, v] of entries) {
    if (k === "" || k.length > LIMITS.tagKeyChars || k.includes("=")) {
      throw invalidArgument(field, "INVALID_TAG", `tag keys must be 1–${LIMITS.tagKeyChars} characters without '='`);
    }
    checkLength(`${field}.${k}`, v, LIMITS.tagValueChars);
  }
}
