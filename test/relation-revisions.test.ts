import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import * as lancedb from "@lancedb/lancedb";
import { afterEach, describe, expect, it } from "vitest";
import { rowsToArrow } from "../src/adapters/lancedb/arrow-batch.js";
import { arrow } from "../src/adapters/lancedb/arrow.js";
import { relationSchema } from "../src/adapters/lancedb/relation-codec.js";
import { PrivacyService } from "../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { PRUNE_REVISIONS } from "../src/services/relational/relation-rows.js";
import { createTestApp, type TestApp } from "./support/harness.js";

// A relation change appends the end-user's next revision instead of merging one row in place;
// the highest revision is the state, and older ones are pruned every PRUNE_REVISIONS writes.

const T0 = Date.parse("2026-05-02T08:00:00Z");
const MINUTE = 60_000;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function relationRows(dir: string, user: string): Promise<{ id: string; interaction_count: number; revision: number | null }[]> {
  const db = await lancedb.connect(dir);
  const table = await db.openTable("relations__default");
  const rows = (await table.query().where(`user = '${user}'`).toArray()).map((r) => r.toJSON() as { id: string; interaction_count: number; revision: number | null });
  table.close();
  return rows.sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
}

describe("relation revisions", () => {
  it("each turn appends a revision, the latest is the state, and older ones are pruned", async () => {
    t = await createTestApp({ clock: createManualClock(new Date(T0)) });
    const c = t.client(RelationalService);
    const turns = PRUNE_REVISIONS + 8;
    for (let i = 0; i < turns; i++) {
      await c.process({ scope: { user: "ines" }, message: `We talked about the allotment, week ${i}.`, at: timestampFromMs(T0 + i * MINUTE) });
    }
    // A neighbour's revisions are theirs alone.
    await c.process({ scope: { user: "olu" }, message: "Hello there", at: timestampFromMs(T0) });
    const state = await c.getState({ scope: { user: "ines" } });
    expect(state.interactionCount).toBe(BigInt(turns));
    // Revision PRUNE_REVISIONS pruned every older one (the turn after it waited for that under the
    // end-user's lock); the eight since were appended.
    const rows = await relationRows(t.dir, "ines");
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 9 }, (_, i) => `ines#${PRUNE_REVISIONS + i}`));
    expect(rows.at(-1)?.interaction_count).toBe(turns);
    expect((await relationRows(t.dir, "olu")).map((r) => r.id)).toEqual(["olu#1"]);

    const erased = await t.client(PrivacyService).erase({ externalId: "ines" });
    // The data model holds one relation per end-user: Erase counts that record, not its revisions.
    expect(erased.relations).toBe(1n);
    expect(await relationRows(t.dir, "ines")).toEqual([]);
    expect((await c.getState({ scope: { user: "ines" } })).interactionCount).toBe(0n);
  });

  it("reads and continues a relations table an older release wrote (one row per end-user, no revision column)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentmem-relations-"));
    try {
      const old = new arrow.Schema(relationSchema().fields.filter((f) => f.name !== "revision"));
      const db = await lancedb.connect(dir);
      const row = { id: "noor", user: "noor", trust: 0.7, sentiment: 0.5, grudge: 0, familiarity: 0.2, updated_at: T0, interaction_count: 7, known_since: T0 - 7 * MINUTE, last_seen: T0 };
      const table = await db.createTable("relations__default", rowsToArrow([row], old));
      await table.setUnenforcedPrimaryKey("id");
      table.close();

      const app = await createTestApp({ clock: createManualClock(new Date(T0 + MINUTE)), dataDir: dir });
      try {
        const c = app.client(RelationalService);
        const before = await c.getState({ scope: { user: "noor" } });
        expect(before.interactionCount).toBe(7n);
        expect(before.user?.trust).toBe(0.7);
        const turn = await c.process({ scope: { user: "noor" }, message: "Back again after the holidays" });
        expect(turn.memory?.interactionCount).toBe(8n);
        expect((await relationRows(dir, "noor")).map((r) => [r.id, r.revision])).toEqual([
          ["noor", null],
          ["noor#1", 1],
        ]);
        expect((await c.getState({ scope: { user: "noor" } })).interactionCount).toBe(8n);
      } finally {
        await app.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
