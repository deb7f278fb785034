import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FactType, Plan } from "../../src/gen/agentmem/v1/common_pb.js";
import { DriftService } from "../../src/gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { tenantDigest } from "../support/data-digest.js";
import { createTestApp, type TestApp } from "../support/harness.js";
import { INJECTIONS } from "../support/hostile.js";

const A_ADMIN = "a-admin-key-0000000000000";
const A_WRITE = "a-write-key-0000000000000";
const A_READ = "a-read-key-00000000000000";
const B_ADMIN = "b-admin-key-0000000000000";
const B_WRITE = "b-write-key-0000000000000";
const KEYS = [`${A_ADMIN}:acme:admin`, `${A_WRITE}:acme:write`, `${A_READ}:acme:read`, `${B_ADMIN}:beta:admin`, `${B_WRITE}:beta:write`].join(",");
const SECRET = "alice's insulin dose is 12 units";

let t: TestApp;
let aMemoryId = "";
let digestBefore = "";
beforeAll(async () => {
  t = await createTestApp({ apiKeys: KEYS });
  const memory = t.client(MemoryService, A_WRITE);
  aMemoryId = (await memory.remember({ scope: { user: "alice", session: "s1" }, content: SECRET })).memoryId;
  await memory.remember({ scope: { user: "ann" }, content: "ann likes crosswords" });
  await t.client(RelationalService, A_WRITE).process({ scope: { user: "alice" }, message: "My son Leo worries about me" });
  await t.client(DriftService, A_WRITE).check({ scope: { user: "alice" }, goal: "manage diabetes" });
  await t.client(MemoryService, B_WRITE).remember({ scope: { user: "bob" }, content: "bob is in tenant beta" });
  digestBefore = await tenantDigest(await t.app.store.connect(), "acme");
});
afterAll(() => t.close());

type Call = () => Promise<unknown>;

async function codeOf(call: Call): Promise<Code | "OK"> {
  try {
    await call();
    return "OK";
  } catch (error) {
    return ConnectError.from(error).code;
  }
}
const leaks = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)).includes("insulin");

describe("tenants, roles and keys", () => {
  it("tenant B cannot name tenant A anywhere (PERMISSION_DENIED) and sees none of A's data by A's ids", async () => {
    const memory = t.client(MemoryService, B_ADMIN);
    const scope = { tenant: "acme", user: "alice" };
    const named: Call[] = [
      () => memory.recall({ scope, query: "insulin" }),
      () => memory.history({ scope }),
      () => memory.listMemories({ scope }),
      () => memory.getMemory({ scope, id: aMemoryId }),
      () => memory.remember({ scope, content: "planted by beta" }),
      () => memory.forget({ scope }),
      () => memory.rememberBatch({ items: [{ scope, content: "planted" }] }),
      () => t.client(RelationalService, B_ADMIN).getState({ scope }),
      () => t.client(RelationalService, B_ADMIN).process({ scope, message: "hi" }),
      () => t.client(DriftService, B_ADMIN).getAnchors({ scope }),
      () => t.client(PrivacyService, B_ADMIN).export({ tenant: "acme", externalId: "alice" }),
      () => t.client(PrivacyService, B_ADMIN).erase({ tenant: "acme", externalId: "alice" }),
    ];
    for (const call of named) expect(await codeOf(call)).toBe(Code.PermissionDenied);

    const own = { user: "alice" };
    expect((await memory.recall({ scope: own, query: "insulin dose" })).hits).toEqual([]);
    expect((await memory.history({ scope: own })).turns).toEqual([]);
    expect(await codeOf(() => memory.getMemory({ scope: {}, id: aMemoryId }))).toBe(Code.NotFound);
    expect((await t.client(RelationalService, B_ADMIN).getState({ scope: own })).interactionCount).toBe(0n);
    expect(leaks(await t.client(PrivacyService, B_ADMIN).export({ externalId: "alice" }))).toBe(false);
    expect(leaks(await t.client(PrivacyService, B_ADMIN).listAudit({ pageSize: 1000 }))).toBe(false);
  });

  it("a read key cannot write, a write key cannot erase or read the audit, no or a wrong key is UNAUTHENTICATED", async () => {
    expect(await codeOf(() => t.client(MemoryService, A_READ).remember({ scope: { user: "alice" }, content: "x" }))).toBe(Code.PermissionDenied);
    expect(await codeOf(() => t.client(MemoryService, A_READ).forget({ scope: { user: "alice" } }))).toBe(Code.PermissionDenied);
    expect(await codeOf(() => t.client(RelationalService, A_READ).process({ scope: { user: "alice" }, message: "x" }))).toBe(Code.PermissionDenied);
    expect(await codeOf(() => t.client(PrivacyService, A_WRITE).erase({ externalId: "alice" }))).toBe(Code.PermissionDenied);
    expect(await codeOf(() => t.client(PrivacyService, A_WRITE).export({ externalId: "alice" }))).toBe(Code.PermissionDenied);
    expect(await codeOf(() => t.client(PrivacyService, A_WRITE).listAudit({}))).toBe(Code.PermissionDenied);
    expect(await codeOf(() => t.client(PrivacyService, A_WRITE).setRetention({ plan: 1 }))).toBe(Code.PermissionDenied);
    for (const key of [undefined, "not-a-key-at-all-00000000", `${A_ADMIN}x`, A_ADMIN.slice(0, -1)]) {
      expect(await codeOf(() => t.client(MemoryService, key).recall({ scope: { user: "alice" }, query: "insulin" }))).toBe(Code.Unauthenticated);
      expect(await codeOf(() => t.client(PrivacyService, key).erase({ externalId: "alice" }))).toBe(Code.Unauthenticated);
    }
    expect(await codeOf(() => t.client(MemoryService, A_READ).recall({ scope: { user: "alice" }, query: "insulin" }))).toBe("OK");
  });

  it("filter injection in every scope field and id leaks nothing and changes nothing", async () => {
    const memory = t.client(MemoryService, A_ADMIN);
    const relational = t.client(RelationalService, A_ADMIN);
    let calls = 0;
    for (const evil of INJECTIONS) {
      for (const field of ["namespace", "agent", "session", "user"] as const) {
        const scope = { [field]: evil };
        const attempts: Call[] = [
          () => memory.recall({ scope, query: "insulin dose" }),
          () => memory.history({ scope }),
          () => memory.listMemories({ scope }),
          () => memory.forget({ scope }),
          () => memory.getMemory({ scope, id: aMemoryId }),
          () => relational.getState({ scope: { user: "alice", ...scope } }),
          () => t.client(DriftService, A_ADMIN).getAnchors({ scope }),
        ];
        for (const attempt of attempts) {
          calls++;
          const outcome = await attempt().then(
            (res) => ({ ok: true as const, res }),
            (e: unknown) => ({ ok: false as const, e: ConnectError.from(e) }),
          );
          if (outcome.ok) expect(leaks(outcome.res), `${field}=${evil}`).toBe(false);
          else if (outcome.e.code !== Code.NotFound) {
            expect(outcome.e.code, `${field}=${evil}`).toBe(Code.InvalidArgument);
            expect(outcome.e.findDetails(ErrorInfoSchema)[0]?.reason).toBe("INVALID_SCOPE");
          }
        }
      }
      for (const attempt of [
        () => memory.getMemory({ scope: {}, id: evil }),
        () => memory.memoryHistory({ scope: {}, id: evil }),
        () => t.client(PrivacyService, A_ADMIN).export({ externalId: evil }),
        () => t.client(PrivacyService, A_ADMIN).erase({ externalId: evil }),
        () => memory.recall({ scope: { tenant: evil }, query: "insulin" }),
      ]) {
        calls++;
        const outcome = await attempt().then(
          (res) => ({ ok: true as const, res }),
          (e: unknown) => ({ ok: false as const, e: ConnectError.from(e) }),
        );
        if (outcome.ok) expect(leaks(outcome.res), `id=${evil}`).toBe(false);
        else expect([Code.InvalidArgument, Code.NotFound, Code.PermissionDenied], `id=${evil}`).toContain(outcome.e.code);
      }
    }
    expect(calls).toBeGreaterThan(400);
    expect((await memory.recall({ scope: { user: "alice" }, query: "insulin dose" })).hits[0]?.memory).toBe(SECRET);
  });

  it("oversized content, absurd k, batches and budgets, bad times and enums are refused with a reason", async () => {
    const memory = t.client(MemoryService, A_ADMIN);
    const refusals: [Call, Code][] = [
      [() => memory.remember({ scope: { user: "alice" }, content: "x".repeat(32_769) }), Code.InvalidArgument],
      [() => memory.recall({ scope: { user: "alice" }, query: "insulin", k: 101 }), Code.InvalidArgument],
      [() => memory.recall({ scope: { user: "alice" }, query: "insulin", k: 2_000_000_000 }), Code.InvalidArgument],
      [() => memory.recall({ scope: { user: "alice" }, query: "insulin", k: -1 }), Code.InvalidArgument],
      [() => memory.recall({ scope: { user: "alice" }, query: "q".repeat(4_097) }), Code.InvalidArgument],
      [() => memory.search({ scope: { user: "alice" }, query: "insulin", k: 101 }), Code.InvalidArgument],
      [() => memory.promptBlock({ scope: { user: "alice" }, query: "insulin", budgetTokens: 10_000_000 }), Code.InvalidArgument],
      [() => memory.rememberBatch({ items: Array.from({ length: 1_001 }, () => ({ scope: { user: "alice" }, content: "x" })) }), Code.InvalidArgument],
      [() => memory.remember({ scope: { user: "alice" }, content: "ok", tags: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) }), Code.InvalidArgument],
      [() => t.client(RelationalService, A_ADMIN).process({ scope: { user: "alice" }, message: "m".repeat(32_769) }), Code.InvalidArgument],
      [() => t.client(PrivacyService, A_ADMIN).listAudit({ pageSize: 1_000_000 }), Code.InvalidArgument],
      [() => memory.remember({ scope: { user: "alice" }, content: "ok", observedAt: { seconds: 253_402_300_800n, nanos: 0 } }), Code.InvalidArgument],
      [() => memory.remember({ scope: { user: "alice" }, content: "ok", observedAt: { seconds: 0n, nanos: -1 } }), Code.InvalidArgument],
      [() => memory.remember({ scope: { user: "alice" }, content: "ok", factType: 99 as FactType }), Code.InvalidArgument],
      [() => memory.recall({ scope: { user: "alice" }, query: "insulin", factTypes: [42 as FactType] }), Code.InvalidArgument],
      [() => t.client(PrivacyService, A_ADMIN).setRetention({ plan: 99 as Plan }), Code.InvalidArgument],
    ];
    for (const [attempt, expected] of refusals) {
      const error = await attempt().then(() => null, (e: unknown) => ConnectError.from(e));
      expect(error?.code, error?.message).toBe(expected);
      expect(error?.findDetails(ErrorInfoSchema)[0]?.reason).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
  });

  it("leaves tenant A's data exactly as it was", async () => {
    expect(await tenantDigest(await t.app.store.connect(), "acme")).toBe(digestBefore);
    expect((await t.client(MemoryService, B_ADMIN).history({ scope: { user: "bob" } })).total).toBe(1n);
  });
});
