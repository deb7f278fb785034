import { type Emotion, moodDelta } from "./mood.js";
import type { RelationRecord } from "./records.js";
import { clamp01, settle, TABLE_14 } from "./state.js";

/** What an interaction felt like, as far as the dynamics care. */
export interface InteractionSignals {
  emotions: readonly Emotion[];
  shouting: boolean;
  crisis: boolean;
}

/** Policy events that `RecordEvent` applies. */
export type RelationalEvent = "broken_promise" | "promise_kept" | "apology_accepted" | "complaint";

/** Trust gained when the agent keeps an explicit promise (agentmem's addition to Table 14). */
export const PROMISE_KEPT_GAIN = 0.02;
/** Grudge removed when the user accepts an apology (agentmem's addition). */
export const APOLOGY_RELIEF = 0.1;
/** Grudge added by a complaint made through another channel (agentmem's addition). */
export const COMPLAINT_GRUDGE = 0.1;

/**
 * Grudge added by one interaction: the strongest negative signal only (they do not stack, so a
 * furious shouted message adds exactly 0.15): crisis 0.20, anger with shouting 0.15, anger 0.10,
 * frustration 0.05, else 0.
 */
export function grudgeIncrement(s: InteractionSignals): number {
  const g = TABLE_14.grudge;
  if (s.crisis) return g.crisis;
  const anger = s.emotions.includes("anger");
  if (anger && s.shouting) return g.angerShouting;
  if (anger) return g.anger;
  if (s.emotions.includes("frustration")) return g.frustration;
  return 0;
}

/**
 * One interaction at `at`: decay up to `at`, then trust +0.01 (ceiling 0.95), familiarity +0.005,
 * sentiment + 0.7 × mood_delta, grudge + the strongest negative signal; all clamped to [0,1].
 * Counts the interaction and marks the user seen.
 */
export function applyInteraction(row: RelationRecord, signals: InteractionSignals, at: number): RelationRecord {
  const s = settle(row, at);
  return {
    ...s,
    trust: clamp01(Math.max(s.trust, Math.min(TABLE_14.trustCeiling, s.trust + TABLE_14.trustPerInteraction))),
    familiarity: clamp01(s.familiarity + TABLE_14.familiarityPerInteraction),
    sentiment: clamp01(s.sentiment + TABLE_14.sentimentGain * moodDelta(signals.emotions, signals.crisis)),
    grudge: clamp01(s.grudge + grudgeIncrement(signals)),
    updatedAt: Math.max(s.updatedAt ?? at, at),
    interactionCount: s.interactionCount + 1,
    knownSince: s.knownSince ?? at,
    lastSeen: Math.max(s.lastSeen ?? at, at),
  };
}

/** Trust lost to a broken promise at this prior trust: 0.10 from 0.7, 0.05 from 0.4, else 0.02. */
export function brokenPromiseLoss(priorTrust: number): number {
  return TABLE_14.brokenPromise.find((tier) => priorTrust >= tier.atLeast)?.loss ?? 0;
}

/** A policy event at `at`: decay up to `at`, then the event's effect, clamped to [0,1]. */
export function applyEvent(row: RelationRecord, event: RelationalEvent, at: number): RelationRecord {
  const s = { ...settle(row, at) };
  s.updatedAt = Math.max(s.updatedAt ?? at, at);
  switch (event) {
    case "broken_promise":
      s.trust = clamp01(s.trust - brokenPromiseLoss(s.trust));
      break;
    case "promise_kept":
      s.trust = clamp01(Math.max(s.trust, Math.min(TABLE_14.trustCeiling, s.trust + PROMISE_KEPT_GAIN)));
      break;
    case "apology_accepted":
      s.grudge = clamp01(s.grudge - APOLOGY_RELIEF);
      break;
    case "complaint":
      s.grudge = clamp01(s.grudge + COMPLAINT_GRUDGE);
      break;
  }
  return s;
}
