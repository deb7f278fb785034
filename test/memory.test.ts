import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { FactType, MatchStrength } from "../src/gen/agentmem/v1/common_pb.js";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { createTestApp, type TestApp } from "./support/harness.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function reasonOf(error: unknown): string | undefined {
  return ConnectError.from(error).findDetails(ErrorInfoSchema)[0]?.reason;
}

describe("MemoryService core verbs", () => {
  it("remembers and recalls within the end-user's scope only", async () => {
    const c = t.client(MemoryService);
    await c.remember({ scope: { user: "maya" }, content: "I live in London and work as a nurse" });
    await c.remember({ scope: { user: "maya" }, content: "My cat is called Biscuit" });
    await c.remember({ scope: { user: "omar" }, content: "I live in Cairo and work as a nurse" });
    const res = await c.recall({ scope: { user: "maya" }, query: "where does she live and work" });
    expect(res.hits.length).toBe(2);
    expect(res.hits[0].memory).toBe("I live in London and work as a nurse");
    expect(res.hits.every((h) => !h.memory.includes("Cairo"))).toBe(true);
    const top = res.hits[0];
    expect(top.components?.fused).toBeCloseTo(top.score);
    expect(top.components?.lexical).toBeGreaterThan(0);
    expect(top.strength).not.toBe(MatchStrength.UNSPECIFIED);
    expect(top.factType).toBe(FactType.SEMANTIC);
  });

  it("gives the same id to the same text in the same scope and never duplicates", async () => {
    const c = t.client(MemoryService);
    const a = await c.remember({ scope: { user: "dup" }, content: "Prefers tea over coffee", tags: { source: "a" } });
    const b = await c.remember({ scope: { user: "dup" }, content: "Prefers  tea over coffee ", tags: { v: "2" } });
    const other = await c.remember({ scope: { user: "dup2" }, content: "Prefers tea over coffee" });
    expect(b.memoryId).toBe(a.memoryId);
    expect(other.memoryId).not.toBe(a.memoryId);
    const list = await c.listMemories({ scope: { user: "dup" } });
    expect(list.memories.length).toBe(1);
    expect(list.memories[0].tags).toEqual({ source: "a", v: "2" });
    const history = await c.history({ scope: { user: "dup" } });
    expect(history.turns.length).toBe(2);
  });

  it("stores batches in one call and pages through them with opaque tokens", async () => {
    const c = t.client(MemoryService);
    const items = Array.from({ length: 25 }, (_, i) => ({ scope: { user: "batch" }, content: `note number ${i}`, traceNumber: BigInt(i) }));
    const res = await c.rememberBatch({ items });
    expect(new Set(res.memoryIds).size).toBe(25);
    const seen = new Set<string>();
    let token = "";
    do {
      const page = await c.listMemories({ scope: { user: "batch" }, pageSize: 10, pageToken: token });
      page.memories.forEach((m) => seen.add(m.id));
      token = page.nextPageToken;
    } while (token);
    expect(seen.size).toBe(25);
    const turns = await c.history({ scope: { user: "batch" }, from: 20, size: 10 });
    expect(turns.turns.map((x) => x.content)).toEqual(["note number 20", "note number 21", "note number 22", "note number 23", "note number 24"]);
    await expect(c.listMemories({ scope: { user: "other" }, pageToken: token || "bogus" })).rejects.toSatisfy(
      (e) => ConnectError.from(e).code === Code.InvalidArgument,
    );
  });

  it("filters by tags and fact types", async () => {
    const c = t.client(MemoryService);
    await c.remember({ scope: { user: "tags" }, content: "Allergic to penicillin", tags: { kind: "health" }, factType: FactType.EVENT });
    await c.remember({ scope: { user: "tags" }, content: "Allergic to long meetings", tags: { kind: "work" } });
    const byTag = await c.recall({ scope: { user: "tags" }, query: "allergic", tags: { kind: "health" } });
    expect(byTag.hits.map((h) => h.memory)).toEqual(["Allergic to penicillin"]);
    const byType = await c.recall({ scope: { user: "tags" }, query: "allergic", factTypes: [FactType.SEMANTIC] });
    expect(byType.hits.map((h) => h.memory)).toEqual(["Allergic to long meetings"]);
  });

  it("forgets only in a non-global scope and keeps pinned memories by default", async () => {
    const c = t.client(MemoryService);
    await c.remember({ scope: { user: "f" }, content: "temporary detail" });
    await c.remember({ scope: { user: "f" }, content: "pinned detail", pinned: true });
    const err = await c.forget({ scope: {} }).catch((e: unknown) => e);
    expect(ConnectError.from(err).code).toBe(Code.InvalidArgument);
    expect(reasonOf(err)).toBe("GLOBAL_SCOPE");
    expect((await c.forget({ scope: { user: "f" } })).deleted).toBe(1n);
    expect((await c.listMemories({ scope: { user: "f" } })).memories.map((m) => m.text)).toEqual(["pinned detail"]);
    expect((await c.forget({ scope: { user: "f" }, pinnedExempt: false })).deleted).toBe(1n);
  });

  it("gets a memory only inside its scope", async () => {
    const c = t.client(MemoryService);
    const { memoryId } = await c.remember({ scope: { user: "g" }, content: "owns a red bicycle" });
    expect((await c.getMemory({ scope: { user: "g" }, id: memoryId })).memory?.text).toBe("owns a red bicycle");
    const err = await c.getMemory({ scope: { user: "h" }, id: memoryId }).catch((e: unknown) => e);
    expect(ConnectError.from(err).code).toBe(Code.NotFound);
  });

  it("rejects bad input with INVALID_ARGUMENT and an ErrorInfo reason, changing nothing", async () => {
    const c = t.client(MemoryService);
    const cases: [() => Promise<unknown>, string][] = [
      [() => c.remember({ scope: { user: "bad user!" }, content: "x" }), "INVALID_SCOPE"],
      [() => c.remember({ scope: { user: "x' OR 1=1 --" }, content: "x" }), "INVALID_SCOPE"],
      [() => c.remember({ scope: { user: "b" }, content: "" }), "CONTENT_REQUIRED"],
      [() => c.remember({ scope: { user: "b" }, content: "x", role: "robot" }), "INVALID_ROLE"],
      [() => c.remember({ scope: { user: "b" }, content: "x", infer: true, strategies: ["nope"] }), "UNKNOWN_STRATEGY"],
      [() => c.recall({ scope: { user: "b" }, query: "" }), "QUERY_REQUIRED"],
    ];
    for (const [call, reason] of cases) {
      const err = await call().catch((e: unknown) => e);
      expect(ConnectError.from(err).code, reason).toBe(Code.InvalidArgument);
      expect(reasonOf(err)).toBe(reason);
    }
    const big = await c.recall({ scope: { user: "b" }, query: "x", k: 101 }).catch((e: unknown) => e);
    expect(ConnectError.from(big).code).toBe(Code.InvalidArgument);
    const limit = ConnectError.from(big).findDetails(ErrorInfoSchema)[0];
    expect(limit).toMatchObject({ reason: "LIMIT_EXCEEDED", metadata: { field: "k", limit: "100" } });
    expect((await c.listMemories({ scope: { user: "b" } })).memories).toEqual([]);
  });

  it("reports the embedder in Stats", async () => {
    const s = await t.client(MemoryService).stats({});
    expect(s.embedding).toMatchObject({ mode: "hash", dimension: 384, semantic: false });
    expect(s.llm?.mode).toBe("none");
  });
});
