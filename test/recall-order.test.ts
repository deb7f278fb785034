import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { placeInBatch } from "../src/services/memory/batch-order.js";
import type { RememberInput } from "../src/services/memory/remember.js";
import { createTestApp, type TestApp } from "./support/harness.js";

// Imports as an outside developer might send them: no trace_number, no session.
const QUESTION = "Caroline: Which instruments do you play in the orchestra?";
const REPLY = "Yeah, clarinet since I was young.";
const OTHER_REPLY = "Cool, I went hiking with the dog.";
const query = "Which instruments does Melanie play in the orchestra?";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const c = t.client(MemoryService);
  const day = (d: number) => timestampFromMs(Date.UTC(2024, 4, d));
  const fillers = Array.from({ length: 12 }, (_, i) => ({ scope: { user: "mel" }, content: `Caroline: the orchestra concert number ${i} was loud`, observedAt: day(1) }));
  // Two batches in one scope, each numbered from 1 by the server: positions repeat.
  await c.rememberBatch({ items: [{ scope: { user: "mel" }, content: QUESTION, observedAt: day(8) }, { scope: { user: "mel" }, content: REPLY, observedAt: day(8) }] });
  await c.rememberBatch({
    items: [
      { scope: { user: "mel" }, content: "Caroline: the weather was grey all week", observedAt: day(20) },
      { scope: { user: "mel" }, content: OTHER_REPLY, observedAt: day(20) },
    ],
  });
  await c.rememberBatch({ items: fillers });
  // A single Remember without a position is no one's neighbour.
  await c.remember({ scope: { user: "mel" }, content: "Sure, I love the sea.", observedAt: day(8) });
});
afterAll(() => t.close());

describe("turn order without trace_number", () => {
  it("numbers a batch's unplaced items per scope when their times cannot order them", () => {
    const item = (user: string, traceNumber: number, observedAt = 1_000) => ({ key: { namespace: "", agent: "", session: "", user }, traceNumber, observedAt }) as RememberInput;
    const placed = placeInBatch([item("a", 0), item("b", 0), item("a", 0), item("b", 0), item("a", 0)]);
    expect(placed.map((p) => p.traceNumber)).toEqual([1, 1, 2, 2, 3]);
    // A scope that sets any position, or whose turns have distinct times, keeps what was sent.
    expect(placeInBatch([item("a", 0), item("a", 7), item("a", 0)]).map((p) => p.traceNumber)).toEqual([0, 7, 0]);
    expect(placeInBatch([item("a", 0, 1), item("a", 0, 2)]).map((p) => p.traceNumber)).toEqual([0, 0]);
  });

  it("brings back the reply to a matching turn from the same batch", async () => {
    const res = await t.client(MemoryService).recall({ scope: { user: "mel" }, query, k: 3 });
    const reply = res.hits.find((h) => h.memory === REPLY);
    expect(reply?.components?.context).toBeGreaterThan(0.5);
  });

  it("does not take a turn at the same position of another batch for a neighbour", async () => {
    const res = await t.client(MemoryService).recall({ scope: { user: "mel" }, query, k: 20 });
    const other = res.hits.find((h) => h.memory === OTHER_REPLY);
    expect(other?.components?.context ?? 0).toBeLessThan(0.3);
    const single = res.hits.find((h) => h.memory === "Sure, I love the sea.");
    expect(single?.components?.context ?? 0).toBe(0);
  });
});
