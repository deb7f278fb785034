import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../src/adapters/chat/openai-chat-model.js";
import { ConversationService } from "../../src/gen/agentmem/v1/conversation_service_pb.js";
import { type ChatCompletionBody, type FakeOpenAI, startFakeOpenAI } from "../support/fake-openai.js";
import { createTestApp, type TestApp } from "../support/harness.js";

let fake: FakeOpenAI;
let t: TestApp;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({ chat: createOpenAIChatModel({ baseURL: fake.baseURL, model: "fake-chat", maxRetries: 0 }) });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const titleCalls = () =>
  fake.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as ChatCompletionBody).filter((b) => b.messages[0]?.content.includes("title"));

describe("automatic titles with a chat model", () => {
  it("asks the model once, on the first user message, and keeps its cleaned answer", async () => {
    fake.setChat((body) => (body.messages[0].content.includes("title") ? '"Morning train to Porto."\n' : "{}"));
    const conv = t.client(ConversationService);
    const c = (await conv.createConversation({ scope: { user: "ines" } })).conversation!;
    await conv.appendMessages({ scope: { user: "ines" }, conversationId: c.id, messages: [{ role: "system", content: "You are a travel agent." }] });
    expect(titleCalls()).toHaveLength(0);
    const after = await conv.appendMessages({
      scope: { user: "ines" },
      conversationId: c.id,
      messages: [{ content: "Find me a morning train to Porto on Friday. I have a meeting at noon." }, { role: "assistant", content: "Looking." }],
    });
    expect(after.conversation?.title).toBe("Morning train to Porto");
    const calls = titleCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].messages[1].content).toBe("Find me a morning train to Porto on Friday. I have a meeting at noon.");
    await conv.appendMessages({ scope: { user: "ines" }, conversationId: c.id, messages: [{ content: "And back on Sunday?" }] });
    expect(titleCalls()).toHaveLength(1);
  });

  it("falls back to the first sentence when the model fails, and never overrides a given title", async () => {
    fake.requests.length = 0;
    fake.setChat(() => ({ status: 500, body: '{"error":{"message":"down"}}' }));
    const conv = t.client(ConversationService);
    const c = (await conv.createConversation({ scope: { user: "ines" } })).conversation!;
    const after = await conv.appendMessages({ scope: { user: "ines" }, conversationId: c.id, messages: [{ content: "My bike has a flat tyre! What now?" }] });
    expect(after.conversation?.title).toBe("My bike has a flat tyre!");
    const titled = (await conv.createConversation({ scope: { user: "ines" }, title: "Mine" })).conversation!;
    fake.requests.length = 0;
    const kept = await conv.appendMessages({ scope: { user: "ines" }, conversationId: titled.id, messages: [{ content: "Hello there." }] });
    expect(kept.conversation?.title).toBe("Mine");
    expect(titleCalls()).toHaveLength(0);
  });
});
