import { formatLongDate } from "./extract/dates.js";

/** Longest raw message kept on one block line, in characters. */
export const MESSAGE_LINE_CHARS = 600;

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** `Profile so far: …` — the block's first line. */
export function profileLine(profile: string): string {
  return `Profile so far: ${oneLine(profile)}`;
}

/** `(January 14, 2025) <text>`, plus ` [outdated as of March 02, 2026]` for a closed row. */
export function factLine(recordedAt: number, text: string, closedAt: number | null): string {
  const line = `(${formatLongDate(recordedAt)}) ${oneLine(text)}`;
  return closedAt === null ? line : `${line} [outdated as of ${formatLongDate(closedAt)}]`;
}

/** `(March 02, 2026) [message] Maya: <content>` — a raw transcript turn, cut to 600 characters. */
export function messageLine(observedAt: number, speaker: string, content: string): string {
  const text = oneLine(content);
  const cut = text.length > MESSAGE_LINE_CHARS ? `${text.slice(0, MESSAGE_LINE_CHARS - 1)}…` : text;
  // Imported transcripts often carry the speaker in the text already ("Caroline: …").
  const said = cut.startsWith(`${speaker}:`) ? cut : `${speaker}: ${cut}`;
  return `(${formatLongDate(observedAt)}) [message] ${said}`;
}

/** One candidate for the block: its lines in order, and a shorter fallback when they do not all fit. */
export interface BlockUnit<R> {
  row: R;
  lines: string[];
  /** Lines to try when `lines` do not fit (e.g. the fact without its history). */
  fallback?: string[];
}

/** The filled block. */
export interface FilledBlock<R> {
  block: string;
  /** The units that went in, in block order, with the lines each contributed. */
  included: { row: R; lines: string[] }[];
  profileIncluded: boolean;
  tokens: number;
}

/**
 * Fills a block within `budget` tokens: the profile line first (when it fits), then units in the
 * given (relevance) order; a unit that does not fit is tried with its fallback, else skipped.
 * Every count is taken over the whole block text, so the result never exceeds the budget.
 */
export function fillBlock<R>(
  profile: string,
  units: readonly BlockUnit<R>[],
  budget: number,
  countTokens: (text: string) => number,
): FilledBlock<R> {
  const lines: string[] = [];
  // Counted over the joined text each time: token counts of parts do not add up exactly.
  const tryAdd = (candidate: readonly string[]): boolean => {
    const before = lines.length;
    lines.push(...candidate);
    if (countTokens(lines.join("\n")) <= budget) return true;
    lines.length = before;
    return false;
  };
  const profileIncluded = profile.trim() !== "" && tryAdd([profileLine(profile)]);
  const included: { row: R; lines: string[] }[] = [];
  for (const unit of units) {
    if (tryAdd(unit.lines)) included.push({ row: unit.row, lines: unit.lines });
    else if (unit.fallback && tryAdd(unit.fallback)) included.push({ row: unit.row, lines: unit.fallback });
  }
  const block = lines.join("\n");
  const tokens = countTokens(block);
  return { block, included, profileIncluded, tokens };
}
