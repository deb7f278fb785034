import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../src/adapters/chat/openai-chat-model.js";
import { detect } from "../src/core/relational/detector.js";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { type ChatCompletionBody, type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai.js";
import { createTestApp, type TestApp } from "./support/harness.js";

// Issue 21, the model path: with a chat model configured, Process asks it for a strict-JSON
// judgement (one retry), ORs its crisis with the offline detector's, and falls back to the
// offline judgement on any failure. The model is a real local OpenAI-protocol server.

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

const isJudgement = (body: ChatCompletionBody) => body.response_format?.type === "json_object";
const chatBodies = () => fake.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as ChatCompletionBody);
/** Scripts the judgement answers in order (the last repeats) and a fixed reply for the reply request. */
function script(...judgements: string[]) {
  let n = 0;
  fake.requests.length = 0;
  fake.setChat((body) => (isJudgement(body) ? judgements[Math.min(n++, judgements.length - 1)] : "I'm here with you."));
}
const answer = (crisis: boolean, crisisClass: string | null, emotions: string[], top: string | null) =>
  JSON.stringify({ crisis, crisis_class: crisisClass, emotions, top_emotion: top });

describe("Process with a chat model judges crisis and emotions by asking it", () => {
  it("flags a crisis the offline detector misses when the model says so, in the response and the system prompt", async () => {
    // The offline word model now flags "the water under the old rail bridge looked so calm
    // tonight, i stood there for an hour" itself; this walk is one only the chat model flags here.
    const message = "i went for a long walk by the river tonight";
    expect(detect(message).crisis).toBe(false);
    script(answer(true, "method", ["sadness"], "sadness"));
    const res = await t.client(RelationalService).process({ scope: { user: "model-yes" }, message });
    expect(res.context?.crisis).toBe(true);
    expect(res.context?.intent).toBe("crisis");
    expect(res.context?.detectedEmotions).toEqual(["sadness"]);
    expect(res.context?.systemPrompt).toContain("Safety:");
    const bodies = chatBodies();
    const judgement = bodies.filter(isJudgement);
    expect(judgement).toHaveLength(1);
    expect(judgement[0].messages.at(-1)?.content).toBe(message);
    // The reply was asked with the crisis already in the system prompt.
    const reply = bodies.filter((b) => !isJudgement(b));
    expect(reply[0].messages[0].content).toContain("Safety:");
  });

  it("uses the model's emotions after one invalid answer, and the offline judgement after two", async () => {
    const c = t.client(RelationalService);
    const message = "oh brilliant, the train is cancelled again";
    script("not json at all", answer(false, null, ["frustration", "anger"], "anger"));
    const retried = await c.process({ scope: { user: "model-retry" }, message });
    expect(chatBodies().filter(isJudgement)).toHaveLength(2);
    // The model's top emotion comes first on the wire, then the rest in the usual order.
    expect(retried.context?.detectedEmotions).toEqual(["anger", "frustration"]);

    // Malformed twice (wrong shape, then a crisis without a class): the offline detector decides alone.
    script(JSON.stringify({ crisis: "yes" }), answer(true, null, [], null));
    const fallback = await c.process({ scope: { user: "model-fallback" }, message });
    expect(chatBodies().filter(isJudgement)).toHaveLength(2);
    const offline = detect(message);
    expect(fallback.context?.detectedEmotions).toEqual(offline.emotions);
    expect(fallback.context?.crisis).toBe(false);
    expect(fallback.response).toBe("I'm here with you.");
  });

  it("keeps an offline crisis when the model says no, and when the model is down", async () => {
    const c = t.client(RelationalService);
    const message = "i've given my cat to my sister, i won't need to look after her where i'm going";
    expect(detect(message).crisis).toBe(true);
    script(answer(false, null, ["joy"], "joy"));
    const no = await c.process({ scope: { user: "model-no" }, message });
    expect(no.context?.crisis).toBe(true);
    expect(no.context?.systemPrompt).toContain("Safety:");

    fake.requests.length = 0;
    fake.setChat(() => ({ status: 500, body: JSON.stringify({ error: { message: "boom", type: "server_error" } }) }));
    const down = await c.process({ scope: { user: "model-down" }, message });
    expect(down.context?.crisis).toBe(true);
    expect(down.context?.systemPrompt).toContain("Safety:");
    expect(chatBodies().filter(isJudgement)).toHaveLength(2);
  });
});
