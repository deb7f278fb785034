import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriftService } from "../../src/gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { keyIdOf } from "../../src/server/auth.js";
import { filesContaining } from "../support/byte-scan.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const ADMIN = "admin-key-aaaaaaaaaaaaaaaa";
const WRITER = "write-key-aaaaaaaaaaaaaaaa";
const KEYS = `${ADMIN}:clinic:admin,${WRITER}:clinic:write`;
// Distinctive and lower-case, so it also matches what a text index would hold.
const SECRET = "zqxjvbrumble";
const VICTIM = "patient_42";
const isAudit = (path: string) => path.startsWith("audit__");

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ apiKeys: KEYS });
});
afterAll(() => t.close());

/** 3 batches of 100 turns; in each, one turn (1%) is the victim's and holds the secret. */
async function writeSharedBatches(): Promise<void> {
  const memory = t.client(MemoryService, WRITER);
  for (let b = 0; b < 3; b++) {
    const items = Array.from({ length: 100 }, (_, i) =>
      i === 37
        ? { scope: { user: VICTIM }, content: `my surgery code word is ${SECRET}${b} please keep it`, traceNumber: BigInt(b) }
        : { scope: { user: `neighbour_${i % 20}` }, content: `note ${b}-${i}: the ward ${i % 7} tea trolley comes at ${i % 12} o'clock` },
    );
    await memory.rememberBatch({ items });
  }
}

describe("Erase", () => {
  it("removes every row of the end-user from the disk, leaves others intact, is audited and idempotent", async () => {
    const memory = t.client(MemoryService, WRITER);
    const relational = t.client(RelationalService, WRITER);
    const privacy = t.client(PrivacyService, ADMIN);
    await writeSharedBatches();
    // Relational state, a third party and drift anchors for the victim; recall and a changed
    // tag leave older copies of its rows behind, deleted but still in the data files.
    await relational.process({ scope: { user: VICTIM }, message: `My boss Tom says ${SECRET} is fine, I'm anxious about tomorrow` });
    await relational.upsertThirdParty({ scope: { user: VICTIM }, thirdParty: { person: "Dr Okafor", relation: "surgeon", sentiment: 0.4 } });
    await t.client(DriftService, WRITER).check({ scope: { user: VICTIM }, goal: `prepare the patient for ${SECRET} surgery` });
    await memory.recall({ scope: { user: VICTIM }, query: "surgery code word" });
    await memory.remember({ scope: { user: VICTIM }, content: `my surgery code word is ${SECRET}0 please keep it`, tags: { v: "2" } });
    await relational.process({ scope: { user: "neighbour_3" }, message: "The tea was late again" });
    await t.app.deps.access.flush();

    // Scheduled maintenance compacts each table into one fragment: the victim's rows now share
    // it with 99% other rows, where a delete + compaction + cleanup leaves their bytes.
    const db = await t.app.store.connect();
    for (const name of await db.tableNames()) await (await db.openTable(name)).optimize({ cleanupOlderThan: new Date(), deleteUnverified: true });

    const neighbourBefore = await memory.listMemories({ scope: { user: "neighbour_3" }, pageSize: 1000 });
    const exportBefore = await privacy.export({ externalId: VICTIM });
    expect(exportBefore.memories.length).toBeGreaterThanOrEqual(4);
    expect(exportBefore.thirdParties.length).toBeGreaterThanOrEqual(1);
    expect(exportBefore.anchors.length).toBe(1);
    // The scan must be able to see the secret (and the victim's id) before, or "gone" proves nothing.
    expect((await filesContaining(t.dir, SECRET)).length).toBeGreaterThan(0);
    expect((await filesContaining(t.dir, VICTIM, isAudit)).length).toBeGreaterThan(0);

    const erased = await privacy.erase({ externalId: VICTIM });
    expect(erased.memories).toBeGreaterThanOrEqual(4n);
    expect(erased.episodes).toBeGreaterThanOrEqual(5n);
    expect(erased.relations).toBe(1n);
    expect(erased.thirdParties).toBeGreaterThanOrEqual(2n);
    expect(erased.anchors).toBe(1n);
    expect(erased.auditId).not.toBe("");

    expect(await filesContaining(t.dir, SECRET)).toEqual([]);
    expect(await filesContaining(t.dir, VICTIM, isAudit)).toEqual([]);

    expect((await memory.recall({ scope: { user: VICTIM }, query: "surgery code word" })).hits).toEqual([]);
    expect((await memory.history({ scope: { user: VICTIM } })).turns).toEqual([]);
    const state = await relational.getState({ scope: { user: VICTIM } });
    expect(state.interactionCount).toBe(0n);
    expect(state.user).toMatchObject({ trust: 0.5, sentiment: 0.5, grudge: 0, familiarity: 0 });
    const exportAfter = await privacy.export({ externalId: VICTIM });
    expect([exportAfter.memories, exportAfter.episodes, exportAfter.thirdParties, exportAfter.anchors, exportAfter.tables]).toEqual([[], [], [], [], []]);
    expect(exportAfter.relation).toBeUndefined();

    const neighbourAfter = await memory.listMemories({ scope: { user: "neighbour_3" }, pageSize: 1000 });
    expect(neighbourAfter.memories.map((m) => [m.id, m.text]).sort()).toEqual(neighbourBefore.memories.map((m) => [m.id, m.text]).sort());
    expect((await memory.history({ scope: { user: "neighbour_4" } })).total).toBe(15n);
    expect((await memory.recall({ scope: { user: "neighbour_4" }, query: "tea trolley" })).hits.length).toBeGreaterThan(0);

    const audit = await privacy.listAudit({ pageSize: 5 });
    const record = audit.records.find((r) => r.id === erased.auditId);
    expect(record).toMatchObject({ operation: "agentmem.v1.PrivacyService/Erase", outcome: "OK", actor: keyIdOf(ADMIN) });
    expect(record?.scope?.user).toBe(VICTIM);
    expect(record?.counts.memories).toBe(erased.memories);
    expect(record?.counts.episodes).toBe(erased.episodes);
    expect(JSON.stringify(audit.records, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))).not.toContain(SECRET);

    const again = await privacy.erase({ externalId: VICTIM });
    expect([again.memories, again.episodes, again.relations, again.thirdParties, again.anchors]).toEqual([0n, 0n, 0n, 0n, 0n]);
  });

  it("needs the admin role and a valid external_id", async () => {
    const denied = await t.client(PrivacyService, WRITER).erase({ externalId: "neighbour_1" }).catch((e: unknown) => ConnectError.from(e));
    expect(denied).toBeInstanceOf(ConnectError);
    expect((denied as ConnectError).code).toBe(Code.PermissionDenied);
    for (const externalId of ["", "x' OR '1'='1", "a".repeat(129)]) {
      const bad = await t.client(PrivacyService, ADMIN).erase({ externalId }).catch((e: unknown) => ConnectError.from(e));
      expect((bad as ConnectError).code).toBe(Code.InvalidArgument);
    }
    expect((await t.client(MemoryService, WRITER).history({ scope: { user: "neighbour_1" } })).total).toBe(15n);
  });
});
