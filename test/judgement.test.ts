import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { halfOf } from "../bench/support/label-split.js";
import { loadMessages, loadScenarios } from "../bench/support/judgement-labels.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const T0 = Date.UTC(2025, 2, 1, 12);
const YEAR = 365 * 86_400_000;

describe("Process flags a crisis in the response and the system prompt", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("with the hash embedder the rules and the word model flag a quiet crisis, and an idiom is not one", async () => {
    const c = t.client(RelationalService);
    const quiet = await c.process({ scope: { user: "ana" }, message: "i've given my cat to my sister, i won't need to look after her where i'm going" });
    expect(quiet.context?.crisis).toBe(true);
    expect(quiet.context?.intent).toBe("crisis");
    expect(quiet.context?.systemPrompt).toContain("Safety:");
    const idiom = await c.process({ scope: { user: "ana" }, message: "this commute is killing me, two hours on a bus" });
    expect(idiom.context?.crisis).toBe(false);
    expect(idiom.context?.systemPrompt).not.toContain("Safety:");
    expect(idiom.context?.detectedEmotions).toEqual(["frustration"]);
  });
});

describe("Process judges by meaning with the use embedder", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ embedder: createUseEmbedder() });
  }, 120_000);
  afterAll(() => t.close());

  it("names an emotion no cue matches, and still flags the rules' crises", async () => {
    const c = t.client(RelationalService);
    const quiet = await c.process({ scope: { user: "ben" }, message: "Since the funeral nothing feels the same." });
    expect(quiet.context?.detectedEmotions).toEqual(["sadness"]);
    const crisis = await c.process({ scope: { user: "ben" }, message: "my husband is slurring and one side of his face has dropped" });
    expect(crisis.context?.crisis).toBe(true);
    expect(crisis.context?.systemPrompt).toContain("Safety:");
  }, 120_000);
});

describe("offline Add closes a fact only for a change that is so now", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function twoTurns(user: string, first: string, second: string) {
    const c = t.client(MemoryService);
    const scope = { user };
    const a = await c.add({ scope, observedAt: timestampFromMs(T0), messages: [{ role: "user", name: "Rosa", content: first }] });
    const b = await c.add({ scope, observedAt: timestampFromMs(T0 + YEAR), messages: [{ role: "user", name: "Rosa", content: second }] });
    return { first: a.added.map((m) => m.id), closed: b.superseded.map((m) => m.id), added: b.added.map((m) => m.text) };
  }

  it("closes on a change told without a subject, by 'we', as leaving and joining, or as a place left behind", async () => {
    for (const [i, [first, second]] of [
      ["I work at Acme as a clerk.", "Left Acme in May, joined Globex as an analyst."],
      ["We live in Leeds.", "We've settled in York now."],
      ["I live in Lisbon.", "Lisbon is behind me, I'm based in Porto these days."],
      ["I'm a junior designer.", "They promoted me to art director in June."],
    ].entries()) {
      const r = await twoTurns(`change-${i}`, first, second);
      expect(r.first.length, first).toBeGreaterThan(0);
      expect(r.closed, second).toEqual(r.first);
    }
  });

  it("keeps the fact for a plan, a maybe, a question, a denial or someone else's change", async () => {
    for (const [i, [first, second]] of [
      ["I live in Leeds.", "Thinking about moving to Bristol next year."],
      ["I work at Acme.", "Globex offered me a job, I might take it."],
      ["I live in Leeds.", "Should I move to Bristol?"],
      ["I work at Acme.", "I'm not leaving Acme, whatever people say."],
      ["I live in Leeds.", "My brother just moved to Bristol."],
    ].entries()) {
      const r = await twoTurns(`keep-${i}`, first, second);
      expect(r.first.length, first).toBeGreaterThan(0);
      expect(r.closed, second).toEqual([]);
    }
  });
});

describe("judgement label sets", () => {
  it("split each set about 50/50 by a fixed hash of the text", () => {
    expect(halfOf("I live in Leeds.")).toBe(halfOf("  i live   in LEEDS. "));
    const messages = loadMessages("bench/labels");
    const scenarios = loadScenarios("bench/labels");
    expect(messages.length).toBeGreaterThanOrEqual(260);
    expect(scenarios.length).toBeGreaterThanOrEqual(80);
    for (const set of [messages, scenarios]) {
      const tune = set.filter((x) => x.half === "tune").length / set.length;
      expect(tune).toBeGreaterThan(0.4);
      expect(tune).toBeLessThan(0.6);
    }
  });
});
