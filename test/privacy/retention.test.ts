import { Code, ConnectError } from "@connectrpc/connect";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Plan } from "../../src/gen/agentmem/v1/common_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { createManualClock } from "../../src/ports/clock.js";
import { RetentionPolicy } from "../../src/services/privacy/retention-policy.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const ADMIN = "admin-key-rrrrrrrrrrrrrrrr";
const OTHER_ADMIN = "admin-key-ssssssssssssssss";
const clock = createManualClock(new Date("2026-03-01T08:00:00Z"));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ apiKeys: `${ADMIN}:carehome:admin,${OTHER_ADMIN}:bigco:admin`, clock });
});
afterAll(() => t.close());

const codeOf = (e: unknown) => ConnectError.from(e).code;

describe("retention plans", () => {
  it("defaults to enterprise (unlimited), is per tenant, and refuses an unspecified plan", async () => {
    const privacy = t.client(PrivacyService, ADMIN);
    expect(await privacy.getRetention({})).toMatchObject({ plan: Plan.ENTERPRISE, maxMessages: 0n });
    expect((await privacy.setRetention({ plan: Plan.CLINIC })).plan).toBe(Plan.CLINIC);
    expect(await privacy.getRetention({})).toMatchObject({ plan: Plan.CLINIC, maxMessages: 5000n });
    expect((await t.client(PrivacyService, OTHER_ADMIN).getRetention({})).plan).toBe(Plan.ENTERPRISE);
    for (const plan of [Plan.UNSPECIFIED, 99 as Plan]) {
      await expect(privacy.setRetention({ plan })).rejects.toSatisfy((e) => codeOf(e) === Code.InvalidArgument);
    }
    expect((await privacy.getRetention({})).plan).toBe(Plan.CLINIC);
  });

  it("under PLAN_COMMUNITY keeps the 500 newest of 530 Process turns, the pinned memory and the interaction count", { timeout: 240_000 }, async () => {
    const privacy = t.client(PrivacyService, ADMIN);
    const memory = t.client(MemoryService, ADMIN);
    const relational = t.client(RelationalService, ADMIN);
    await privacy.setRetention({ plan: Plan.COMMUNITY });
    const scope = { user: "resident_7" };
    await memory.remember({ scope, content: "Allergic to penicillin (pinned by the nurse)", pinned: true });
    await memory.remember({ scope: { user: "resident_8" }, content: "Likes the garden room" });
    // Waves of 10 concurrent turns, a minute apart: the cap is enforced after each one while
    // others are in flight. A turn's order is its time, then its interaction number.
    const order = new Map<string, bigint>();
    for (let wave = 0; wave < 53; wave++) {
      clock.advance(60_000);
      await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const message = `Visit number ${wave * 10 + j}: we talked about the garden and the weather`;
          const res = await relational.process({ scope, message });
          order.set(message, BigInt(wave) * 1_000_000n + (res.memory?.interactionCount ?? 0n));
        }),
      );
    }
    const newest = [...order.entries()].sort((a, b) => (a[1] < b[1] ? -1 : 1)).slice(30).map(([m]) => m);
    const history = await memory.history({ scope, size: 1000 });
    expect(history.total).toBe(500n);
    expect(history.turns.map((turn) => turn.content.split("\nAssistant:")[0].replace(/^User: /, ""))).toEqual(newest);
    const memories = await memory.listMemories({ scope, pageSize: 1000 });
    expect(memories.memories.filter((m) => !m.pinned).length).toBe(500);
    expect(memories.memories.filter((m) => m.pinned).map((m) => m.text)).toEqual(["Allergic to penicillin (pinned by the nurse)"]);
    expect((await relational.getState({ scope })).interactionCount).toBe(530n);
    expect((await memory.history({ scope: { user: "resident_8" } })).total).toBe(1n);
  });

  it("also caps turns stored by Add", async () => {
    const memory = t.client(MemoryService, ADMIN);
    await t.client(PrivacyService, ADMIN).setRetention({ plan: Plan.COMMUNITY });
    const scope = { user: "resident_9" };
    const old = Array.from({ length: 499 }, (_, i) => ({ scope, content: `old note ${i}`, observedAt: { seconds: BigInt(1_700_000_000 + i), nanos: 0 } }));
    await memory.rememberBatch({ items: old });
    await memory.add({ scope, messages: [1, 2, 3].map((i) => ({ role: "user", content: `I moved to Leeds, message ${i}` })) });
    const history = await memory.history({ scope, size: 1000 });
    expect(history.total).toBe(500n);
    expect(history.turns[0].content).toBe("old note 2");
    expect(history.turns.slice(-3).map((turn) => turn.content)).toEqual([1, 2, 3].map((i) => `I moved to Leeds, message ${i}`));
  });

  it("Sweep trims every end-user of the tenant to the cap after a plan change", async () => {
    const admin = t.client(PrivacyService, OTHER_ADMIN);
    const memory = t.client(MemoryService, OTHER_ADMIN);
    const items = (user: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ scope: { user }, content: `${user} message ${i}`, observedAt: { seconds: BigInt(1_700_000_000 + i), nanos: 0 } }));
    await memory.rememberBatch({ items: [...items("a", 520), ...items("b", 40)] });
    expect((await memory.history({ scope: { user: "a" } })).total).toBe(520n);
    await admin.setRetention({ plan: Plan.COMMUNITY });
    const swept = await admin.sweep({});
    expect(swept).toMatchObject({ episodes: 20n, memories: 20n, usersTrimmed: 1n });
    const a = await memory.history({ scope: { user: "a" }, size: 1 });
    expect(a.total).toBe(500n);
    expect(a.turns[0].content).toBe("a message 20");
    expect((await memory.history({ scope: { user: "b" } })).total).toBe(40n);
    expect(await admin.sweep({})).toMatchObject({ episodes: 0n, memories: 0n, usersTrimmed: 0n });
    const audit = await admin.listAudit({ pageSize: 3 });
    expect(audit.records.find((r) => r.operation.endsWith("/Sweep") && r.counts.episodes === 20n)).toBeDefined();
  });

  it("runs on a schedule", async () => {
    const policy = new RetentionPolicy(t.app.deps.store, clock, pino({ level: "silent" }));
    const memory = t.client(MemoryService, OTHER_ADMIN);
    await t.client(PrivacyService, OTHER_ADMIN).setRetention({ plan: Plan.ENTERPRISE });
    await memory.rememberBatch({ items: Array.from({ length: 505 }, (_, i) => ({ scope: { user: "c" }, content: `c message ${i}` })) });
    await t.client(PrivacyService, OTHER_ADMIN).setRetention({ plan: Plan.COMMUNITY });
    policy.start(50);
    await expect.poll(async () => (await memory.history({ scope: { user: "c" } })).total, { timeout: 10_000, interval: 100 }).toBe(500n);
    await policy.stop();
  });
});
