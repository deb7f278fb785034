import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentMem, Code, ConnectError } from "../sdk/index.js";
import { type RealServer, startRealServer } from "./support/real-server.js";

const WRITE = "write-key-0123456789abcdef";
const ADMIN = "admin-key-0123456789abcdef";

let real: RealServer;
beforeAll(async () => {
  real = await startRealServer({ apiKeys: `${WRITE}:clinic:write,${ADMIN}:clinic:admin` });
});
afterAll(async () => real?.close());

/** The ConnectError a call rejected with. */
async function rejection(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

describe("SDK: the seeds' call forms over a real server", { timeout: 120_000 }, () => {
  it("process(userId, message) twice: the second recalls the first", async () => {
    const mem = new AgentMem({ baseUrl: real.url, apiKey: WRITE });
    const first = await mem.process("patient_42", "I'm worried about the surgery tomorrow", { channel: "web" });
    expect(first.context?.detectedEmotions).toContain("anxiety");
    const second = await mem.process("patient_42", "Any advice before the surgery tomorrow?");
    expect(second.memory?.relevantMemories.map((m) => m.text).join("\n")).toContain("I'm worried about the surgery tomorrow");
    expect(Number(second.memory?.interactionCount)).toBe(2);
  });

  it("remember(userId, text) and recall(userId, query, options); the request forms still work", async () => {
    const mem = new AgentMem({ baseUrl: real.url, apiKey: WRITE });
    const id = await mem.remember("patient_7", "I am allergic to penicillin", { pinned: true, session: "intake" });
    const hits = await mem.recall("patient_7", "penicillin allergy", { k: 3 });
    expect(hits.hits[0].id).toBe(id);
    expect(hits.hits[0].memory).toBe("I am allergic to penicillin");
    const same = await mem.recall({ scope: { user: "patient_7", session: "intake" }, query: "penicillin" });
    expect(same.hits[0].id).toBe(id);
    expect(await mem.remember({ scope: { user: "patient_7", session: "intake" }, content: "I am allergic to penicillin", pinned: true })).toBe(id);
  });

  it("clearHistory / clear_history(userId) with an admin key leaves nothing", async () => {
    const writer = new AgentMem({ baseUrl: real.url, apiKey: WRITE });
    await writer.remember("patient_9", "my sister visits on Sundays");
    const admin = new AgentMem({ baseUrl: real.url, apiKey: ADMIN });
    const erased = await admin.clear_history("patient_9");
    expect(Number(erased.memories)).toBe(1);
    expect((await admin.recall("patient_9", "sister Sundays")).hits).toEqual([]);
    expect((await admin.memory.history({ scope: { user: "patient_9" } })).turns).toEqual([]);
  });

  it("a wrong key raises ConnectError with Code.Unauthenticated", async () => {
    const mem = new AgentMem({ baseUrl: real.url, apiKey: "wrong-key-0123456789abcdef" });
    expect((await rejection(mem.process("patient_42", "hello"))).code).toBe(Code.Unauthenticated);
    expect((await rejection(mem.recall("patient_42", "hello"))).code).toBe(Code.Unauthenticated);
  });

  it("the wrong shape is a clear INVALID_ARGUMENT naming the field, and nothing is sent", async () => {
    const mem = new AgentMem({ baseUrl: real.url, apiKey: WRITE });
    const cases: [Promise<unknown>, RegExp][] = [
      [mem.process(42 as never, "hi"), /ProcessRequest: expected an object/],
      [mem.process("patient_x", undefined as never), /message: expected a non-empty string/],
      [mem.process("", "hi"), /userId: expected a non-empty string/],
      [mem.remember({ scope: "patient_x" } as never), /RememberRequest\.scope: expected an object/],
      [mem.remember({ scope: { user: "patient_x" }, content: 42 } as never), /RememberRequest\.content: expected a string/],
      [mem.remember({ scope: { user: "patient_x" }, content: "x", pinned: "yes" } as never), /pinned: expected a boolean/],
      [mem.remember({ user: "patient_x", content: "x" } as never), /RememberRequest\.user: expected no such field; RememberRequest has scope, content/],
      [mem.recall("patient_x", "q", { k: "ten" } as never), /RecallRequest\.k: expected an integer/],
      [mem.recall("patient_x", "q", "k=3" as never), /options: expected an options object/],
      [mem.process({ scope: { user: "patient_x" }, message: "hi", at: new Date() } as never), /at: expected a Timestamp \(use timestampFromDate/],
      [mem.remember("patient_x", "x", { tags: { a: 1 } } as never), /tags\.a: expected a string/],
      [mem.clearHistory(undefined as never), /userId: expected a non-empty string/],
    ];
    for (const [call, message] of cases) {
      const error = await rejection(call);
      expect(error.code, error.message).toBe(Code.InvalidArgument);
      expect(error.message).toMatch(message);
    }
    const admin = new AgentMem({ baseUrl: real.url, apiKey: ADMIN });
    expect((await admin.memory.history({ scope: { user: "patient_x" } })).turns).toEqual([]);
  });
});
