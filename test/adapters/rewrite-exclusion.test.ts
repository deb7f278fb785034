import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EPISODES, LanceStore } from "../../src/adapters/lancedb/lance-store.js";

let dir: string;
let store: LanceStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-exclusion-"));
  store = new LanceStore({ uri: dir, dimension: 4, hotRowsBytes: 0 });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("erasure and maintenance of one table", () => {
  it("never run at once: an erasure waits for a maintenance pass in progress, and the next pass waits for the erasure", async () => {
    const episodes = await store.collection("t", EPISODES);
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const maintenance = episodes.engine.maintain(async () => {
      events.push("maintenance start");
      await gate;
      events.push("maintenance end");
    });
    const erasure = episodes.engine.exclusive(async () => {
      events.push("erasure start");
      await new Promise((r) => setTimeout(r, 50));
      events.push("erasure end");
    });
    const next = episodes.engine.maintain(async () => {
      events.push("next maintenance");
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual(["maintenance start"]);
    release();
    await Promise.all([maintenance, erasure, next]);
    expect(events).toEqual(["maintenance start", "maintenance end", "erasure start", "erasure end", "next maintenance"]);
  });
});
