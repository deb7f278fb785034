import { toJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FactType } from "../../src/gen/agentmem/v1/common_pb.js";
import { DriftService } from "../../src/gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { ExportResponseSchema, PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { keyIdOf } from "../../src/server/auth.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const ADMIN = "admin-key-aaaaaaaaaaaa0001";
const WRITER = "write-key-aaaaaaaaaaaa0001";
const READER = "read-key-aaaaaaaaaaaaa0001";
const OTHER_ADMIN = "admin-key-bbbbbbbbbbbb0001";
const KEYS = `${ADMIN}:north:admin,${WRITER}:north:write,${READER}:north:read,${OTHER_ADMIN}:south:admin`;
const plainJson = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ apiKeys: KEYS });
});
afterAll(() => t.close());

describe("audit trail", () => {
  it("records every write and admin call (actor, operation, scope, outcome, counts) but no read and no content", async () => {
    const memory = t.client(MemoryService, WRITER);
    await memory.remember({ scope: { user: "ana" }, content: "Ana's door code is 4471" });
    await memory.rememberBatch({ items: [1, 2, 3].map((i) => ({ scope: { user: "ana", session: "s1" }, content: `Ana note ${i}` })) });
    await memory.remember({ scope: { user: "ana" }, content: "" }).catch(() => undefined);
    await memory.forget({ scope: { user: "ana", session: "s1" } });
    await t.client(MemoryService, READER).recall({ scope: { user: "ana" }, query: "door code" });
    await t.client(PrivacyService, ADMIN).getRetention({});

    const page = await t.client(PrivacyService, ADMIN).listAudit({ pageSize: 5 });
    expect(page.records.map((r) => [r.operation.split("/")[1], r.outcome])).toEqual([
      ["GetRetention", "OK"],
      ["Forget", "OK"],
      ["Remember", "INVALID_ARGUMENT"],
      ["RememberBatch", "OK"],
      ["Remember", "OK"],
    ]);
    const [retention, forget, failed, batch, remember] = page.records;
    expect(retention.actor).toBe(keyIdOf(ADMIN));
    expect(remember.actor).toBe(keyIdOf(WRITER));
    expect(remember.scope).toMatchObject({ tenant: "north", user: "ana", session: "" });
    expect(batch.scope).toMatchObject({ user: "ana", session: "s1" });
    expect(batch.counts.memory_ids).toBe(3n);
    expect(forget.counts.deleted).toBe(3n);
    expect(failed.counts).toEqual({ refused: 1n });
    const json = plainJson(page.records);
    expect(json).not.toContain("4471");
    expect(json).not.toContain(WRITER);
    expect(json).not.toContain(ADMIN);
  });

  it("pages newest first with opaque tokens bound to the caller's tenant", async () => {
    const admin = t.client(PrivacyService, ADMIN);
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await admin.listAudit({ pageSize: 2, pageToken: token });
      seen.push(...page.records.map((r) => r.id));
      token = page.nextPageToken;
      if (pages++ === 0) {
        expect(token).not.toBe("");
        expect(token).not.toMatch(/^\d+$/);
        await expect(t.client(PrivacyService, OTHER_ADMIN).listAudit({ pageToken: token })).rejects.toSatisfy(
          (e) => ConnectError.from(e).code === Code.InvalidArgument,
        );
      }
    } while (token);
    // Each ListAudit is audited too; a cursor keeps pages from shifting as records arrive.
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect(seen.length).toBeGreaterThanOrEqual(6);
    await expect(admin.listAudit({ pageToken: "bm90LWEtdG9rZW4" })).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.InvalidArgument);
    const south = await t.client(PrivacyService, OTHER_ADMIN).listAudit({ pageSize: 100 });
    expect(south.records.every((r) => r.scope?.tenant === "south" && r.actor === keyIdOf(OTHER_ADMIN))).toBe(true);
    await expect(t.client(PrivacyService, WRITER).listAudit({})).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.PermissionDenied);
  });
});

describe("audit of data writes", () => {
  it("lists the record of every write answered, though a write does not wait for its record", async () => {
    const memory = t.client(MemoryService, WRITER);
    const users = Array.from({ length: 30 }, (_, i) => `walk-in-${i}`);
    // A write answers once its own rows are durable; its audit record commits right behind it.
    await Promise.all(users.map((user) => memory.remember({ scope: { user }, content: `${user} came in today` })));
    const { records } = await t.client(PrivacyService, ADMIN).listAudit({ pageSize: 1000 });
    const listed = records.filter((r) => r.operation.endsWith("/Remember") && r.scope?.user.startsWith("walk-in-")).map((r) => r.scope!.user);
    expect(listed.sort()).toEqual([...users].sort());
  });
});

describe("audit of refused calls", () => {
  it("records a call the key's role refuses, with that key, and nothing for callers without a valid key", async () => {
    await t.client(PrivacyService, WRITER).erase({ externalId: "ana" }).catch(() => undefined);
    await t.client(PrivacyService, "not-a-valid-key-0000000000").erase({ externalId: "ana" }).catch(() => undefined);
    await t.client(MemoryService).remember({ scope: { tenant: "north", user: "ana" }, content: "no key" }).catch(() => undefined);
    const { records } = await t.client(PrivacyService, ADMIN).listAudit({ pageSize: 1000 });
    expect(records[0]).toMatchObject({ operation: "agentmem.v1.PrivacyService/Erase", outcome: "PERMISSION_DENIED", actor: keyIdOf(WRITER) });
    expect(records[0].scope?.user).toBe("ana");
    expect(records.filter((r) => r.actor === "anonymous" || r.actor === "")).toEqual([]);
  });
});

describe("Export", () => {
  it("returns every record about the end-user as readable JSON, complete enough to re-import", async () => {
    const memory = t.client(MemoryService, WRITER);
    const scope = { user: "bo", namespace: "ward-3" };
    await memory.remember({ scope, content: "Bo takes warfarin every evening", pinned: true, tags: { kind: "medication" }, factType: FactType.EVENT });
    await memory.remember({ scope, content: "Bo prefers tea with milk", role: "user", channel: "sms", observedAt: { seconds: 1_767_225_600n, nanos: 0 } });
    await t.client(RelationalService, WRITER).process({ scope, message: "My daughter Lea visits on Sundays, I love it" });
    await t.client(DriftService, WRITER).check({ scope, goal: "Support Bo's medication routine", constraints: ["no dosage advice"] });
    await memory.remember({ scope: { user: "cy" }, content: "Cy is someone else entirely" });

    const exported = await t.client(PrivacyService, ADMIN).export({ externalId: "bo" });
    expect(exported.externalId).toBe("bo");
    expect(exported.memories.map((m) => m.text)).toContain("Bo takes warfarin every evening");
    expect(exported.memories.find((m) => m.pinned)).toMatchObject({ tags: { kind: "medication" }, factType: FactType.EVENT });
    expect(exported.episodes.map((e) => e.content)).toEqual(expect.arrayContaining(["Bo prefers tea with milk"]));
    expect(exported.relation?.interactionCount).toBe(1n);
    expect(exported.thirdParties.map((p) => p.relation)).toContain("daughter");
    expect(exported.anchors[0]).toMatchObject({ goal: "Support Bo's medication routine", constraints: ["no dosage advice"] });
    const kinds = exported.tables.map((tb) => tb.kind);
    expect(kinds).toEqual(expect.arrayContaining(["anchors", "episodes", "memories", "relations", "third_parties"]));
    for (const table of exported.tables) {
      for (const row of table.rows) {
        expect(row.user).toBe("bo");
        expect(row).not.toHaveProperty("vector");
      }
    }
    const json = toJsonString(ExportResponseSchema, exported);
    expect(json).toContain("Bo takes warfarin every evening");
    expect(json).not.toContain("Cy is someone else");
    expect(JSON.parse(json).episodes[0].observedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Re-import: the transcript, with each turn's memory settings from the stored rows, into a new end-user.
    const memoriesById = new Map(exported.tables.find((tb) => tb.kind === "memories")!.rows.map((r) => [String(r.id), r]));
    const episodeRows = exported.tables.find((tb) => tb.kind === "episodes")!.rows;
    const items = exported.episodes.map((e) => {
      const stored = memoriesById.get(String(episodeRows.find((r) => r.id === e.id)?.memory_id));
      return {
        scope: { namespace: e.scope?.namespace, user: "bo-restored" },
        content: e.content,
        role: e.role,
        name: e.name,
        channel: e.channel,
        observedAt: e.observedAt,
        traceNumber: e.traceNumber,
        pinned: stored?.pinned === true,
        tags: JSON.parse(String(stored?.tags_json ?? "{}")) as Record<string, string>,
        factType: exported.memories.find((m) => m.id === stored?.id)?.factType,
      };
    });
    await memory.rememberBatch({ items });
    const restored = await t.client(PrivacyService, ADMIN).export({ externalId: "bo-restored" });
    const shape = (x: typeof exported) => ({
      memories: x.memories.map((m) => [m.text, m.pinned, m.tags, m.factType, m.validFrom?.seconds]).sort(),
      episodes: x.episodes.map((e) => [e.content, e.role, e.channel, e.observedAt?.seconds, e.traceNumber]),
    });
    expect(shape(restored)).toEqual(shape(exported));
  });

  it("is admin only and validates the end-user id", async () => {
    await expect(t.client(PrivacyService, WRITER).export({ externalId: "bo" })).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.PermissionDenied);
    await expect(t.client(PrivacyService, ADMIN).export({ externalId: "bo' OR user <> '" })).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.InvalidArgument);
    await expect(t.client(PrivacyService, ADMIN).export({ externalId: "bo", tenant: "south" })).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.PermissionDenied);
    expect((await t.client(PrivacyService, OTHER_ADMIN).export({ externalId: "bo" })).memories).toEqual([]);
  });
});
