import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { countTokens } from "gpt-tokenizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { createTestApp, type TestApp } from "./support/harness.js";

// The seed's walk with `--llm none`: the offline extractor, no model at all.
const JAN_14_2025 = Date.UTC(2025, 0, 14, 9);
const MAR_02_2026 = Date.UTC(2026, 2, 2, 9);
const clock = createManualClock(new Date(JAN_14_2025));
const maya = { user: "maya" };

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

describe("offline extractor walk (--llm none)", () => {
  it("turns first-person statements into standalone facts about the speaker", async () => {
    const c = t.client(MemoryService);
    const res = await c.add({
      scope: maya,
      observedAt: timestampFromMs(JAN_14_2025),
      messages: [
        { role: "user", name: "Maya", content: "Hi! I live in London and work as a nurse at St Thomas'. Can you help me plan meals?" },
        { role: "assistant", content: "Of course. I can suggest recipes." },
        { role: "user", name: "Maya", content: "Thanks. I'm vegetarian, and my partner Sam loves Thai food." },
      ],
    });
    expect(res.extractionError).toBe("");
    const texts = res.added.map((m) => m.text);
    expect(texts).toContain("Maya lives in London and works as a nurse at St Thomas'.");
    expect(texts.some((x) => x.startsWith("Maya is vegetarian"))).toBe(true);
    // Questions, small talk and the assistant's turns give no facts.
    expect(texts.every((x) => !/help|recipes|Hi/.test(x))).toBe(true);
    const london = res.added.find((m) => m.text.includes("London"));
    expect(london?.entities).toEqual(expect.arrayContaining(["London", "Maya"]));
    expect(london?.importance).toBeGreaterThanOrEqual(8);
    expect(london?.category).toBe("location");
    const turns = await c.history({ scope: maya });
    expect(turns.turns.length).toBe(3);
  });

  it("closes the London fact when Maya says she moved to Paris, and keeps the chain", async () => {
    const c = t.client(MemoryService);
    clock.set(new Date(MAR_02_2026));
    const res = await c.add({
      scope: maya,
      observedAt: timestampFromMs(MAR_02_2026),
      messages: [{ role: "user", name: "Maya", content: "Big news: I just moved from London to Paris for a job at a payments startup." }],
    });
    expect(res.added.map((m) => m.text)).toEqual(["Maya just moved from London to Paris for a job at a payments startup."]);
    const paris = res.added[0];
    // "just" dates the move to the observation day.
    expect(paris.eventDate?.seconds).toBe(BigInt(Date.UTC(2026, 2, 2) / 1000));
    expect(res.superseded.map((m) => m.text)).toEqual(["Maya lives in London and works as a nurse at St Thomas'."]);
    const london = res.superseded[0];
    expect(london.supersededBy).toBe(paris.id);
    expect(london.validTo?.seconds).toBe(BigInt(MAR_02_2026 / 1000));
    // Maya's other facts are not about where she lives: they stay open.
    const vegetarian = (await c.listMemories({ scope: maya })).memories.find((m) => m.text.startsWith("Maya is vegetarian"));
    expect(vegetarian?.validTo).toBeUndefined();

    const got = await c.getMemory({ scope: maya, id: london.id });
    expect(got.memory?.supersededBy).toBe(paris.id);
    expect(got.memory?.validTo).toBeDefined();
    const chain = await c.memoryHistory({ scope: maya, id: paris.id });
    expect(chain.chain.map((m) => m.id)).toEqual([london.id, paris.id]);
  });

  it("searches open rows only, with the replaced row as history, and travels in time", async () => {
    const c = t.client(MemoryService);
    const now = await c.search({ scope: maya, query: "where did Maya move, London or Paris?" });
    expect(now.hits[0].memory).toContain("Paris");
    expect(now.hits.some((h) => h.memory.includes("lives in London"))).toBe(false);
    expect(now.hits[0].history.map((m) => m.text)).toEqual(["Maya lives in London and works as a nurse at St Thomas'."]);

    const believed = await c.search({ scope: maya, query: "where does Maya live", asOf: timestampFromMs(Date.UTC(2025, 5, 1)) });
    expect(believed.hits.some((h) => h.memory.includes("lives in London"))).toBe(true);
    expect(believed.hits.some((h) => h.memory.includes("Paris"))).toBe(false);

    const world = await c.search({ scope: maya, query: "where does Maya live", asOfEvent: timestampFromMs(Date.UTC(2025, 5, 1)) });
    expect(world.hits.some((h) => h.memory.includes("lives in London"))).toBe(true);
    expect(world.hits.some((h) => h.memory.includes("Paris"))).toBe(false);
    const later = await c.search({ scope: maya, query: "where does Maya live", asOfEvent: timestampFromMs(Date.UTC(2026, 3, 1)) });
    expect(later.hits.some((h) => h.memory.includes("Paris"))).toBe(true);
    expect(later.hits.some((h) => h.memory.includes("lives in London"))).toBe(false);
  });

  it("renders a dated prompt block within budget, profile first, outdated rows marked", async () => {
    const c = t.client(MemoryService);
    const res = await c.promptBlock({ scope: maya, query: "where does Maya live now? any bakeries near her?", budgetTokens: 400 });
    const lines = res.block.split("\n");
    expect(lines[0]).toMatch(/^Profile so far: /);
    expect(res.block).toContain("(January 14, 2025) Maya lives in London and works as a nurse at St Thomas'. [outdated as of March 02, 2026]");
    expect(res.block).toContain("(March 02, 2026) Maya just moved from London to Paris for a job at a payments startup.");
    expect(res.block).toMatch(/\(March 02, 2026\) \[message\] Maya: Big news: I just moved/);
    expect(res.tokensUsed).toBe(countTokens(res.block));
    expect(res.tokensUsed).toBeLessThanOrEqual(400);
    expect(res.rows.some((r) => r.kind === "message")).toBe(true);

    const tight = await c.promptBlock({ scope: maya, query: "where does Maya live now?", budgetTokens: 40 });
    expect(tight.tokensUsed).toBeLessThanOrEqual(40);
    expect(countTokens(tight.block)).toBe(tight.tokensUsed);
    expect(tight.block.split("\n").length).toBeLessThan(lines.length);
  });

  it("reserves a place for rows on a date the question names", async () => {
    const c = t.client(MemoryService);
    const res = await c.add({
      scope: maya,
      observedAt: timestampFromMs(MAR_02_2026 + 3_600_000),
      messages: [{ role: "user", name: "Maya", content: "Yesterday I went to a bakery with Sam." }],
    });
    expect(res.added.map((m) => [m.text, m.eventDate?.seconds])).toEqual([["On March 1, 2026 Maya went to a bakery with Sam.", BigInt(Date.UTC(2026, 2, 1) / 1000)]]);
    const hits = await c.search({ scope: maya, query: "What happened on March 1st, 2026?", k: 1 });
    expect(hits.hits.map((h) => h.memory)).toEqual(["On March 1, 2026 Maya went to a bakery with Sam."]);
    // No word of this question is in the fact recorded that day ("from" is in the Paris fact):
    // only the reserved place for the named date brings it into the top 1.
    const recorded = await c.search({ scope: maya, query: "Anything from January 14th 2025?", k: 1 });
    expect(recorded.hits.map((h) => h.memory)).toEqual(["Maya is vegetarian, and Maya's partner Sam loves Thai food."]);
    const ranked = await c.search({ scope: maya, query: "Anything from the fourteenth?", k: 1 });
    expect(ranked.hits[0].memory).not.toContain("vegetarian");
  });

  it("runs the offline extractor for Remember with infer=true", async () => {
    const c = t.client(MemoryService);
    const res = await c.remember({ scope: { user: "li" }, name: "Li", content: "I love spicy food. I work at Acme.", infer: true, strategies: ["preferences"] });
    expect(res.memoryId).toBe("");
    expect(res.extractionError).toBe("");
    expect(res.facts.map((f) => f.text)).toEqual(["Li loves spicy food."]);
    expect((await c.history({ scope: { user: "li" } })).turns.map((x) => x.content)).toEqual(["I love spicy food. I work at Acme."]);
  });

  it("adds nothing when the same statement comes again", async () => {
    const c = t.client(MemoryService);
    const before = (await c.listMemories({ scope: maya })).memories.length;
    const res = await c.add({
      scope: maya,
      observedAt: timestampFromMs(MAR_02_2026 + 60_000),
      messages: [{ role: "user", name: "Maya", content: "Big news: I just moved from London to Paris for a job at a payments startup." }],
    });
    expect(res.added).toEqual([]);
    expect(res.skippedDuplicates).toBe(1);
    expect((await c.listMemories({ scope: maya })).memories.length).toBe(before);
  });
});
