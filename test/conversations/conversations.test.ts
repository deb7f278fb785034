import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Plan } from "../../src/gen/agentmem/v1/common_pb.js";
import { ConversationService } from "../../src/gen/agentmem/v1/conversation_service_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { createManualClock } from "../../src/ports/clock.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const ADMIN = "conv-admin-key-000000000000";
const WRITER = "conv-write-key-000000000000";
const READER = "conv-read-key-0000000000000";
const OTHER = "conv-other-key-000000000000";
const KEYS = [`${ADMIN}:acme:admin`, `${WRITER}:acme:write`, `${READER}:acme:read`, `${OTHER}:beta:write`].join(",");
const START = new Date("2026-03-01T09:00:00Z");
const alice = { user: "alice", agent: "helper" };

let t: TestApp;
const clock = createManualClock(START);
beforeAll(async () => {
  t = await createTestApp({ apiKeys: KEYS, clock });
});
afterAll(() => t.close());

const conv = () => t.client(ConversationService, WRITER);

async function failure(call: Promise<unknown> | (() => Promise<unknown>)): Promise<{ code: Code; reason: string }> {
  try {
    await (typeof call === "function" ? call() : call);
  } catch (error) {
    const e = ConnectError.from(error);
    return { code: e.code, reason: e.findDetails(ErrorInfoSchema)[0]?.reason ?? "" };
  }
  throw new Error("expected the call to fail");
}

/** Three user/assistant exchanges about a trip, the second answer made by a tool call. */
const TURNS = [
  { role: "user", content: "Can you find me a train to Porto on Friday? I want to leave early." },
  { role: "assistant", content: "Looking up trains for Friday morning." },
  {
    role: "tool",
    name: "train_search",
    content: "train_search(Lisbon, Porto, Friday 07:00)",
    trace: { toolName: "train_search", arguments: '{"from":"Lisbon","to":"Porto","day":"Friday"}', result: '{"departs":"07:09","platform":4}', latencyMs: 412n },
  },
  {
    role: "assistant",
    content: "The Alfa Pendular leaves at 07:09 from platform 4.",
    trace: { model: "gpt-test", inputTokens: 812n, outputTokens: 23n, latencyMs: 950n },
  },
  { role: "user", content: "Great, please remember I prefer window seats." },
  { role: "assistant", content: "Noted: window seats from now on." },
];

describe("a conversation's life", () => {
  let id = "";

  it("creates, appends three exchanges with a tool trace, and reads them back in order", async () => {
    const created = (await conv().createConversation({ scope: alice, metadata: { channel: "web" } })).conversation!;
    id = created.id;
    expect(id).toMatch(/^conv_[0-9a-f]{24}$/);
    expect(created.scope).toMatchObject({ tenant: "acme", user: "alice", agent: "helper", session: id });
    expect(created.messageCount).toBe(0n);
    expect(created.title).toBe("");
    expect(timestampDate(created.createdAt!).toISOString()).toBe(START.toISOString());

    clock.advance(60_000);
    const appended = await conv().appendMessages({ scope: alice, conversationId: id, messages: TURNS });
    expect(appended.messageIds).toHaveLength(6);
    expect(new Set(appended.messageIds).size).toBe(6);
    const after = appended.conversation!;
    expect(after.messageCount).toBe(6n);
    expect(after.title).toBe("Can you find me a train to Porto on Friday?");
    expect(after.lastMessagePreview).toBe("Noted: window seats from now on.");
    expect(after.metadata).toEqual({ channel: "web" });

    const page = await t.client(ConversationService, READER).listMessages({ scope: alice, conversationId: id });
    expect(page.messages.map((m) => [m.role, m.content])).toEqual(TURNS.map((m) => [m.role, m.content]));
    expect(page.messages.map((m) => Number(m.position))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(page.messages.map((m) => m.id)).toEqual(appended.messageIds);
    const tool = page.messages[2];
    expect(tool.name).toBe("train_search");
    expect(tool.trace).toMatchObject({ toolName: "train_search", arguments: TURNS[2].trace!.arguments, result: TURNS[2].trace!.result, latencyMs: 412n });
    expect(page.messages[3].trace).toMatchObject({ model: "gpt-test", inputTokens: 812n, outputTokens: 23n });
    expect(page.messages[0].trace).toBeUndefined();
    const created_at = page.messages.map((m) => timestampDate(m.createdAt!).getTime());
    expect(created_at.every((v, i) => i === 0 || v > created_at[i - 1])).toBe(true);
  });

  it("the messages are turns of the conversation's session: History, Recall and Search see them", async () => {
    const memory = t.client(MemoryService, READER);
    const history = await memory.history({ scope: { ...alice, session: id } });
    expect(history.turns.map((turn) => turn.content)).toEqual(TURNS.map((m) => m.content));
    expect(history.turns.map((turn) => Number(turn.traceNumber))).toEqual([1, 2, 3, 4, 5, 6]);
    const recalled = await memory.recall({ scope: { ...alice, session: id }, query: "which platform does the Porto train leave from?" });
    expect(recalled.hits[0]?.memory).toBe("The Alfa Pendular leaves at 07:09 from platform 4.");
    const elsewhere = await memory.recall({ scope: { ...alice, session: "another-session" }, query: "Porto train platform" });
    expect(elsewhere.hits).toEqual([]);
  });

  it("pages messages both ways and syncs incrementally with `since`", async () => {
    const reader = t.client(ConversationService, READER);
    const seen: string[] = [];
    let token = "";
    do {
      const page = await reader.listMessages({ scope: alice, conversationId: id, pageSize: 4, pageToken: token, newestFirst: true });
      seen.push(...page.messages.map((m) => m.content));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual(TURNS.map((m) => m.content).reverse());

    const all = (await reader.listMessages({ scope: alice, conversationId: id })).messages;
    clock.advance(1_000);
    await conv().appendMessages({ scope: alice, conversationId: id, messages: [{ role: "user", content: "Thanks, that is all." }] });
    const fresh = await reader.listMessages({ scope: alice, conversationId: id, since: all[all.length - 1].createdAt });
    expect(fresh.messages.map((m) => m.content)).toEqual(["Thanks, that is all."]);
    expect(fresh.messages[0].position).toBe(7n);

    const first = await reader.listMessages({ scope: alice, conversationId: id, pageSize: 2 });
    const wrong = await failure(reader.listMessages({ scope: alice, conversationId: id, pageSize: 2, pageToken: first.nextPageToken, newestFirst: true }));
    expect(wrong).toEqual({ code: Code.InvalidArgument, reason: "INVALID_PAGE_TOKEN" });
  });

  it("lists an end-user's conversations newest activity first, paged, filtered by metadata, time and archive", async () => {
    const ids = [id];
    for (let i = 0; i < 4; i++) {
      clock.advance(10_000);
      const c = await conv().createConversation({ scope: alice, title: `Topic ${i}`, metadata: { channel: i % 2 === 0 ? "sms" : "web" } });
      ids.push(c.conversation!.id);
    }
    await conv().createConversation({ scope: { user: "bob", agent: "helper" }, title: "Bob's" });
    clock.advance(10_000);
    // Activity moves the first conversation back to the top.
    await conv().appendMessages({ scope: alice, conversationId: id, messages: [{ role: "user", content: "One more thing about Porto." }] });

    const reader = t.client(ConversationService, READER);
    const order: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await reader.listConversations({ scope: alice, pageSize: 2, pageToken: token });
      order.push(...page.conversations.map((c) => c.id));
      token = page.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(order).toEqual([id, ids[4], ids[3], ids[2], ids[1]]);

    const web = await reader.listConversations({ scope: alice, metadata: { channel: "web" } });
    expect(web.conversations.map((c) => c.id).sort()).toEqual([id, ids[2], ids[4]].sort());
    const window = await reader.listConversations({
      scope: alice,
      since: timestampFromMs(START.getTime() + 61_000 + 15_000),
      until: timestampFromMs(START.getTime() + 61_000 + 35_000),
    });
    expect(window.conversations.map((c) => c.id)).toEqual([ids[3], ids[2]]);

    const archived = await conv().updateConversation({ scope: alice, conversationId: ids[1], archived: true, title: "Old topic", metadata: { channel: "", done: "yes" } });
    expect(archived.conversation).toMatchObject({ archived: true, title: "Old topic", metadata: { done: "yes" } });
    expect((await reader.listConversations({ scope: alice, archived: false })).conversations.map((c) => c.id)).not.toContain(ids[1]);
    expect((await reader.listConversations({ scope: alice, archived: true })).conversations.map((c) => c.id)).toEqual([ids[1]]);
    expect((await reader.getConversation({ scope: alice, conversationId: ids[1] })).conversation?.title).toBe("Old topic");

    const bobs = await reader.listConversations({ scope: { user: "bob" } });
    expect(bobs.conversations.map((c) => c.title)).toEqual(["Bob's"]);
    const first = await reader.listConversations({ scope: alice, pageSize: 1 });
    expect(await failure(reader.listConversations({ scope: { user: "bob" }, pageSize: 1, pageToken: first.nextPageToken }))).toEqual({
      code: Code.InvalidArgument,
      reason: "INVALID_PAGE_TOKEN",
    });
  });

  it("another end-user and another tenant's key get NOT_FOUND; a read key cannot write", async () => {
    const bob = { user: "bob", agent: "helper" };
    const reader = t.client(ConversationService, READER);
    for (const call of [
      () => reader.getConversation({ scope: bob, conversationId: id }),
      () => reader.listMessages({ scope: bob, conversationId: id }),
      () => conv().appendMessages({ scope: bob, conversationId: id, messages: [{ content: "planted" }] }),
      () => conv().updateConversation({ scope: bob, conversationId: id, title: "hijacked" }),
      () => conv().deleteConversation({ scope: bob, conversationId: id }),
      () => reader.getConversation({ scope: { user: "alice", agent: "other-agent" }, conversationId: id }),
    ]) {
      expect(await failure(call)).toEqual({ code: Code.NotFound, reason: "CONVERSATION_NOT_FOUND" });
    }
    const beta = t.client(ConversationService, OTHER);
    expect(await failure(beta.getConversation({ scope: alice, conversationId: id }))).toEqual({ code: Code.NotFound, reason: "CONVERSATION_NOT_FOUND" });
    expect(await failure(beta.deleteConversation({ scope: alice, conversationId: id }))).toEqual({ code: Code.NotFound, reason: "CONVERSATION_NOT_FOUND" });
    expect((await beta.listConversations({ scope: alice })).conversations).toEqual([]);
    expect((await failure(beta.getConversation({ scope: { ...alice, tenant: "acme" }, conversationId: id }))).code).toBe(Code.PermissionDenied);
    expect((await failure(reader.appendMessages({ scope: alice, conversationId: id, messages: [{ content: "x" }] }))).code).toBe(Code.PermissionDenied);
    expect((await failure(reader.createConversation({ scope: alice }))).code).toBe(Code.PermissionDenied);
    // Nothing changed.
    const still = (await reader.getConversation({ scope: alice, conversationId: id })).conversation!;
    expect(still.messageCount).toBe(8n);
    expect(still.title).toBe("Can you find me a train to Porto on Friday?");
  });

  it("rejects bad input with INVALID_ARGUMENT and changes nothing", async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => conv().createConversation({ scope: { ...alice, session: "s1" } }), "SESSION_NOT_ALLOWED"],
      [() => conv().createConversation({ scope: alice, conversationId: "bad id!" }), "INVALID_SCOPE"],
      [() => conv().createConversation({ scope: alice, metadata: { "a=b": "c" } }), "INVALID_TAG"],
      [() => conv().getConversation({ scope: alice }), "CONVERSATION_ID_REQUIRED"],
      [() => conv().appendMessages({ scope: alice, conversationId: id, messages: [] }), "MESSAGES_REQUIRED"],
      [() => conv().appendMessages({ scope: alice, conversationId: id, messages: [{ role: "user", content: "ok" }, { role: "robot", content: "x" }] }), "INVALID_ROLE"],
      [() => conv().appendMessages({ scope: alice, conversationId: id, messages: [{ role: "tool", content: " ", trace: { toolName: "x" } }] }), "CONTENT_REQUIRED"],
      [() => conv().appendMessages({ scope: alice, conversationId: id, messages: [{ content: "x", trace: { inputTokens: -1n } }] }), "INVALID_COUNT"],
      [() => conv().listConversations({ scope: alice, since: timestampFromMs(2000), until: timestampFromMs(1000) }), "INVALID_TIME_RANGE"],
      [() => conv().listMessages({ scope: alice, conversationId: id, pageToken: "bm9wZQ" }), "INVALID_PAGE_TOKEN"],
    ];
    for (const [call, reason] of cases) expect(await failure(call)).toEqual({ code: Code.InvalidArgument, reason });
    const taken = await failure(conv().createConversation({ scope: { user: "bob" }, conversationId: id }));
    expect(taken).toEqual({ code: Code.AlreadyExists, reason: "CONVERSATION_EXISTS" });
    expect((await conv().getConversation({ scope: alice, conversationId: id })).conversation?.messageCount).toBe(8n);
  });

  it("delete removes the messages, their turns and memories, and is audited", async () => {
    const kept = await conv().createConversation({ scope: alice, conversationId: "kept-1" });
    await conv().appendMessages({ scope: alice, conversationId: kept.conversation!.id, messages: [{ content: "I also like trains to Braga." }] });
    const deleted = await conv().deleteConversation({ scope: alice, conversationId: id });
    expect(deleted.messages).toBe(8n);
    expect(deleted.memories).toBe(8n);
    expect(deleted.traces).toBe(8n);
    expect(await failure(conv().getConversation({ scope: alice, conversationId: id }))).toEqual({ code: Code.NotFound, reason: "CONVERSATION_NOT_FOUND" });
    expect(await failure(conv().listMessages({ scope: alice, conversationId: id }))).toMatchObject({ code: Code.NotFound });
    const memory = t.client(MemoryService, READER);
    expect((await memory.history({ scope: { ...alice, session: id } })).turns).toEqual([]);
    expect((await memory.recall({ scope: alice, query: "Porto train platform window seats" })).hits.map((h) => h.memory)).toEqual(["I also like trains to Braga."]);

    const audit = (await t.client(PrivacyService, ADMIN).listAudit({ pageSize: 20 })).records;
    const record = audit.find((r) => r.operation === "agentmem.v1.ConversationService/DeleteConversation" && r.outcome === "OK");
    expect(record?.scope).toMatchObject({ user: "alice", session: id });
    expect(record?.counts).toMatchObject({ messages: 8n, memories: 8n });
    expect(JSON.stringify(audit, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toMatch(/Porto|Braga/);
  });
});

describe("infer", () => {
  it("runs the fact extractor on appended messages as Add does, keeping the messages", async () => {
    const scope = { user: "erin" };
    const c = (await conv().createConversation({ scope })).conversation!;
    const result = await conv().appendMessages({
      scope,
      conversationId: c.id,
      infer: true,
      messages: [{ content: "I work as a nurse in Leeds." }, { role: "assistant", content: "That sounds demanding." }],
    });
    expect(result.extractionError).toBe("");
    expect(result.facts.map((f) => f.text).join(" ")).toMatch(/nurse/);
    expect(result.facts.every((f) => f.scope?.session === c.id)).toBe(true);
    const listed = await conv().listMessages({ scope, conversationId: c.id });
    expect(listed.messages.map((m) => m.id)).toEqual(result.messageIds);
    expect(listed.messages.map((m) => m.content)).toEqual(["I work as a nurse in Leeds.", "That sounds demanding."]);
    const found = await t.client(MemoryService, READER).search({ scope: { ...scope, session: c.id }, query: "what is erin's job?" });
    expect(found.hits[0]?.memory).toMatch(/nurse/);
  });
});

describe("privacy", () => {
  it("Export includes an end-user's conversations and messages; Erase leaves none", async () => {
    const scope = { user: "carol" };
    const c = (await conv().createConversation({ scope, title: "Carol's plans" })).conversation!;
    await conv().appendMessages({
      scope,
      conversationId: c.id,
      messages: [{ content: "I am flying to Oslo in June." }, { role: "assistant", content: "Booked.", trace: { toolName: "book_flight", result: "ok" } }],
    });
    const admin = t.client(PrivacyService, ADMIN);
    const exported = await admin.export({ externalId: "carol" });
    const kinds = Object.fromEntries(exported.tables.map((tb) => [tb.kind, tb.rows]));
    expect(kinds.conversations?.map((r) => r.title)).toEqual(["Carol's plans"]);
    expect(kinds.conversation_messages?.map((r) => r.tool_name).sort()).toEqual(["", "book_flight"]);
    expect(exported.episodes.map((e) => e.content)).toEqual(["I am flying to Oslo in June.", "Booked."]);

    const erased = await admin.erase({ externalId: "carol" });
    expect(erased.episodes).toBe(2n);
    expect(await failure(conv().getConversation({ scope, conversationId: c.id }))).toMatchObject({ code: Code.NotFound });
    expect((await conv().listConversations({ scope })).conversations).toEqual([]);
    expect((await admin.export({ externalId: "carol" })).tables).toEqual([]);
  });

  it("a retention cap trims old messages with their traces and lowers the count", async () => {
    const scope = { user: "dave" };
    const admin = t.client(PrivacyService, ADMIN);
    await admin.setRetention({ plan: Plan.COMMUNITY });
    try {
      const c = (await conv().createConversation({ scope })).conversation!;
      const batch = (from: number) => Array.from({ length: 100 }, (_, i) => ({ content: `dave message number ${from + i}`, trace: { model: "m" } }));
      for (let from = 0; from < 600; from += 100) {
        clock.advance(1_000);
        await conv().appendMessages({ scope, conversationId: c.id, messages: batch(from) });
      }
      const after = (await conv().getConversation({ scope, conversationId: c.id })).conversation!;
      expect(after.messageCount).toBe(500n);
      const oldest = await conv().listMessages({ scope, conversationId: c.id, pageSize: 1 });
      expect(oldest.messages[0].content).toBe("dave message number 100");
      expect(oldest.messages[0].position).toBe(101n);
      const exported = await admin.export({ externalId: "dave" });
      expect(exported.tables.find((tb) => tb.kind === "conversation_messages")?.rows).toHaveLength(500);
    } finally {
      await admin.setRetention({ plan: Plan.ENTERPRISE });
    }
  });
});
