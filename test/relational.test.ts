import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventKind, MatchStrength } from "../src/gen/agentmem/v1/common_pb.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const T0 = Date.parse("2026-04-17T09:00:00Z");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (ms: number) => timestampFromMs(ms);
const reasonOf = (e: unknown) => ConnectError.from(e).findDetails(ErrorInfoSchema)[0]?.reason;

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("expected the call to fail");
}

let t: TestApp;
const clock = createManualClock(new Date(T0));
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

describe("RelationalService.Process offline (no chat model)", () => {
  it("detects, updates the state, returns the system prompt, stores the interaction and recalls it next turn", async () => {
    const c = t.client(RelationalService);
    const first = await c.process({ scope: { user: "maya" }, message: "I'm worried about my knee surgery tomorrow morning", channel: "ios_app" });
    expect(first.response).toBe("");
    expect(first.context?.detectedEmotions).toEqual(["anxiety"]);
    expect(first.context?.intent).toBe("emotional_support");
    expect(first.context?.systemPrompt).toContain("first time");
    expect(first.user).toMatchObject({ trust: 0.51, sentiment: 0.43, grudge: 0, familiarity: 0.005 });
    expect(first.memory?.relevantMemories).toEqual([]);
    expect(first.memory?.interactionCount).toBe(1n);
    expect(first.memory?.totalStored).toBe(1n);
    expect(timestampDate(first.memory!.knownSince!).getTime()).toBe(T0);

    const second = await c.process({ scope: { user: "maya" }, message: "Can you remind me what time my knee surgery is tomorrow?" });
    const [recalled] = second.memory!.relevantMemories;
    expect(recalled.text).toBe("User: I'm worried about my knee surgery tomorrow morning");
    expect(recalled.similarity).toBeGreaterThanOrEqual(0.3);
    expect(recalled.strength).not.toBe(MatchStrength.UNSPECIFIED);
    expect(timestampDate(recalled.timestamp!).getTime()).toBe(T0);
    expect(second.context?.systemPrompt).toContain("User: I'm worried about my knee surgery tomorrow morning");
    expect(second.context?.intent).toBe("request");
    expect(second.memory?.totalStored).toBe(2n);

    const stored = await t.client(MemoryService).listMemories({ scope: { user: "maya" } });
    const interaction = stored.memories.find((m) => m.text.startsWith("User: I'm worried"))!;
    expect(interaction).toMatchObject({ channel: "ios_app", emotions: ["anxiety"], intent: "emotional_support", tags: { kind: "interaction" } });
  });

  it("honours k and min_similarity overrides and reports raw cosine similarity", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "thresholds" };
    for (const m of ["My cat Biscuit likes tuna", "My cat Biscuit sleeps all day", "I planted tomatoes in the garden"]) {
      await c.process({ scope, message: m });
    }
    const all = await c.process({ scope, message: "Tell me about my cat Biscuit", k: 5, minSimilarity: 0 });
    expect(all.memory?.relevantMemories.length).toBe(3);
    const sims = all.memory!.relevantMemories.map((m) => m.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    const one = await c.process({ scope, message: "Tell me about my cat Biscuit", k: 1, minSimilarity: 0 });
    expect(one.memory?.relevantMemories.length).toBe(1);
    const strict = await c.process({ scope, message: "Tell me about my cat Biscuit", minSimilarity: 0.99 });
    expect(strict.memory?.relevantMemories).toEqual([]);
  });

  it("rejects bad requests with INVALID_ARGUMENT and changes nothing", async () => {
    const c = t.client(RelationalService);
    expect(reasonOf(await failure(c.process({ scope: {}, message: "hi" })))).toBe("INVALID_SCOPE");
    expect(reasonOf(await failure(c.process({ scope: { user: "v" }, message: "  " })))).toBe("MESSAGE_REQUIRED");
    expect(reasonOf(await failure(c.process({ scope: { user: "v" }, message: "hi", minSimilarity: 1.5 })))).toBe("INVALID_THRESHOLD");
    expect((await failure(c.process({ scope: { user: "v" }, message: "hi", k: 21 }))).code).toBe(Code.InvalidArgument);
    expect(reasonOf(await failure(c.recordEvent({ scope: { user: "v" }, kind: EventKind.UNSPECIFIED })))).toBe("INVALID_ENUM");
    const state = await c.getState({ scope: { user: "v" } });
    expect(state.interactionCount).toBe(0n);
    expect(state.user).toMatchObject({ trust: 0.5, sentiment: 0.5, grudge: 0, familiarity: 0 });
  });
});

describe("replaying history with `at` (Table 14 over the API)", () => {
  const scope = { user: "replay" };

  it("10 neutral turns → trust 0.60, familiarity 0.05, grudge 0, relation_bias = trust × familiarity", async () => {
    const c = t.client(RelationalService);
    let last;
    for (let i = 0; i < 10; i++) {
      last = await c.process({ scope, message: `We talked about the garden, note ${i}.`, at: at(T0 + i * MINUTE) });
    }
    expect(last!.user).toEqual(expect.objectContaining({ trust: 0.6, familiarity: 0.05, grudge: 0, sentiment: 0.5 }));
    expect(last!.context?.relationBias).toBeCloseTo(0.6 * 0.05, 12);
    expect(last!.context?.toneGrudgeModifier).toBe("");
    expect(last!.memory?.interactionCount).toBe(10n);
    expect(timestampDate(last!.memory!.lastSeen!).getTime()).toBe(T0 + 9 * MINUTE);
  });

  it("three furious shouted turns a minute apart → grudge ≈ 0.45 and tone cautious", async () => {
    const c = t.client(RelationalService);
    let last;
    for (let i = 0; i < 3; i++) {
      last = await c.process({ scope, message: `THIS IS UNACCEPTABLE, I AM FURIOUS WITH YOU (${i})!!!`, at: at(T0 + (20 + i) * MINUTE) });
      expect(last.context).toMatchObject({ shouting: true, detectedEmotions: ["anger"], intent: "complaint" });
    }
    expect(last!.user!.grudge).toBeCloseTo(0.45, 3);
    expect(last!.user!.grudge).toBeLessThan(0.45);
    expect(last!.context?.toneGrudgeModifier).toBe("cautious");
    expect(last!.context?.systemPrompt).toContain("Tone: cautious.");
  });

  it("12 h later the grudge has halved and the tone is cleared", async () => {
    const c = t.client(RelationalService);
    const before = await c.getState({ scope });
    const lastSeen = timestampDate(before.lastSeen!).getTime();
    clock.set(new Date(lastSeen + 12 * HOUR));
    const after = await c.getState({ scope });
    expect(after.user!.grudge).toBeCloseTo(before.user!.grudge / 2, 6);
    const turn = await c.process({ scope, message: "Hello again.", at: at(lastSeen + 12 * HOUR) });
    expect(turn.user!.grudge).toBeCloseTo(before.user!.grudge / 2, 6);
    expect(turn.context?.toneGrudgeModifier).toBe("");
    expect(turn.context?.systemPrompt).not.toContain("Tone:");
  });

  it("a time before last_seen is INVALID_ARGUMENT and changes nothing", async () => {
    const c = t.client(RelationalService);
    const before = await c.getState({ scope });
    const err = await failure(c.process({ scope, message: "back in time", at: at(T0) }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(reasonOf(err)).toBe("AT_BEFORE_LAST_SEEN");
    const after = await c.getState({ scope });
    expect(after.interactionCount).toBe(before.interactionCount);
    expect(after.user).toEqual(before.user);
  });
});

describe("RecordEvent: broken promises by trust band", () => {
  it("costs exactly 0.05 in [0.4, 0.7), 0.02 below 0.4, 0.10 from 0.7", async () => {
    const c = t.client(RelationalService);
    const mid = await c.recordEvent({ scope: { user: "promise-mid" }, kind: EventKind.BROKEN_PROMISE });
    expect(mid.user!.trust).toBe(0.45);
    const low = { user: "promise-low" };
    let trust = 0.5;
    for (const expected of [0.45, 0.4, 0.35, 0.33, 0.31]) {
      trust = (await c.recordEvent({ scope: low, kind: EventKind.BROKEN_PROMISE })).user!.trust;
      expect(trust).toBe(expected);
    }
    const high = { user: "promise-high" };
    for (let i = 0; i < 10; i++) await c.recordEvent({ scope: high, kind: EventKind.PROMISE_KEPT });
    expect((await c.getState({ scope: high })).user!.trust).toBe(0.7);
    expect((await c.recordEvent({ scope: high, kind: EventKind.BROKEN_PROMISE })).user!.trust).toBe(0.6);
    expect((await c.recordEvent({ scope: high, kind: EventKind.BROKEN_PROMISE })).user!.trust).toBe(0.55);
  });

  it("applies apology and complaint events to the grudge", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "events" };
    expect((await c.recordEvent({ scope, kind: EventKind.COMPLAINT, note: "ticket 42" })).user!.grudge).toBe(0.1);
    expect((await c.recordEvent({ scope, kind: EventKind.APOLOGY_ACCEPTED })).user!.grudge).toBe(0);
  });
});

describe("concurrency", () => {
  it("12 concurrent Process calls and events for one end-user lose no update", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "busy" };
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => c.process({ scope, message: `message number ${i}` })),
      c.recordEvent({ scope, kind: EventKind.COMPLAINT }),
      c.recordEvent({ scope, kind: EventKind.COMPLAINT }),
    ]);
    const state = await c.getState({ scope });
    expect(state.interactionCount).toBe(12n);
    expect(state.user).toMatchObject({ trust: 0.62, familiarity: 0.06 });
    expect(state.user!.grudge).toBeCloseTo(0.2, 6);
  });
});

describe("third parties", () => {
  it("fills (user, person) rows from mentions with relation, running sentiment and mention count", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "family" };
    const day2 = T0 + 48 * HOUR;
    await c.process({ scope, message: "My boss Tom is awful and I hate working for him.", at: at(day2) });
    await c.process({ scope, message: "I love my mother, she is wonderful. My daughter Lea starts school.", at: at(day2 + MINUTE) });
    await c.process({ scope, message: "My boss Tom said the project went well, which was nice.", at: at(day2 + 2 * MINUTE) });
    const list = await c.listThirdParties({ scope });
    const byPerson = new Map(list.thirdParties.map((p) => [p.person, p]));
    expect([...byPerson.keys()].sort()).toEqual(["Lea", "Tom", "mother"]);
    expect(list.thirdParties[0].person).toBe("Tom");
    expect(byPerson.get("Tom")).toMatchObject({ relation: "boss", mentions: 2n });
    expect(byPerson.get("mother")).toMatchObject({ relation: "mother", mentions: 1n });
    expect(byPerson.get("mother")!.sentiment).toBeGreaterThan(0.5);
    expect(byPerson.get("Lea")!.relation).toBe("daughter");
    const tom = byPerson.get("Tom")!;
    expect(tom.sentiment).toBeGreaterThan(-1);
    expect(tom.sentiment).toBeLessThan(byPerson.get("mother")!.sentiment);
    expect(timestampDate(tom.lastMentioned!).getTime()).toBe(day2 + 2 * MINUTE);
  });

  it("upserts explicitly and pages with opaque tokens", async () => {
    const c = t.client(RelationalService);
    const scope = { user: "pager" };
    for (const person of ["Ann", "Bob", "Cat", "Dan", "Eve"]) {
      await c.upsertThirdParty({ scope, thirdParty: { person, relation: "friend", sentiment: 0.2, mentions: 1n } });
    }
    const updated = await c.upsertThirdParty({ scope, thirdParty: { person: "ann", sentiment: -0.5 } });
    expect(updated.thirdParty).toMatchObject({ person: "Ann", relation: "friend", sentiment: -0.5, mentions: 1n });
    const seen: string[] = [];
    let token = "";
    do {
      const page = await c.listThirdParties({ scope, pageSize: 2, pageToken: token });
      seen.push(...page.thirdParties.map((p) => p.person));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual(["Ann", "Bob", "Cat", "Dan", "Eve"]);
    expect(reasonOf(await failure(c.upsertThirdParty({ scope, thirdParty: { person: "Zed", sentiment: 2 } })))).toBe("INVALID_SENTIMENT");
    expect(reasonOf(await failure(c.listThirdParties({ scope: { user: "other" }, pageToken: (await c.listThirdParties({ scope, pageSize: 1 })).nextPageToken })))).toBe("INVALID_PAGE_TOKEN");
  });
});

describe("isolation", () => {
  it("never shows one end-user's memories, state or people to another", async () => {
    const c = t.client(RelationalService);
    await c.process({ scope: { user: "iso-a" }, message: "My sister Ana has a secret recipe for lemon cake" });
    const b = await c.process({ scope: { user: "iso-b" }, message: "My sister Ana has a secret recipe for lemon cake", minSimilarity: 0 });
    expect(b.memory?.relevantMemories).toEqual([]);
    expect(b.memory?.totalStored).toBe(1n);
    expect(b.memory?.interactionCount).toBe(1n);
    const ana = (await c.listThirdParties({ scope: { user: "iso-b" } })).thirdParties;
    expect(ana.map((p) => [p.person, p.mentions])).toEqual([["Ana", 1n]]);
  });

  it("keeps tenants apart and enforces roles", async () => {
    const keys = "key-tenant-one-write:one:write,key-tenant-two-write:two:write,key-tenant-one-read-:one:read";
    const app = await createTestApp({ apiKeys: keys });
    try {
      const one = app.client(RelationalService, "key-tenant-one-write");
      const two = app.client(RelationalService, "key-tenant-two-write");
      await one.process({ scope: { user: "sam" }, message: "I'm furious, you lost my parcel again" });
      const inTwo = await two.process({ scope: { user: "sam" }, message: "I'm furious, you lost my parcel again", minSimilarity: 0 });
      expect(inTwo.memory?.relevantMemories).toEqual([]);
      expect(inTwo.memory?.interactionCount).toBe(1n);
      const denied = await failure(one.getState({ scope: { tenant: "two", user: "sam" } }));
      expect(denied.code).toBe(Code.PermissionDenied);
      const reader = app.client(RelationalService, "key-tenant-one-read-");
      expect((await reader.getState({ scope: { user: "sam" } })).interactionCount).toBe(1n);
      expect((await failure(reader.process({ scope: { user: "sam" }, message: "hi" }))).code).toBe(Code.PermissionDenied);
      expect((await failure(app.client(RelationalService, "wrong-key-wrong-key").getState({ scope: { user: "sam" } }))).code).toBe(Code.Unauthenticated);
    } finally {
      await app.close();
    }
  });
});
