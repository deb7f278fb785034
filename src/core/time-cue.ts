import { findDates, type NamedDate, onAnyDate } from "./extract/dates.js";
import type { MemoryRecord } from "./records.js";

// Parsing dates costs about a millisecond; a query without a digit or a month name names none.
const MAY_NAME_A_DATE = /\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b/i;

/**
 * The dates a query names outright, with their year ("on October 13, 2023", "in May 2023",
 * "in 2022"). Relative words ("last week") and dates without a year are left out: against which
 * "now" they count is a guess, and a wrong guess would push the right memories down.
 */
export function queryDates(query: string, nowMs: number): NamedDate[] {
  if (!MAY_NAME_A_DATE.test(query)) return [];
  return findDates(query, nowMs).filter((d) => d.absolute && d.yearKnown);
}

/** Time channel, 0 or 1: the memory's event date, else its observation time, lies on a named date. */
export function timeScore(dates: readonly NamedDate[], memory: Pick<MemoryRecord, "eventDate" | "validFrom">): number {
  if (dates.length === 0) return 0;
  return onAnyDate(memory.eventDate ?? memory.validFrom, dates) ? 1 : 0;
}
