import * as chrono from "chrono-node";

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

/** How precisely a date was named. */
export type DateGranularity = "day" | "month" | "year";

/** A date named in a text, as the half-open UTC span [start, end) it covers. */
export interface NamedDate {
  /** The words that named it, e.g. "January 14, 2025" or "yesterday". */
  text: string;
  start: number;
  end: number;
  granularity: DateGranularity;
  /** False when the words were relative ("yesterday", "last week"): resolved against the reference. */
  absolute: boolean;
  /** False when the year was guessed (e.g. "June 18" with no year). */
  yearKnown: boolean;
}

/** Midnight UTC of the day holding `ms`. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Midnight UTC of the first day of the month holding `ms`. */
export function firstOfMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

const EVENT_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

/**
 * Parses an extractor's `event_date`: `YYYY-MM-DD`, `YYYY-MM` (the first of that month), `YYYY`
 * (January 1) or a full ISO timestamp (its UTC day). Empty or null → null; anything else → NaN.
 */
export function parseEventDate(value: string | null | undefined): number | null {
  if (value == null || value.trim() === "") return null;
  const text = value.trim();
  const m = EVENT_DATE.exec(text);
  if (m) {
    const year = Number(m[1]);
    const month = m[2] === undefined ? 1 : Number(m[2]);
    const day = m[3] === undefined ? 1 : Number(m[3]);
    if (month < 1 || month > 12 || day < 1 || day > 31) return Number.NaN;
    const ms = Date.UTC(year, month - 1, day);
    // Reject days that roll over into the next month (2025-02-30).
    return new Date(ms).getUTCDate() === day ? ms : Number.NaN;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? startOfUtcDay(ms) : Number.NaN;
  }
  return Number.NaN;
}

/** "January 14, 2025" / "March 02, 2026": the prompt block's date format (UTC, day zero-padded). */
export function formatLongDate(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, "0")}, ${d.getUTCFullYear()}`;
}

/** "March 1, 2026": a date for fact text (UTC). */
export function formatPlainDate(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "2025-01-14" (UTC). */
export function formatIsoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const WORDY_YEAR = /\b(?:in|during|since|of|by|from|until|before|after)\s+((?:19|20)\d{2})\b/gi;
const HAS_DIGIT_OR_MONTH = new RegExp(`\\d|\\b(?:${MONTHS.join("|")}|${MONTHS.map((m) => m.slice(0, 3)).join("|")})\\b`, "i");

// "now" is the observation itself; a bare span ("eleven days straight") is no date, but "last
// year", "next week", "this month" are.
const NOT_A_DATE = /^(?:(?:right|just)\s+)?now$|^(?!(?:last|next|this|past|coming|previous)\b)(?:\w+|\d+)\s+(?:days?|weeks?|months?|years?)$/i;
const UNITS = String.raw`(?:a|an|a\s+few|a\s+couple\s+of|several|\w+|\d+)\s+(?:days?|weeks?|months?|years?|decades?)`;
// A length of time is no date: "for six years", "for the past two years" (chrono reads them as a
// date that far ahead or back), and a span from an anchor the text does not date ("two years
// before that").
const SPAN = new RegExp(String.raw`^(?:for\s+(?:the\s+)?)?(?:(?:past|last)\s+)?${UNITS}$`, "i");
const ANCHORLESS = new RegExp(String.raw`^${UNITS}\s+(?:before|after|earlier|later)$`, "i");
const ENDS_WITH_FOR = /\bfor\s+(?:the\s+)?$/i;

/** Whether chrono's match `found` (at `index` in `text`) is a length of time rather than a date. */
function lengthOfTime(text: string, found: string, index: number): boolean {
  return ANCHORLESS.test(found) || (SPAN.test(found) && (/^for\b/i.test(found) || ENDS_WITH_FOR.test(text.slice(0, index))));
}

/**
 * Finds the dates a text names, resolved against `referenceMs` (UTC): chrono-node's English
 * parser (absolute and relative expressions) plus bare years after a preposition ("in 2023").
 */
export function findDates(text: string, referenceMs: number): NamedDate[] {
  const found: NamedDate[] = [];
  const results = chrono.parse(text, { instant: new Date(referenceMs), timezone: 0 }, { forwardDate: false });
  for (const r of results) {
    const said = r.text.trim();
    if (NOT_A_DATE.test(said) || lengthOfTime(text, said, r.index)) continue;
    const year = r.start.get("year");
    const month = r.start.get("month");
    const day = r.start.get("day");
    if (year === null || month === null || day === null) continue;
    const granularity: DateGranularity = r.start.isCertain("day") ? "day" : r.start.isCertain("month") ? "month" : "year";
    const start = granularity === "day" ? Date.UTC(year, month - 1, day) : granularity === "month" ? Date.UTC(year, month - 1, 1) : Date.UTC(year, 0, 1);
    let end = granularity === "day" ? start + DAY_MS : granularity === "month" ? Date.UTC(year, month, 1) : Date.UTC(year + 1, 0, 1);
    const e = r.end;
    const ey = e?.get("year");
    const em = e?.get("month");
    const ed = e?.get("day");
    if (e && ey != null && em != null && ed != null) end = Math.max(end, Date.UTC(ey, em - 1, ed) + DAY_MS);
    found.push({
      text: r.text,
      start,
      end,
      granularity,
      absolute: HAS_DIGIT_OR_MONTH.test(r.text),
      yearKnown: r.start.isCertain("year") || !HAS_DIGIT_OR_MONTH.test(r.text),
    });
  }
  for (const m of text.matchAll(WORDY_YEAR)) {
    const year = Number(m[1]);
    const start = Date.UTC(year, 0, 1);
    if (found.some((d) => d.start <= start && start < d.end)) continue;
    found.push({ text: m[0], start, end: Date.UTC(year + 1, 0, 1), granularity: "year", absolute: true, yearKnown: true });
  }
  return found;
}

/** True when `ms` falls inside any of the spans. */
export function onAnyDate(ms: number | null, dates: readonly NamedDate[]): boolean {
  return ms !== null && dates.some((d) => d.start <= ms && ms < d.end);
}
