import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const clock = createManualClock(new Date("2026-01-01T00:00:00Z"));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

describe("access marks", () => {
  it("writes every buffered mark, however many (several commits), and only those", async () => {
    const c = t.client(MemoryService);
    const user = "marks";
    const items = Array.from({ length: 1300 }, (_, i) => ({ scope: { user }, content: `harbour note number ${i}` }));
    const memoryIds = [...(await c.rememberBatch({ items: items.slice(0, 650) })).memoryIds, ...(await c.rememberBatch({ items: items.slice(650) })).memoryIds];
    const at = clock.now().getTime() + 60_000;
    const touched = memoryIds.slice(0, 1234);
    t.app.deps.access.touch("default", touched, at);
    t.app.deps.access.touch("default", touched.slice(0, 10), at - 1000);
    await t.app.deps.access.flush();
    const rows = new Map<string, Awaited<ReturnType<typeof c.listMemories>>["memories"][number]>();
    let pageToken = "";
    do {
      const page = await c.listMemories({ scope: { user }, pageSize: 1000, pageToken });
      for (const m of page.memories) rows.set(m.id, m);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(rows.size).toBe(1300);
    for (const [i, id] of memoryIds.entries()) {
      const m = rows.get(id)!;
      expect(Number(m.accessCount)).toBe(i < 10 ? 2 : i < 1234 ? 1 : 0);
      if (i < 1234) expect(Number(m.lastAccessedAt!.seconds) * 1000).toBe(at);
    }
  });
});
