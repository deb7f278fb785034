import { describe, expect, it } from "vitest";
import { createManualClock } from "../../ports/clock.js";
import { applyEvent, applyInteraction, brokenPromiseLoss, grudgeIncrement, type InteractionSignals } from "./dynamics.js";
import { MOOD_DELTA, moodDelta, strongestFirst } from "./mood.js";
import type { RelationRecord } from "./records.js";
import { newRelation, relationBias, settle, TABLE_14, toneFor } from "./state.js";

const HOUR = 3_600_000;
const neutral: InteractionSignals = { emotions: [], shouting: false, crisis: false };
const furious: InteractionSignals = { emotions: ["anger"], shouting: true, crisis: false };

function turns(row: RelationRecord, n: number, signals: InteractionSignals, clock: ReturnType<typeof createManualClock>, stepMs: number) {
  let r = row;
  for (let i = 0; i < n; i++) {
    r = applyInteraction(r, signals, clock.now().getTime());
    clock.advance(stepMs);
  }
  return r;
}

describe("Table 14 dynamics", () => {
  it("starts at 0.5 / 0.5 / 0 / 0 with nothing seen", () => {
    const r = newRelation("u");
    expect([r.trust, r.sentiment, r.grudge, r.familiarity]).toEqual([0.5, 0.5, 0, 0]);
    expect([r.interactionCount, r.knownSince, r.lastSeen, r.updatedAt]).toEqual([0, null, null, null]);
  });

  it("10 neutral turns: trust 0.60, familiarity 0.05, sentiment and grudge untouched", () => {
    const clock = createManualClock(new Date("2026-01-01T09:00:00Z"));
    const r = turns(newRelation("u"), 10, neutral, clock, 60_000);
    expect(r.trust).toBe(0.6);
    expect(r.familiarity).toBe(0.05);
    expect(r.sentiment).toBe(0.5);
    expect(r.grudge).toBe(0);
    expect(r.interactionCount).toBe(10);
    expect(r.knownSince).toBe(Date.parse("2026-01-01T09:00:00Z"));
    expect(r.lastSeen).toBe(Date.parse("2026-01-01T09:09:00Z"));
    expect(relationBias(r)).toBe(0.03);
  });

  it("trust stops at the 0.95 ceiling and familiarity at 1", () => {
    const clock = createManualClock(new Date("2026-01-01T00:00:00Z"));
    const r = turns(newRelation("u"), 250, neutral, clock, 1000);
    expect(r.trust).toBe(0.95);
    expect(r.familiarity).toBe(1);
  });

  it("grudge: +0.05 frustration, +0.10 anger, +0.15 anger with shouting, +0.20 crisis; strongest signal only", () => {
    expect(grudgeIncrement({ emotions: ["frustration"], shouting: false, crisis: false })).toBe(0.05);
    expect(grudgeIncrement({ emotions: ["frustration"], shouting: true, crisis: false })).toBe(0.05);
    expect(grudgeIncrement({ emotions: ["anger"], shouting: false, crisis: false })).toBe(0.1);
    expect(grudgeIncrement({ emotions: ["anger", "frustration"], shouting: true, crisis: false })).toBe(0.15);
    expect(grudgeIncrement({ emotions: ["sadness"], shouting: false, crisis: true })).toBe(0.2);
    expect(grudgeIncrement({ emotions: ["joy"], shouting: true, crisis: false })).toBe(0);
  });

  it("three furious shouted turns a minute apart: grudge ≈ 0.45 and tone cautious; 12 h later halved and cleared", () => {
    const clock = createManualClock(new Date("2026-01-01T09:00:00Z"));
    let r = applyInteraction(newRelation("u"), furious, clock.now().getTime());
    clock.advance(60_000);
    r = applyInteraction(r, furious, clock.now().getTime());
    clock.advance(60_000);
    r = applyInteraction(r, furious, clock.now().getTime());
    // Exact: the first two increments decayed for 2 min and 1 min with a 12 h half-life.
    const expected = 0.15 * (Math.pow(2, -2 / 720) + Math.pow(2, -1 / 720) + 1);
    expect(r.grudge).toBeCloseTo(expected, 8);
    expect(r.grudge).toBeGreaterThan(0.449);
    expect(r.grudge).toBeLessThan(0.45);
    expect(toneFor(r.grudge)).toBe("cautious");
    clock.advance(12 * HOUR);
    const later = settle(r, clock.now().getTime());
    expect(later.grudge).toBeCloseTo(r.grudge / 2, 9);
    expect(toneFor(later.grudge)).toBe("");
  });

  it("decays to the second: sentiment halves its distance to 0.5 in 6 h, grudge halves in 12 h", () => {
    const clock = createManualClock(new Date("2026-03-01T00:00:00Z"));
    const start: RelationRecord = { ...newRelation("u"), sentiment: 0.9, grudge: 0.8, trust: 0.7, familiarity: 0.2, updatedAt: clock.now().getTime() };
    clock.advance(6 * HOUR);
    const six = settle(start, clock.now().getTime());
    expect(six.sentiment).toBe(0.7);
    expect(six.grudge).toBeCloseTo(0.8 * Math.SQRT1_2, 9);
    expect([six.trust, six.familiarity]).toEqual([0.7, 0.2]);
    clock.advance(6 * HOUR);
    const twelve = settle(start, clock.now().getTime());
    expect(twelve.sentiment).toBe(0.6);
    expect(twelve.grudge).toBe(0.4);
    // One second short of 12 h is not yet half.
    const almost = settle(start, clock.now().getTime() - 1000);
    expect(almost.grudge).toBeGreaterThan(0.4);
    expect(almost.grudge).toBeCloseTo(0.8 * Math.pow(2, -(12 * 3600 - 1) / (12 * 3600)), 9);
    // Decay is lazy and path-independent: settling in two steps equals one step.
    expect(settle(six, clock.now().getTime()).grudge).toBeCloseTo(twelve.grudge, 9);
    // A time before updated_at changes nothing.
    expect(settle(twelve, start.updatedAt!)).toEqual(twelve);
  });

  it("sentiment += 0.7 × mood_delta, with every table entry within ±0.2", () => {
    for (const d of Object.values(MOOD_DELTA)) expect(Math.abs(d)).toBeLessThanOrEqual(0.2);
    const at = Date.parse("2026-01-01T00:00:00Z");
    const grateful = applyInteraction(newRelation("u"), { emotions: ["gratitude"], shouting: false, crisis: false }, at);
    expect(grateful.sentiment).toBe(0.64);
    const angry = applyInteraction(newRelation("u"), { emotions: ["anger"], shouting: false, crisis: false }, at);
    expect(angry.sentiment).toBe(0.36);
    expect(moodDelta(["joy", "anxiety"], false)).toBe(0.05);
    expect(moodDelta(["anger", "sadness"], false)).toBe(-0.2);
    expect(moodDelta(["joy"], true)).toBe(-0.2);
    expect(moodDelta([], false)).toBe(0);
  });

  it("clamps every scalar to [0,1]", () => {
    const at = Date.parse("2026-01-01T00:00:00Z");
    let r: RelationRecord = { ...newRelation("u"), grudge: 0.95, sentiment: 0.02, updatedAt: at };
    r = applyInteraction(r, { emotions: ["anger", "sadness"], shouting: false, crisis: true }, at);
    expect(r.grudge).toBe(1);
    expect(r.sentiment).toBe(0);
    r = applyEvent({ ...r, trust: 0.01 }, "broken_promise", at);
    expect(r.trust).toBe(0);
  });

  it("broken promise costs 0.10 / 0.05 / 0.02 by prior trust tier, boundaries included", () => {
    const at = Date.parse("2026-01-01T00:00:00Z");
    const cost = (trust: number) => trust - applyEvent({ ...newRelation("u"), trust }, "broken_promise", at).trust;
    expect(cost(0.95)).toBeCloseTo(0.1, 12);
    expect(cost(0.7)).toBeCloseTo(0.1, 12);
    expect(cost(0.69)).toBeCloseTo(0.05, 12);
    expect(cost(0.4)).toBeCloseTo(0.05, 12);
    expect(cost(0.39)).toBeCloseTo(0.02, 12);
    expect(brokenPromiseLoss(0)).toBe(0.02);
    expect(applyEvent({ ...newRelation("u"), trust: 0.6 }, "broken_promise", at).trust).toBe(0.55);
  });

  it("other events: promise kept +0.02 (ceiling), apology −0.10 grudge, complaint +0.10 grudge", () => {
    const at = Date.parse("2026-01-01T00:00:00Z");
    expect(applyEvent(newRelation("u"), "promise_kept", at).trust).toBe(0.52);
    expect(applyEvent({ ...newRelation("u"), trust: 0.94 }, "promise_kept", at).trust).toBe(0.95);
    expect(applyEvent({ ...newRelation("u"), grudge: 0.3 }, "apology_accepted", at).grudge).toBe(0.2);
    expect(applyEvent({ ...newRelation("u"), grudge: 0.05 }, "apology_accepted", at).grudge).toBe(0);
    expect(applyEvent(newRelation("u"), "complaint", at).grudge).toBe(0.1);
  });

  it("tone: cautious from 0.4, cautious_defensive from 0.7", () => {
    expect(toneFor(0.399)).toBe("");
    expect(toneFor(TABLE_14.tone.cautious)).toBe("cautious");
    expect(toneFor(0.69)).toBe("cautious");
    expect(toneFor(0.7)).toBe("cautious_defensive");
  });
});

describe("emotion order", () => {
  it("puts the strongest emotion first and keeps the rest in the usual order", () => {
    expect(strongestFirst(["anxiety", "sadness", "gratitude"], "gratitude")).toEqual(["gratitude", "anxiety", "sadness"]);
    expect(strongestFirst(new Set(["joy", "anxiety"] as const), null)).toEqual(["anxiety", "joy"]);
    // A top emotion that is not among those present is not added.
    expect(strongestFirst(["sadness"], "anger")).toEqual(["sadness"]);
  });
});
