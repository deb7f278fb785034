import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { NOT_CURRENT_FACTOR, notCurrentFor, REPLACED_FACTOR, scoreCandidates, topWithReservedPlaces } from "./fact-search.js";
import { factLine, fillBlock, messageLine } from "./block-lines.js";

describe("search scoring", () => {
  it("is 0.8 meaning + 0.1 words + 0.1 names, each scaled to 0..1", () => {
    const [a, b] = scoreCandidates([
      { item: "a", similarity: 0.7, bm25: 2, names: 1, onNamedDate: false },
      { item: "b", similarity: 0.75, bm25: 10, names: 0, onNamedDate: false },
    ]);
    expect(a.item).toBe("b");
    expect(a.score).toBeCloseTo(0.8 * 0.75 + 0.1 * 1 + 0);
    expect(b.score).toBeCloseTo(0.8 * 0.7 + 0.1 * 0.2 + 0.1 * 1); // the seed's 0.68
  });

  it("ranks a row filed as not current below a current fact of about the same relevance", () => {
    const [first, second] = scoreCandidates([
      { item: "plan", similarity: 0.7, bm25: 0, names: 0, onNamedDate: false, current: false },
      { item: "fact", similarity: 0.62, bm25: 0, names: 0, onNamedDate: false, current: true },
    ]);
    expect(first.item).toBe("fact");
    expect(second.score).toBeCloseTo(0.8 * 0.7 * NOT_CURRENT_FACTOR);
  });

  it("ranks a row that replaced an older fact above a current row of about the same relevance", () => {
    const [first, second] = scoreCandidates([
      { item: "same turn, no value", similarity: 0.66, bm25: 0, names: 0, onNamedDate: false },
      { item: "the new value", similarity: 0.62, bm25: 0, names: 0, onNamedDate: false, replaced: true },
    ]);
    expect(first.item).toBe("the new value");
    expect(first.score).toBeCloseTo(0.8 * 0.62 * REPLACED_FACTOR);
    expect(second.score).toBeCloseTo(0.8 * 0.66);
  });

  it("files plans, wishes, the past, stays and other people's news as not current, unless the question asks of them", () => {
    const now = notCurrentFor("Where does Maya live now?");
    expect(["plan", "hypothetical", "denied", "past", "temporary", "about_others"].map(now)).toEqual([true, true, true, true, true, true]);
    expect(["location", "work", "event", "personal"].map(now)).toEqual([false, false, false, false]);
    expect(notCurrentFor("What is Maya planning?")("plan")).toBe(false);
    expect(notCurrentFor("Where did Maya live before?")("past")).toBe(false);
    expect(notCurrentFor("What does Lucy's husband do?")("about_others")).toBe(false);
    expect(notCurrentFor("What does Lucy's husband do?")("plan")).toBe(true);
  });

  it("reserves places in the top k for rows on a named date", () => {
    const scored = scoreCandidates(
      Array.from({ length: 10 }, (_, i) => ({ item: i, similarity: 1 - i / 10, bm25: 0, names: 0, onNamedDate: i >= 8 })),
    );
    expect(topWithReservedPlaces(scored, 4).map((c) => c.item)).toEqual([0, 1, 8, 9]);
    expect(topWithReservedPlaces(scored, 3).map((c) => c.item)).toEqual([0, 8, 9]);
  });
});

describe("prompt block", () => {
  it("uses the spec's line formats", () => {
    expect(factLine(Date.UTC(2025, 0, 14), "Maya lives in London.", Date.UTC(2026, 2, 2))).toBe("(January 14, 2025) Maya lives in London. [outdated as of March 02, 2026]");
    expect(messageLine(Date.UTC(2026, 2, 2), "Maya", "Big news:\nI moved")).toBe("(March 02, 2026) [message] Maya: Big news: I moved");
    expect(messageLine(Date.UTC(2026, 2, 2), "Caroline", "Caroline: hi")).toBe("(March 02, 2026) [message] Caroline: hi");
  });

  it("puts the profile first, keeps order, falls back, and never passes the budget", () => {
    const units = [
      { row: 1, lines: ["(January 14, 2025) old fact [outdated as of March 02, 2026]", "(March 02, 2026) new fact"], fallback: ["(March 02, 2026) new fact"] },
      { row: 2, lines: ["(March 02, 2026) [message] Maya: " + "word ".repeat(200)] },
      { row: 3, lines: ["(March 03, 2026) short fact"] },
    ];
    const full = fillBlock("Maya is a nurse.", units, 1000, countTokens);
    expect(full.block.split("\n")[0]).toBe("Profile so far: Maya is a nurse.");
    expect(full.included.map((u) => u.row)).toEqual([1, 2, 3]);
    for (const budget of [0, 5, 20, 40, 100]) {
      const cut = fillBlock("Maya is a nurse.", units, budget, countTokens);
      expect(countTokens(cut.block)).toBe(cut.tokens);
      expect(cut.tokens).toBeLessThanOrEqual(budget);
    }
    // Room for unit 1 and unit 3 but not the long message: the message is skipped, not cut.
    const room = countTokens([...units[0].lines, units[2].lines[0]].join("\n"));
    const small = fillBlock("", units, room, countTokens);
    expect(small.included.map((u) => [u.row, u.lines.length])).toEqual([[1, 2], [3, 1]]);
    // Room for the new fact alone: its history is dropped (the fallback).
    const tiny = fillBlock("", units, countTokens(units[0].lines[1]), countTokens);
    expect(tiny.included.map((u) => [u.row, u.lines.length])).toEqual([[1, 1]]);
  });
});
