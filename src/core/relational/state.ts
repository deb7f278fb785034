import type { RelationRecord, RelationalScalars } from "./records.js";

const HOUR_MS = 3_600_000;

/**
 * Humane's Table 14, the one source of every relational constant. Starting values come from the
 * product spec (0.5 / 0.5 / 0 / 0).
 */
export const TABLE_14 = {
  start: { trust: 0.5, sentiment: 0.5, grudge: 0, familiarity: 0 } satisfies RelationalScalars,
  trustPerInteraction: 0.01,
  trustCeiling: 0.95,
  /** Broken-promise trust loss by prior trust tier, highest tier first. */
  brokenPromise: [
    { atLeast: 0.7, loss: 0.1 },
    { atLeast: 0.4, loss: 0.05 },
    { atLeast: 0, loss: 0.02 },
  ],
  /** Each interaction moves sentiment by `sentimentGain × mood_delta`. */
  sentimentGain: 0.7,
  sentimentBaseline: 0.5,
  sentimentHalfLifeMs: 6 * HOUR_MS,
  /** Grudge added by the strongest negative signal of an interaction. */
  grudge: { frustration: 0.05, anger: 0.1, angerShouting: 0.15, crisis: 0.2 },
  grudgeHalfLifeMs: 12 * HOUR_MS,
  familiarityPerInteraction: 0.005,
  /** Tone thresholds on grudge. */
  tone: { cautious: 0.4, cautiousDefensive: 0.7 },
} as const;

/** The tone override a grudge asks for. */
export type Tone = "" | "cautious" | "cautious_defensive";

// Scalars are rounded to 1e-9 so that sums of steps such as 0.5 + 10 × 0.01 read as 0.6, and tier
// boundaries (trust exactly 0.7) behave as written, without changing any value that matters.
const round = (x: number) => Math.round(x * 1e9) / 1e9;

/** Clamps to [0,1] (and rounds away float noise). */
export function clamp01(x: number): number {
  return round(Math.min(1, Math.max(0, x)));
}

/** A fresh relation row for an end-user who has not been seen yet. */
export function newRelation(user: string): RelationRecord {
  return { id: user, user, revision: 0, ...TABLE_14.start, updatedAt: null, interactionCount: 0, knownSince: null, lastSeen: null };
}

/** `2^(-elapsed / halfLife)`: the share of a deviation left after `elapsedMs`. */
export function halfLifeFactor(elapsedMs: number, halfLifeMs: number): number {
  return Math.pow(2, -Math.max(0, elapsedMs) / halfLifeMs);
}

/**
 * Lazy decay: the row as it stands at `at`. Sentiment relaxes toward 0.5 (6 h half-life), grudge
 * toward 0 (12 h half-life); trust and familiarity never decay. Times before `updatedAt` decay by
 * nothing, so the row never runs backwards.
 */
export function settle(row: RelationRecord, at: number): RelationRecord {
  if (row.updatedAt === null || at <= row.updatedAt) return row;
  const elapsed = at - row.updatedAt;
  const base = TABLE_14.sentimentBaseline;
  return {
    ...row,
    sentiment: clamp01(base + (row.sentiment - base) * halfLifeFactor(elapsed, TABLE_14.sentimentHalfLifeMs)),
    grudge: clamp01(row.grudge * halfLifeFactor(elapsed, TABLE_14.grudgeHalfLifeMs)),
    updatedAt: at,
  };
}

/** `cautious` from grudge 0.4, `cautious_defensive` from 0.7, else "". */
export function toneFor(grudge: number): Tone {
  if (grudge >= TABLE_14.tone.cautiousDefensive) return "cautious_defensive";
  if (grudge >= TABLE_14.tone.cautious) return "cautious";
  return "";
}

/** The ContextBuilder's relation_bias: trust × familiarity. */
export function relationBias(s: RelationalScalars): number {
  return round(s.trust * s.familiarity);
}

/** Just the four scalars of a row. */
export function scalarsOf(row: RelationalScalars): RelationalScalars {
  return { trust: row.trust, sentiment: row.sentiment, grudge: row.grudge, familiarity: row.familiarity };
}
