import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../src/adapters/chat/openai-chat-model.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { type ChatCompletionBody, type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai.js";
import { createTestApp, type TestApp } from "./support/harness.js";

let fake: FakeOpenAI;
let t: TestApp;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({ chat: createOpenAIChatModel({ baseURL: fake.baseURL, model: "fake-chat", maxRetries: 0 }) });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

// Judgement requests (JSON, issue 21) go to the same model; these tests look at the reply requests.
const chatBodies = () =>
  fake.requests
    .filter((r) => r.path === "/v1/chat/completions")
    .map((r) => r.body as ChatCompletionBody)
    .filter((b) => b.response_format?.type !== "json_object");

describe("Process with an OpenAI-compatible chat model", () => {
  it("replies with the model's answer, conditioned on the memories and the tone in the system prompt", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "patient_42" };
    fake.setChat(() => "Let's talk through what's on your mind about the surgery.");
    const first = await c.process({ scope, message: "I'm worried about my knee surgery tomorrow morning", channel: "ios_app" });
    expect(first.response).toBe("Let's talk through what's on your mind about the surgery.");

    // Three furious, shouted turns make the relation cautious.
    fake.setChat((body) => `Sorry about that (${body.messages.length} messages).`);
    for (let i = 0; i < 3; i++) await c.process({ scope, message: `THIS IS UNACCEPTABLE, I AM FURIOUS (${i})!!!` });

    fake.requests.length = 0;
    fake.setChat((body) => (body.messages[0].content.includes("surgery") ? "Your knee surgery is tomorrow morning." : "I don't know."));
    const res = await c.process({ scope, message: "What about my knee surgery tomorrow morning?" });
    expect(res.response).toBe("Your knee surgery is tomorrow morning.");
    expect(res.context?.toneGrudgeModifier).toBe("cautious");

    const [body] = chatBodies();
    expect(body.model).toBe("fake-chat");
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const system = body.messages[0].content;
    expect(system).toBe(res.context?.systemPrompt);
    expect(system).toContain("Tone: cautious.");
    expect(system).toContain("User: I'm worried about my knee surgery tomorrow morning / Assistant: Let's talk through what's on your mind about the surgery.");
    expect(body.messages[1].content).toBe("What about my knee surgery tomorrow morning?");

    const stored = await t.client(MemoryService).listMemories({ scope });
    expect(stored.memories.map((m) => m.text)).toContain(
      "User: What about my knee surgery tomorrow morning?\nAssistant: Your knee surgery is tomorrow morning.",
    );
  });

  it("degrades to an empty reply plus the system prompt when the model fails, and still records the turn", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "model-down" };
    fake.setChat(() => ({ status: 500, body: JSON.stringify({ error: { message: "boom", type: "server_error" } }) }));
    const res = await c.process({ scope, message: "Hello, is anyone there?" });
    expect(res.response).toBe("");
    expect(res.context?.systemPrompt).toContain("This message:");
    expect(res.memory?.interactionCount).toBe(1n);
    expect((await t.client(MemoryService).listMemories({ scope })).memories.map((m) => m.text)).toEqual(["User: Hello, is anyone there?"]);
  });
});
