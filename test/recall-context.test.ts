import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createTestApp, type TestApp } from "./support/harness.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const c = t.client(MemoryService);
  const at = timestampFromMs(Date.UTC(2024, 4, 8));
  const turn = (session: string, trace: number, name: string, content: string, tags: Record<string, string> = {}) => ({
    scope: { user: "mel", session },
    content,
    name,
    traceNumber: BigInt(trace),
    observedAt: at,
    tags,
  });
  const fillers = Array.from({ length: 12 }, (_, i) => turn("s2", i + 1, "Caroline", `Caroline: the orchestra concert number ${i} was loud`, { kind: "chat" }));
  await c.rememberBatch({
    items: [
      turn("s1", 1, "Caroline", "Caroline: Which instruments do you play in the orchestra?", { kind: "chat" }),
      turn("s1", 2, "Melanie", "Yeah, clarinet since I was young.", { kind: "answer" }),
      turn("s1", 3, "Caroline", "Caroline: Cool!", { kind: "chat" }),
      ...fillers,
    ],
  });
});
afterAll(() => t.close());

describe("Recall context and names channels", () => {
  const query = "Which instruments does Melanie play in the orchestra?";

  it("brings back the reply to a matching turn even when no channel found it", async () => {
    const res = await t.client(MemoryService).recall({ scope: { user: "mel" }, query, k: 2 });
    const texts = res.hits.map((h) => h.memory);
    expect(texts).toContain("Yeah, clarinet since I was young.");
    const reply = res.hits.find((h) => h.memory.startsWith("Yeah"));
    expect(reply?.components?.context).toBeGreaterThan(0.5);
    expect(reply?.components?.names).toBe(1);
  });

  it("turns the context channel off per request", async () => {
    // Without naming Melanie: her turns' vectors carry her name (spoken lines), so the reply would match by it.
    const res = await t.client(MemoryService).recall({ scope: { user: "mel" }, query: "Which instruments does she play in the orchestra?", k: 2, weights: { context: 0 } });
    expect(res.hits.map((h) => h.memory)).not.toContain("Yeah, clarinet since I was young.");
    expect(res.hits.every((h) => h.components?.context === 0)).toBe(true);
  });

  it("never lets a neighbour past the recall's filters", async () => {
    const res = await t.client(MemoryService).recall({ scope: { user: "mel" }, query, k: 5, tags: { kind: "chat" } });
    expect(res.hits.length).toBeGreaterThan(0);
    expect(res.hits.every((h) => h.tags.kind === "chat")).toBe(true);
    const other = await t.client(MemoryService).recall({ scope: { user: "someone-else" }, query, k: 5 });
    expect(other.hits).toEqual([]);
  });
});
