import { describe, expect, it } from "vitest";
import { asksOnly, contentQuery } from "./query-terms.js";
import { sameName, speakerNamesScore } from "./names.js";
import { type Candidate, DEFAULT_WEIGHTS, fuse, minMax } from "./ranking.js";
import type { MemoryRecord } from "./records.js";
import { queryDates, timeScore } from "./time-cue.js";

const NOW = Date.UTC(2025, 0, 1);

function memory(id: string, text: string, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id, namespace: "", agent: "", session: "", user: "u", text, factType: "semantic", category: "", importance: 5,
    entities: [], tags: {}, pinned: false, contentHash: "", vector: new Float32Array(0), sourceIds: [], parentId: "",
    createdAt: NOW, validFrom: NOW, validTo: null, supersededBy: "", eventDate: null, lastAccessedAt: NOW,
    accessCount: 0, channel: "", emotions: [], intent: "", embedModel: "", role: "user", name: "", traceNumber: 0, ...extra,
  };
}

const candidate = (m: MemoryRecord, similarity: number, bm25: number, more: Partial<Candidate> = {}): Candidate => ({ memory: m, similarity, bm25, names: 0, ...more });

describe("query terms", () => {
  it("keeps the content words of a question", () => {
    expect(contentQuery("What did Caroline research?")).toBe("Caroline research");
    expect(contentQuery("When is Melanie's pottery class?")).toBe("Melanie's pottery class");
    expect(contentQuery("What is it?")).toBe("");
  });

  it("tells turns that only ask from turns that tell", () => {
    expect(asksOnly("Caroline: You play any instruments?")).toBe(true);
    expect(asksOnly("Melanie: Look at this! What do you think? [shares a photo of a vase]")).toBe(true);
    expect(asksOnly("Melanie: Yeah, I play clarinet! What about you? I started young.")).toBe(false);
    expect(asksOnly("Jon: I lost my job (again).")).toBe(false);
  });
});

describe("names", () => {
  it("matches names and their short forms, not other words", () => {
    expect(sameName("Mel", "Melanie")).toBe(true);
    expect(sameName("melanie", "Melanie")).toBe(true);
    expect(sameName("Jo", "Jon")).toBe(false);
    expect(sameName("Gina", "Jon")).toBe(false);
  });

  it("scores the speaker and entities, not names merely mentioned", () => {
    expect(speakerNamesScore(["Melanie"], { name: "Melanie", entities: [] })).toBe(1);
    expect(speakerNamesScore(["Melanie", "Sweden"], { name: "Caroline", entities: ["Sweden"] })).toBe(0.5);
    expect(speakerNamesScore(["Melanie"], { name: "Caroline", entities: [] })).toBe(0);
    expect(speakerNamesScore([], { name: "Caroline", entities: [] })).toBe(0);
  });
});

describe("fuse", () => {
  it("min-max scales each channel over the candidates", () => {
    expect(minMax([2, 4, 6])).toEqual([0, 0.5, 1]);
    expect(minMax([3, 3])).toEqual([1, 1]);
    expect(minMax([0, 0])).toEqual([0, 0]);
  });

  it("lets a reply inherit the match of the turn it answers", () => {
    const question = memory("q", "Caroline: I wonder which instruments you play.");
    const answer = memory("a", "Melanie: Yeah, I play clarinet!");
    const other = memory("o", "Melanie: I love music festivals.");
    const pool = [candidate(question, 0.9, 8), candidate(answer, 0.2, 0, { previous: "q" }), candidate(other, 0.5, 2)];
    const ranked = fuse(pool, DEFAULT_WEIGHTS, NOW);
    expect(ranked.map((h) => h.memory.id)).toEqual(["q", "a", "o"]);
    const reply = ranked.find((h) => h.memory.id === "a");
    expect(reply?.context).toBe(1);
    const withoutContext = fuse(pool, { ...DEFAULT_WEIGHTS, context: 0 }, NOW);
    expect(withoutContext.map((h) => h.memory.id)).toEqual(["q", "o", "a"]);
  });

  it("discounts a turn that only asks, unless told not to", () => {
    const asking = memory("ask", "Gina: Did you open the studio?");
    const telling = memory("tell", "Jon: I opened the studio.");
    const filler = candidate(memory("f", "Jon: Hi."), 0.1, 0);
    const pool = [candidate(asking, 0.8, 5), candidate(telling, 0.75, 4.8), filler];
    expect(fuse(pool, DEFAULT_WEIGHTS, NOW)[0].memory.id).toBe("tell");
    expect(fuse(pool, DEFAULT_WEIGHTS, NOW, { questionFactor: 1 })[0].memory.id).toBe("ask");
  });

  it("adds the names channel by its weight and honours a zero weight", () => {
    const byMel = candidate(memory("m", "Melanie: pottery"), 0.5, 1, { names: 1 });
    const byCaro = candidate(memory("c", "Caroline: pottery"), 0.55, 1.1, { names: 0 });
    const filler = candidate(memory("f", "Jon: Hi."), 0.1, 0);
    expect(fuse([byMel, byCaro, filler], DEFAULT_WEIGHTS, NOW)[0].memory.id).toBe("m");
    expect(fuse([byMel, byCaro, filler], { ...DEFAULT_WEIGHTS, names: 0 }, NOW)[0].memory.id).toBe("c");
  });
});

describe("time channel", () => {
  const onDay = memory("d", "Melanie: here is my painting", { validFrom: Date.UTC(2023, 9, 13, 14, 0) });
  const otherDay = memory("o", "Melanie: here is my painting", { validFrom: Date.UTC(2023, 9, 20, 14, 0) });

  it("finds dates named with their year, not relative ones", () => {
    expect(queryDates("What did Melanie show on October 13, 2023?", NOW).length).toBe(1);
    expect(queryDates("What did she paint in May 2023?", NOW)[0]?.granularity).toBe("month");
    expect(queryDates("What did she paint last week?", NOW)).toEqual([]);
    expect(queryDates("What did she paint?", NOW)).toEqual([]);
  });

  it("scores memories on the named date and ranks them first when text ties", () => {
    const dates = queryDates("What painting did Melanie show on October 13, 2023?", NOW);
    expect(timeScore(dates, onDay)).toBe(1);
    expect(timeScore(dates, otherDay)).toBe(0);
    expect(timeScore(dates, { ...otherDay, eventDate: Date.UTC(2023, 9, 13) })).toBe(1);
    const pool = [candidate(otherDay, 0.5, 1, { time: 0 }), candidate(onDay, 0.5, 1, { time: 1 })];
    expect(fuse(pool, DEFAULT_WEIGHTS, NOW)[0].memory.id).toBe("d");
    const [first, second] = fuse(pool, { ...DEFAULT_WEIGHTS, time: 0 }, NOW);
    expect(first.fused).toBeCloseTo(second.fused, 12);
  });
});
