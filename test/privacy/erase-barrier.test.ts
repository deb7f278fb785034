import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { rememberAll } from "../../src/services/memory/remember.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const ADMIN = "admin-key-bbbbbbbbbbbbbbbb";
const WRITER = "write-key-bbbbbbbbbbbbbbbb";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ apiKeys: `${ADMIN}:barrier:admin,${WRITER}:barrier:write` });
});
afterAll(() => t.close());

/** Every text stored about `user`, from Export (memories and episodes). */
async function exportedTexts(user: string): Promise<string[]> {
  const doc = await t.client(PrivacyService, ADMIN).export({ externalId: user });
  return [...doc.memories.map((m) => m.text), ...doc.episodes.map((e) => e.content)];
}

describe("Erase is a barrier", { timeout: 120_000 }, () => {
  it("with four writers remembering for the end-user during Erase, nothing written before Erase survives it", async () => {
    const memory = t.client(MemoryService, WRITER);
    const relational = t.client(RelationalService, WRITER);
    const user = "racer";
    let sent = false;
    let answered = false;
    let stop = false;
    /**
     * Texts whose write began after Erase was sent: the only ones allowed to survive. (One that
     * began while the call was in flight may have reached the server after it finished; the
     * deterministic cases are the tests below.)
     */
    const allowed = new Set<string>();
    let refused = 0;
    let acknowledgedBefore = 0;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const after = sent;
        const content = `writer ${w} turn ${i}: the plum tree in the yard is flowering`;
        if (after) allowed.add(content);
        try {
          if (i % 3 === 2) {
            const message = `writer ${w} turn ${i}: my sister called about the plum jam`;
            if (after) allowed.add(message);
            await relational.process({ scope: { user }, message });
          } else {
            await memory.remember({ scope: { user, session: `s${w}` }, content });
          }
          if (!sent) acknowledgedBefore++;
        } catch (error) {
          // Refused while the erasure runs: a retry is the caller's (after a short pause).
          await new Promise((r) => setTimeout(r, 5));
          const e = ConnectError.from(error);
          expect(e.code).toBe(Code.Unavailable);
          expect(e.rawMessage).toMatch(/erasure of this end-user is running/);
          refused++;
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    // Let the writers land some rows, then erase while they keep going.
    while (acknowledgedBefore < 12) await new Promise((r) => setTimeout(r, 10));
    sent = true;
    const erased = await t.client(PrivacyService, ADMIN).erase({ externalId: user });
    answered = true;
    expect(erased.memories).toBeGreaterThan(0n);
    // A few more writes after the answer, which must survive.
    const target = allowed.size + 8;
    expect(answered).toBe(true);
    while (allowed.size < target) await new Promise((r) => setTimeout(r, 10));
    stop = true;
    await Promise.all(writers);

    const left = await exportedTexts(user);
    const stray = left.filter((text) => ![...allowed].some((a) => text.includes(a)));
    expect(stray).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
    expect(acknowledgedBefore).toBeGreaterThanOrEqual(12);
    const state = await relational.getState({ scope: { user } });
    // Relational state restarted from the writes after the answer only.
    expect(state.interactionCount).toBeLessThanOrEqual(BigInt([...allowed].filter((a) => a.includes("plum jam")).length));
  });

  it("drops the rows of a write that began before Erase and reached the store after it (tombstone)", async () => {
    const deps = t.app.deps;
    const user = "late-lander";
    const turn = (content: string) => ({
      key: { namespace: "", agent: "", session: "", user },
      content,
      role: "user",
      name: "",
      factType: "semantic" as const,
      pinned: false,
      tags: {},
      parentId: "",
      traceNumber: 0,
      observedAt: Date.now(),
      channel: "",
    });
    await rememberAll(deps, "barrier", [turn("an early turn that Erase must purge")]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The write takes its ticket now, then stalls (as behind a slow model call) until Erase has answered.
    const late = deps.barrier.write([{ tenant: "barrier", user }], async () => {
      await gate;
      return rememberAll(deps, "barrier", [turn("a late turn that began before Erase")]);
    });
    await t.client(PrivacyService, ADMIN).erase({ externalId: user });
    release();
    await late;
    expect(await exportedTexts(user)).toEqual([]);

    // A write that begins while an erasure runs is refused, retryable.
    let hold!: () => void;
    const held = new Promise<void>((r) => (hold = r));
    const erasing = deps.barrier.erase("barrier", user, () => held);
    const refused = await t.client(MemoryService, WRITER).remember({ scope: { user }, content: "a turn during the erasure" }).catch((e: unknown) => ConnectError.from(e));
    hold();
    await erasing;
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.Unavailable);
    expect((refused as ConnectError).rawMessage).toMatch(/erasure of this end-user is running; retry/);

    // A write that begins after the answer lands.
    await t.client(MemoryService, WRITER).remember({ scope: { user }, content: "a turn after the erasure" });
    expect(await exportedTexts(user)).toEqual(["a turn after the erasure", "a turn after the erasure"]);
  });
});

describe("refused calls in the audit trail", () => {
  it("are summed per key, operation and outcome instead of one row per call", async () => {
    const reader = "read-key-bbbbbbbbbbbbbbbbbb";
    const app = await createTestApp({ apiKeys: `${ADMIN}:tally:admin,${reader}:tally:read` });
    try {
      const memory = app.client(MemoryService, reader);
      for (let i = 0; i < 40; i++) await memory.remember({ scope: { user: "x" }, content: `refused ${i}` }).catch(() => undefined);
      const rows = async () =>
        (await app.client(PrivacyService, ADMIN).listAudit({ pageSize: 1000 })).records.filter((r) => r.operation.endsWith("/Remember") && r.outcome === "PERMISSION_DENIED");
      expect((await rows()).map((r) => r.counts.refused)).toEqual([1n]);
      await app.app.deps.audit.flushRefusals();
      expect((await rows()).map((r) => r.counts.refused).sort()).toEqual([1n, 39n]);
    } finally {
      await app.close();
    }
  });
});
