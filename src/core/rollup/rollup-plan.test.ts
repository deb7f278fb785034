import { describe, expect, it } from "vitest";
import type { MemoryRecord } from "../records.js";
import { commonScope, commonTags, isRollupCandidate, mergeSummary, rollupCutoff, selectSources } from "./rollup-plan.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

function memory(id: string, text: string, ageDays: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id, namespace: "", agent: "", session: "s", user: "u", text, factType: "semantic", category: "", importance: 5, entities: [],
    tags: {}, pinned: false, contentHash: "", vector: new Float32Array(0), sourceIds: [], parentId: "", createdAt: NOW,
    validFrom: NOW - ageDays * DAY, validTo: null, supersededBy: "", eventDate: null, lastAccessedAt: NOW, accessCount: 0,
    channel: "", emotions: [], intent: "", embedModel: "", role: "user", name: "", traceNumber: 0, ...extra,
  };
}

describe("rollup planning", () => {
  const cutoff = rollupCutoff(NOW, 30);

  it("takes only open, unpinned, non-summary memories observed before the cutoff", () => {
    expect(isRollupCandidate(memory("a", "x", 31), cutoff)).toBe(true);
    expect(isRollupCandidate(memory("a", "x", 30), cutoff)).toBe(true);
    expect(isRollupCandidate(memory("a", "x", 29), cutoff)).toBe(false);
    expect(isRollupCandidate(memory("a", "x", 60, { pinned: true }), cutoff)).toBe(false);
    expect(isRollupCandidate(memory("a", "x", 60, { factType: "summary" }), cutoff)).toBe(false);
    expect(isRollupCandidate(memory("a", "x", 60, { validTo: NOW - DAY }), cutoff)).toBe(false);
  });

  it("selects the oldest first, within the count and text caps", () => {
    const rows = [memory("b", "bb", 40), memory("a", "aa", 50), memory("c", "cc", 35), memory("d", "dd", 5)];
    expect(selectSources(rows, cutoff, 2).map((m) => m.id)).toEqual(["a", "b"]);
    expect(selectSources(rows, cutoff, 100).map((m) => m.id)).toEqual(["a", "b", "c"]);
    expect(selectSources(rows, cutoff, 100, 5).map((m) => m.id)).toEqual(["a", "b"]);
    expect(selectSources([memory("big", "x".repeat(50), 40)], cutoff, 100, 10).map((m) => m.id)).toEqual(["big"]);
  });

  it("merges every text verbatim under a dated bullet", () => {
    const text = mergeSummary([memory("a", "First line\nsecond line", 40), memory("b", "Other", 35)]);
    expect(text).toBe("Consolidated summary of 2 memories:\n- (2026-04-22) First line\nsecond line\n- (2026-04-27) Other");
  });

  it("keeps the scope fields and tags all sources share", () => {
    const a = memory("a", "x", 40, { tags: { topic: "port", v: "1" } });
    const b = memory("b", "y", 40, { session: "t", tags: { topic: "port", v: "2" } });
    expect(commonScope([a, b])).toEqual({ namespace: "", agent: "", session: "", user: "u" });
    expect(commonTags([a, b])).toEqual({ topic: "port" });
  });
});
