import type { Field, Schema } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrow } from "../../src/adapters/lancedb/arrow.js";
import { TABLE_KINDS } from "../../src/adapters/lancedb/lance-store.js";
import { encodeTenant } from "../../src/adapters/lancedb/table-names.js";
import { ConversationService } from "../../src/gen/agentmem/v1/conversation_service_pb.js";
import { DriftService } from "../../src/gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { filesContaining } from "../support/byte-scan.js";
import { createTestApp, type TestApp } from "../support/harness.js";

// Tables that hold no rows about an end-user, and why. A new table must either have a `user`
// column (then Erase and Export cover it without any change) or be listed here with a reason.
const NOT_PERSONAL: Record<string, string> = {
  usage: "per-tenant provider counters, no end-user",
  audit: "the proof of erasures and other calls; scope only, never content (kept on erasure)",
  retention: "the tenant's plan",
};

const TENANT = "coverage";
const GHOST = "ghost_user_7f3a";
const MARK = "qvzxghostmark";

/** A row for any schema: every text cell carries the mark, `user` is the ghost. */
function syntheticRow(schema: Schema, kind: string): Record<string, unknown> {
  const cell = (f: Field): unknown => {
    const t = f.type;
    if (f.name === "id") return `${kind}-${MARK}`;
    if (f.name === "user") return GHOST;
    if (arrow.DataType.isUtf8(t)) return f.name.endsWith("_json") ? JSON.stringify({ mark: MARK }) : `${MARK} ${f.name}`;
    if (arrow.DataType.isBool(t)) return false;
    if (arrow.DataType.isInt(t) || arrow.DataType.isFloat(t)) return 1;
    if (arrow.DataType.isFixedSizeList(t)) return Array.from({ length: t.listSize }, () => 0.5);
    if (arrow.DataType.isList(t)) return arrow.DataType.isUtf8(t.children[0].type) ? [MARK] : [0.5];
    throw new Error(`synthetic row: no value for ${kind}.${f.name} (${String(t)}); extend syntheticRow`);
  };
  return Object.fromEntries(schema.fields.map((f) => [f.name, cell(f)]));
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("every table with end-user data is erased", () => {
  it("each known table kind has a `user` column or is declared not personal", () => {
    for (const kind of TABLE_KINDS) {
      const hasUser = kind.schema(8).fields.some((f) => f.name === "user");
      if (!hasUser) expect(NOT_PERSONAL, `table kind "${kind.name}" has no user column: give it one or declare why it is not personal`).toHaveProperty(kind.name);
      else expect(NOT_PERSONAL).not.toHaveProperty(kind.name);
    }
  });

  it("Erase empties a synthetic row of the end-user in every known table kind, to the bytes", async () => {
    const db = await t.app.store.connect();
    for (const kind of TABLE_KINDS) await t.app.store.collection(TENANT, kind);
    for (const kind of TABLE_KINDS) {
      if (kind.name in NOT_PERSONAL) continue;
      const table = await db.openTable(`${kind.name}__${encodeTenant(TENANT)}`);
      await table.add([syntheticRow(await table.schema(), kind.name)]);
    }
    const personal = TABLE_KINDS.filter((k) => !(k.name in NOT_PERSONAL)).map((k) => k.name);
    const exported = await t.client(PrivacyService).export({ tenant: TENANT, externalId: GHOST });
    expect(exported.tables.map((tb) => tb.kind).sort()).toEqual([...personal].sort());
    expect((await filesContaining(t.dir, MARK)).length).toBeGreaterThan(0);

    const erased = await t.client(PrivacyService).erase({ tenant: TENANT, externalId: GHOST });
    expect(erased.episodes + erased.memories + erased.relations + erased.thirdParties + erased.anchors + erased.profiles).toBeGreaterThanOrEqual(6n);
    for (const name of personal) {
      const table = await db.openTable(`${name}__${encodeTenant(TENANT)}`);
      expect(await table.countRows(`\`user\` = '${GHOST}'`), name).toBe(0);
    }
    expect(await filesContaining(t.dir, MARK)).toEqual([]);
    expect((await t.client(PrivacyService).export({ tenant: TENANT, externalId: GHOST })).tables).toEqual([]);
  });

  it("after a workload touching every writing RPC, every table on disk is personal (and erased) or declared", async () => {
    const scope = { tenant: "workload", user: GHOST };
    await t.client(MemoryService).remember({ scope, content: `I moved to Paris ${MARK}` });
    await t.client(MemoryService).add({ scope, messages: [{ role: "user", content: `I work as a baker in Lyon ${MARK}` }] });
    await t.client(RelationalService).process({ scope, message: `My brother Sam is visiting ${MARK}` });
    await t.client(RelationalService).upsertThirdParty({ scope, thirdParty: { person: "Nia", relation: "friend" } });
    await t.client(DriftService).check({ scope, goal: `talk about baking ${MARK}` });
    const conversation = (await t.client(ConversationService).createConversation({ scope, title: `bakes ${MARK}` })).conversation!;
    await t.client(ConversationService).appendMessages({
      scope,
      conversationId: conversation.id,
      messages: [{ content: `Sourdough tips ${MARK}`, trace: { toolName: "search", arguments: `{"q":"${MARK}"}` } }],
    });
    await t.client(PrivacyService).erase({ tenant: "workload", externalId: GHOST });
    const suffix = `__${encodeTenant("workload")}`;
    const db = await t.app.store.connect();
    for (const name of (await db.tableNames()).filter((n) => n.endsWith(suffix))) {
      const kind = name.slice(0, -suffix.length);
      const fields = (await (await db.openTable(name)).schema()).fields.map((f) => f.name);
      if (!fields.includes("user")) expect(NOT_PERSONAL, `table "${kind}" has no user column and is not declared`).toHaveProperty(kind);
    }
    expect(await filesContaining(t.dir, MARK)).toEqual([]);
  });
});
