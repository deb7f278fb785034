import { Code, ConnectError } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { countTokens } from "gpt-tokenizer";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../src/adapters/chat/openai-chat-model.js";
import { REPLACED_FACTOR } from "../src/core/fact-search.js";
import { FactType } from "../src/gen/agentmem/v1/common_pb.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { type ChatCompletionBody, type FakeOpenAI, fakeTokens, startFakeOpenAI } from "./support/fake-openai.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const JAN_14_2025 = Date.UTC(2025, 0, 14, 9);
const MAR_02_2026 = Date.UTC(2026, 2, 2, 9);
const PROFILE = "Maya is a nurse who moved from London to Paris in March 2026 for a payments startup; vegetarian; partner Sam.";

/** What the extractor was shown: the ids of the new messages and of the stored facts by text. */
function shown(body: ChatCompletionBody): { messages: string[]; facts: Map<string, string> } {
  const prompt = body.messages[1].content;
  const section = (title: string) => {
    const start = prompt.indexOf(title);
    const rest = prompt.slice(start + title.length).split("\n\n")[0];
    return rest.split("\n").filter((l) => l.trim() !== "" && l !== "(none)");
  };
  const facts = new Map(section("STORED FACTS (id: text):\n").map((l) => [l.slice(l.indexOf(": ") + 2), l.slice(0, l.indexOf(": "))]));
  return { messages: section("NEW MESSAGES (id: speaker: text):\n").map((l) => l.slice(0, l.indexOf(": "))), facts };
}

function fact(text: string, extra: Partial<Record<string, unknown>> = {}) {
  return { text, category: "semantic", importance: 8, event_date: null, entities: [], sources: [], supersedes: [], ...extra };
}

type Answer = (body: ChatCompletionBody) => string;
let answers: Answer[] = [];
const usage: [string, number, number][] = [];
let fake: FakeOpenAI;
let t: TestApp;
const clock = createManualClock(new Date(JAN_14_2025));
const extractorCalls = () => fake.requests.filter((r) => (r.body as ChatCompletionBody | undefined)?.response_format?.type === "json_object");

beforeAll(async () => {
  fake = await startFakeOpenAI({
    chat: (body) => {
      if (body.response_format?.type !== "json_object") return PROFILE;
      const next = answers.shift();
      if (!next) throw new Error("no scripted extractor answer left");
      return next(body);
    },
  });
  const chat = createOpenAIChatModel({ baseURL: fake.baseURL, model: "fake-extractor", maxRetries: 0, onUsage: (tenant, p, c) => usage.push([tenant, p, c]) });
  t = await createTestApp({ chat, clock });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  answers = [];
});

describe("the seed's walk over the API with a scripted OpenAI-compatible extractor", () => {
  const maya = { user: "maya" };

  it("stores London, then closes it when Maya moves to Paris", async () => {
    const c = t.client(MemoryService);
    answers.push((body) => {
      const { messages } = shown(body);
      return JSON.stringify({
        memory: [
          fact("Maya lives in London and works as a nurse at St Thomas'.", { entities: ["Maya", "London", "St Thomas'"], sources: [messages[0]] }),
          fact("Maya is vegetarian.", { category: "preference", importance: 6, entities: ["Maya"] }),
        ],
      });
    });
    const first = await c.add({
      scope: maya,
      observedAt: timestampFromMs(JAN_14_2025),
      messages: [{ role: "user", name: "Maya", content: "I live in London and work as a nurse at St Thomas'. I'm vegetarian." }],
    });
    expect(first.extractionError).toBe("");
    expect(first.added.map((m) => m.text)).toEqual(["Maya lives in London and works as a nurse at St Thomas'.", "Maya is vegetarian."]);
    expect(first.added[1].factType).toBe(FactType.PREFERENCE);
    expect(extractorCalls().length).toBe(1);
    const request = extractorCalls()[0].body as ChatCompletionBody;
    expect(request.response_format).toEqual({ type: "json_object" });
    expect(request.messages[1].content).toContain("OBSERVATION DATE: 2025-01-14");
    expect(first.added[0].sourceIds).toEqual(shown(request).messages);
    // Tokens are billed to the tenant through the adapter's onUsage.
    expect(usage.at(-1)?.[0]).toBe("default");

    clock.set(new Date(MAR_02_2026));
    fake.requests.length = 0;
    let londonShown = "";
    answers.push((body) => {
      const { messages, facts } = shown(body);
      londonShown = facts.get("Maya lives in London and works as a nurse at St Thomas'. (recorded 2025-01-14)") ?? "";
      return JSON.stringify({
        memory: [
          fact("Maya moved from London to Paris in March 2026 for a job at a payments startup.", {
            importance: 9,
            event_date: "2026-03",
            entities: ["Maya", "London", "Paris"],
            sources: [messages[0]],
            supersedes: [londonShown],
          }),
        ],
      });
    });
    const second = await c.add({
      scope: maya,
      observedAt: timestampFromMs(MAR_02_2026),
      messages: [{ role: "user", name: "Maya", content: "Big news: I just moved from London to Paris for a job at a payments startup." }],
    });
    expect(extractorCalls().length).toBe(1);
    const prompt = (extractorCalls()[0].body as ChatCompletionBody).messages[1].content;
    expect(prompt).toContain(`PROFILE SO FAR: ${PROFILE}`);
    const london = first.added[0];
    expect(prompt).toContain(`${london.id}: Maya lives in London and works as a nurse at St Thomas'. (recorded 2025-01-14)`);
    expect(londonShown).toBe(london.id); // real ids are shown
    const paris = second.added[0];
    expect(paris.eventDate?.seconds).toBe(BigInt(Date.UTC(2026, 2, 1) / 1000)); // month only → first of month
    expect(paris.validFrom?.seconds).toBe(BigInt(MAR_02_2026 / 1000));
    expect(second.superseded.map((m) => [m.id, m.supersededBy, m.validTo?.seconds])).toEqual([[london.id, paris.id, BigInt(MAR_02_2026 / 1000)]]);

    const got = await c.getMemory({ scope: maya, id: london.id });
    expect(got.memory?.supersededBy).toBe(paris.id);
    expect(got.memory?.validTo?.seconds).toBe(BigInt(MAR_02_2026 / 1000));
    expect((await c.memoryHistory({ scope: maya, id: london.id })).chain.map((m) => m.text)).toEqual([london.text, paris.text]);
    expect((await c.memoryHistory({ scope: maya, id: paris.id })).chain.map((m) => m.id)).toEqual([london.id, paris.id]);
  });

  it("ranks Paris first, never returns the closed row on its own, and travels back with as_of", async () => {
    const c = t.client(MemoryService);
    const res = await c.search({ scope: maya, query: "Where does Maya live now that she moved?" });
    expect(res.hits[0].memory).toContain("Paris");
    expect(res.hits.some((h) => h.memory.includes("lives in London"))).toBe(false);
    expect(res.hits[0].history.map((m) => m.text)).toEqual(["Maya lives in London and works as a nurse at St Thomas'."]);
    const top = res.hits[0].components;
    // Paris replaced London: the head of a supersede chain ranks up by REPLACED_FACTOR.
    expect(top?.fused).toBeCloseTo((0.8 * (top?.vector ?? 0) + 0.1 * (top?.lexical ?? 0) + 0.1 * (top?.names ?? 0)) * REPLACED_FACTOR);
    expect(top?.names).toBe(1); // "Maya" is named in the question and in the fact

    const then = await c.search({ scope: maya, query: "Where does Maya live?", asOf: timestampFromMs(Date.UTC(2025, 5, 1)) });
    expect(then.hits.map((h) => h.memory)).toContain("Maya lives in London and works as a nurse at St Thomas'.");
    expect(then.hits.some((h) => h.memory.includes("Paris"))).toBe(false);
  });

  it("renders the prompt block with the profile, outdated rows and raw messages, within budget", async () => {
    const c = t.client(MemoryService);
    const res = await c.promptBlock({ scope: maya, query: "any good bakeries near me? I'm Maya", budgetTokens: 300 });
    expect(res.block.split("\n")[0]).toBe(`Profile so far: ${PROFILE}`);
    expect(res.block).toContain("(January 14, 2025) Maya lives in London and works as a nurse at St Thomas'. [outdated as of March 02, 2026]");
    expect(res.block).toContain("(March 02, 2026) [message] Maya: Big news: I just moved from London to Paris for a job at a payments startup.");
    expect(res.tokensUsed).toBe(countTokens(res.block));
    expect(res.tokensUsed).toBeLessThanOrEqual(300);
    for (const budget of [1, 25, 60]) {
      const small = await c.promptBlock({ scope: maya, query: "where does Maya live?", budgetTokens: budget });
      expect(countTokens(small.block)).toBeLessThanOrEqual(budget);
      expect(small.tokensUsed).toBe(countTokens(small.block));
    }
  });

  it("adds nothing when the same fact comes again (same text, or the same words with other punctuation)", async () => {
    const c = t.client(MemoryService);
    const before = (await c.listMemories({ scope: maya })).memories.length;
    answers.push(() => JSON.stringify({ memory: [fact("Maya moved from London to Paris in March 2026 for a job at a payments startup.")] }));
    answers.push(() => JSON.stringify({ memory: [fact("maya moved from London to Paris, in March 2026, for a job at a payments startup!")] }));
    for (let i = 0; i < 2; i++) {
      const res = await c.add({ scope: maya, observedAt: timestampFromMs(MAR_02_2026 + 1000 * (i + 1)), messages: [{ role: "user", name: "Maya", content: "Did I tell you I moved to Paris?" }] });
      expect(res.added).toEqual([]);
      expect(res.skippedDuplicates).toBe(1);
    }
    expect((await c.listMemories({ scope: maya })).memories.length).toBe(before);
  });
});

describe("extractor failures lose nothing and half-write nothing", () => {
  const scope = { user: "fail" };
  const countRows = async () => {
    const c = t.client(MemoryService);
    return [(await c.listMemories({ scope })).memories.length, Number((await c.history({ scope })).total)];
  };

  it("retries once after invalid JSON and then succeeds", async () => {
    const c = t.client(MemoryService);
    answers.push(() => "Sure! Here are the facts: Fail likes tea.");
    answers.push(() => JSON.stringify({ memory: [fact("Fail likes green tea.", { category: "preference" })] }));
    const res = await c.add({ scope, messages: [{ role: "user", name: "Fail", content: "I like green tea." }] });
    expect(res.extractionError).toBe("");
    expect(res.added.map((m) => m.text)).toEqual(["Fail likes green tea."]);
    const calls = extractorCalls();
    expect(calls.length).toBe(2);
    const retry = (calls[1].body as ChatCompletionBody).messages;
    expect(retry.at(-2)).toEqual({ role: "assistant", content: "Sure! Here are the facts: Fail likes tea." });
    expect(retry.at(-1)?.content).toContain("not valid JSON");
  });

  it("gives up after invalid answers twice: turns kept, no fact written", async () => {
    const c = t.client(MemoryService);
    const [memories, turns] = await countRows();
    answers.push(() => "not json at all");
    answers.push(() => JSON.stringify({ facts: [{ text: "wrong shape" }] }));
    const res = await c.add({ scope, messages: [{ role: "user", name: "Fail", content: "I moved to Oslo." }] });
    expect(res.extractionError).toMatch(/^INVALID_EXTRACTOR_ANSWER: .*after one retry/);
    expect(res.added).toEqual([]);
    expect(extractorCalls().length).toBe(2);
    // The extractor saw the session's last turns.
    expect((extractorCalls()[0].body as ChatCompletionBody).messages[1].content).toMatch(/LAST TURNS:\n.*Fail \(user\): I like green tea\./);
    expect(await countRows()).toEqual([memories, turns + 1]);
  });

  it("keeps the raw turns when the model is unreachable", async () => {
    const down = await startFakeOpenAI();
    const baseURL = down.baseURL;
    await down.close();
    const other = await createTestApp({ chat: createOpenAIChatModel({ baseURL, model: "gone", maxRetries: 0, timeoutMs: 2_000 }) });
    try {
      const c = other.client(MemoryService);
      const res = await c.add({ scope, messages: [{ role: "user", name: "Fail", content: "I live in Bergen." }, { role: "assistant", content: "Nice!" }] });
      expect(res.extractionError).toMatch(/^LLM_UNAVAILABLE: /);
      expect(res.added).toEqual([]);
      expect((await c.history({ scope })).turns.map((x) => x.content)).toEqual(["I live in Bergen.", "Nice!"]);
      expect((await c.listMemories({ scope })).memories).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("ignores supersedes ids that do not exist or belong to another end-user", async () => {
    const c = t.client(MemoryService);
    answers.push(() => JSON.stringify({ memory: [fact("Omar lives in Cairo.")] }));
    const omar = (await c.add({ scope: { user: "omar" }, messages: [{ role: "user", name: "Omar", content: "I live in Cairo." }] })).added[0];
    answers.push(() => JSON.stringify({ memory: [fact("Fail lives in Cairo now.", { supersedes: [omar.id, "0123456789abcdef0123456789abcdef"] })] }));
    const res = await c.add({ scope, messages: [{ role: "user", name: "Fail", content: "I live in Cairo now." }] });
    expect(res.added.map((m) => m.text)).toEqual(["Fail lives in Cairo now."]);
    expect(res.superseded).toEqual([]);
    const still = await c.getMemory({ scope: { user: "omar" }, id: omar.id });
    expect(still.memory?.validTo).toBeUndefined();
    expect(still.memory?.supersededBy).toBe("");
  });
});

describe("the profile", () => {
  it("is rewritten at most once per session", async () => {
    const c = t.client(MemoryService);
    const profileCalls = () => fake.requests.filter((r) => (r.body as ChatCompletionBody | undefined)?.response_format === undefined).length;
    const add = async (session: string, text: string) => {
      answers.push(() => JSON.stringify({ memory: [fact(text)] }));
      const res = await c.add({ scope: { user: "prof", session }, messages: [{ role: "user", name: "Pat", content: "Something about me." }] });
      expect(res.added.map((m) => m.text)).toEqual([text]);
    };
    await add("s1", "Pat plays the cello.");
    await add("s1", "Pat has two cats.");
    expect(profileCalls()).toBe(1);
    await add("s2", "Pat runs on Sundays.");
    expect(profileCalls()).toBe(2);
    const profileRequest = fake.requests.filter((r) => (r.body as ChatCompletionBody).response_format === undefined)[1].body as ChatCompletionBody;
    // The second rewrite sees the facts of both sessions (profiles outlive sessions).
    expect(profileRequest.messages[1].content).toContain("Pat plays the cello.");
    expect(profileRequest.messages[1].content).toContain("Pat runs on Sundays.");
  });
});

describe("Remember with infer=true", () => {
  it("runs the extractor, keeps the turn, filters by strategy and returns the facts", async () => {
    const c = t.client(MemoryService);
    answers.push(() =>
      JSON.stringify({ memory: [fact("Ines loves hiking.", { category: "preference", importance: 5 }), fact("Ines works at Acme.")] }),
    );
    const res = await c.remember({ scope: { user: "ines" }, name: "Ines", content: "I love hiking and I work at Acme.", infer: true, strategies: ["preferences"], tags: { src: "chat" } });
    expect(res.memoryId).toBe("");
    expect(res.extractionError).toBe("");
    expect(res.facts.map((f) => [f.text, f.factType, f.tags])).toEqual([["Ines loves hiking.", FactType.PREFERENCE, { src: "chat" }]]);
    expect((await c.history({ scope: { user: "ines" } })).turns.map((x) => x.content)).toEqual(["I love hiking and I work at Acme."]);
    const call = extractorCalls()[0].body as ChatCompletionBody;
    expect(call.messages[1].content).toContain("EXTRACT ONLY: preferences");
    const billed = usage.at(-1);
    expect(billed?.[1]).toBeGreaterThan(0);
    expect(billed?.[2]).toBe(fakeTokens(PROFILE)); // the profile call came last
    await expect(c.remember({ scope: { user: "ines" }, content: "x", infer: true, strategies: ["dreams"] })).rejects.toSatisfy(
      (e) => ConnectError.from(e).code === Code.InvalidArgument,
    );
  });
});
