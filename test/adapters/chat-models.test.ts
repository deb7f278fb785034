import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { AgentMemError } from "../../src/core/errors.js";
import { noChatModel } from "../../src/adapters/chat/no-chat-model.js";
import { createOpenAIChatModel } from "../../src/adapters/chat/openai-chat-model.js";
import { fakeTokens, startFakeOpenAI, type FakeOpenAI } from "../support/fake-openai.js";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

const messages = [
  { role: "system" as const, content: "Extract facts." },
  { role: "user" as const, content: "I moved to Paris last week." },
];

describe("openai chat model", () => {
  it("sends a JSON-mode request and returns the answer with its usage", async () => {
    const usage: unknown[] = [];
    const model = createOpenAIChatModel({
      baseURL: fake.baseURL,
      apiKey: "sk-chat",
      model: "fake-chat",
      onUsage: (...args) => usage.push(args),
    });
    const answer = '{"memory":[{"text":"Lives in Paris"}]}';
    fake.setChat((body) => (body.response_format?.type === "json_object" ? answer : "not json"));
    fake.requests.length = 0;

    const response = await model.complete({ messages, json: true, tenant: "acme", temperature: 0, maxTokens: 300 });

    const promptTokens = fakeTokens(messages[0].content) + fakeTokens(messages[1].content);
    expect(response).toEqual({ content: answer, promptTokens, completionTokens: fakeTokens(answer) });
    const chars = messages[0].content.length + messages[1].content.length;
    expect(usage).toEqual([["acme", promptTokens, fakeTokens(answer), chars]]);
    expect(fake.requests[0].body).toMatchObject({
      model: "fake-chat",
      messages,
      response_format: { type: "json_object" },
      temperature: 0,
      max_tokens: 300,
    });
    expect(fake.requests[0].headers.authorization).toBe("Bearer sk-chat");
    expect(model).toMatchObject({ mode: "openai", model: "fake-chat", available: true });
  });

  it("leaves response_format out unless JSON is asked for", async () => {
    const model = createOpenAIChatModel({ baseURL: fake.baseURL, model: "fake-chat" });
    fake.setChat(() => "hello");
    fake.requests.length = 0;
    expect((await model.complete({ messages, tenant: "acme" })).content).toBe("hello");
    expect(fake.requests[0].body).not.toHaveProperty("response_format");
  });

  it("translates a server error to LLM_UNAVAILABLE after one retry", async () => {
    const model = createOpenAIChatModel({ baseURL: fake.baseURL, model: "fake-chat" });
    fake.setChat(() => ({ status: 500, body: '{"error":{"message":"boom"}}' }));
    fake.requests.length = 0;
    const failure = await model.complete({ messages, tenant: "acme" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentMemError);
    expect(failure).toMatchObject({ code: "UNAVAILABLE", reason: "LLM_UNAVAILABLE", metadata: { status: "500" } });
    expect(fake.requests).toHaveLength(2);
  });

  it("times out a model that does not answer", async () => {
    const model = createOpenAIChatModel({ baseURL: fake.baseURL, model: "fake-chat", timeoutMs: 200, maxRetries: 0 });
    fake.setChat(() => new Promise((resolve) => setTimeout(() => resolve("late"), 2_000)));
    await expect(model.complete({ messages, tenant: "acme" })).rejects.toMatchObject({ code: "UNAVAILABLE", reason: "LLM_UNAVAILABLE" });
  });
});

describe("fake OpenAI server", () => {
  it("streams a scripted answer with usage to the openai client", async () => {
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: "sk-stream" });
    fake.setChat(() => "streamed");
    const stream = await client.chat.completions.create({
      model: "fake-chat",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    let completionTokens = 0;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
    }
    expect(content).toBe("streamed");
    expect(completionTokens).toBe(fakeTokens("streamed"));
  });

  it("serves base64 embeddings, which the openai client decodes by default", async () => {
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: "sk-b64" });
    const [b64, floats] = await Promise.all([
      client.embeddings.create({ model: "fake-embed", input: "hello", dimensions: 8 }),
      client.embeddings.create({ model: "fake-embed", input: "hello", dimensions: 8, encoding_format: "float" }),
    ]);
    expect(b64.data[0].embedding).toHaveLength(8);
    b64.data[0].embedding.forEach((x, i) => expect(x).toBeCloseTo(floats.data[0].embedding[i], 5));
  });
});

describe("no chat model", () => {
  it("is unavailable and refuses to complete", async () => {
    expect(noChatModel).toMatchObject({ mode: "none", available: false });
    await expect(noChatModel.complete({ messages, tenant: "acme" })).rejects.toMatchObject({
      code: "FAILED_PRECONDITION",
      reason: "LLM_NOT_CONFIGURED",
    });
  });
});
