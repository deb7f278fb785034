import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatCompletionBody, type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai.js";
import { type RealServer, startRealServer } from "./support/real-server.js";

// The seed's walk over plain Connect JSON against the real server (`--llm openai`), whose
// extractor talks to a real local HTTP server that speaks the OpenAI protocol.
const KEY = "facts-writer-0123456789abcdef";
let fake: FakeOpenAI;
let srv: RealServer;

type Json = Record<string, unknown> & { added?: Json[]; superseded?: Json[]; hits?: Json[]; chain?: Json[] };

async function call(method: string, body: unknown): Promise<Json> {
  const res = await fetch(`${srv.url}/agentmem.v1.MemoryService/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  if (res.status !== 200) throw new Error(`${method}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The id the extractor was shown for a stored fact whose line starts with `text`. */
function shownId(body: ChatCompletionBody, text: string): string {
  const line = body.messages[1].content.split("\n").find((l) => l.includes(`: ${text}`));
  return line ? line.slice(0, line.indexOf(": ")) : "";
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    chat: (body) => {
      if (body.response_format?.type !== "json_object") return "Maya is a nurse who moved from London to Paris.";
      const prompt = body.messages[1].content;
      const item = (text: string, extra: object) => ({ text, category: "semantic", importance: 8, event_date: null, entities: ["Maya"], sources: [], supersedes: [], ...extra });
      if (prompt.includes("I just moved from London to Paris")) {
        const london = shownId(body, "Maya lives in London");
        return JSON.stringify({ memory: [item("Maya moved from London to Paris in March 2026 for a job at a payments startup.", { importance: 9, event_date: "2026-03", supersedes: [london] })] });
      }
      return JSON.stringify({ memory: [item("Maya lives in London and works as a nurse at St Thomas'.", { event_date: "2025-01" })] });
    },
  });
  srv = await startRealServer({
    apiKeys: `${KEY}:acme:write`,
    env: { AGENTMEM_LLM: "openai", OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: "sk-fake", AGENTMEM_LLM_MODEL: "fake-extractor" },
  });
});
afterAll(async () => {
  await srv.close();
  await fake.close();
});

describe("facts over real HTTP with --llm openai", () => {
  it("walks London → Paris: closed with a pointer, Search, as_of, chain, block, no duplicate", async () => {
    const scope = { user: "maya" };
    const london = await call("Add", { scope, observedAt: "2025-01-14T09:00:00Z", messages: [{ role: "user", name: "Maya", content: "I live in London and work as a nurse at St Thomas'." }] });
    const londonId = london.added?.[0]?.id as string;
    expect(london.added?.[0]?.eventDate).toBe("2025-01-01T00:00:00Z");

    const paris = await call("Add", { scope, observedAt: "2026-03-02T09:00:00Z", messages: [{ role: "user", name: "Maya", content: "Big news: I just moved from London to Paris for a job at a payments startup." }] });
    const parisId = paris.added?.[0]?.id as string;
    expect(paris.superseded).toEqual([expect.objectContaining({ id: londonId, supersededBy: parisId, validTo: "2026-03-02T09:00:00Z" })]);
    expect(paris.added?.[0]?.eventDate).toBe("2026-03-01T00:00:00Z");

    const now = await call("Search", { scope, query: "Where did Maya move to?" });
    expect(now.hits?.[0]?.memory).toContain("Paris");
    expect(now.hits?.some((h) => h.id === londonId)).toBe(false);
    expect((now.hits?.[0]?.history as Json[]).map((m) => m.id)).toEqual([londonId]);

    const then = await call("Search", { scope, query: "Where does Maya live?", asOf: "2025-06-01T00:00:00Z" });
    expect(then.hits?.map((h) => h.id)).toEqual([londonId]);

    const chain = await call("MemoryHistory", { scope, id: parisId });
    expect(chain.chain?.map((m) => m.id)).toEqual([londonId, parisId]);

    const block = await call("PromptBlock", { scope, query: "any good bakeries near Maya?", budgetTokens: 120 });
    expect(block.block).toContain("[outdated as of March 02, 2026]");
    expect(block.block).toContain("[message] Maya:");
    expect(block.tokensUsed as number).toBeLessThanOrEqual(120);

    const again = await call("Add", { scope, observedAt: "2026-03-03T09:00:00Z", messages: [{ role: "user", name: "Maya", content: "As I said, I just moved from London to Paris." }] });
    expect(again.added ?? []).toEqual([]);
    expect(again.skippedDuplicates).toBe(1);

    // The extractor's tokens are billed to the key's tenant.
    const usage = await call("Usage", { scope: {} });
    expect(Number(usage.llmPromptTokens)).toBeGreaterThan(0);
    expect(Number(usage.llmCompletionTokens)).toBeGreaterThan(0);
  });
});
