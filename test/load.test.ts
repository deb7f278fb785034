import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingWrites, runLoad } from "../bench/support/load.js";
import { type RealServer, startRealServer } from "./support/real-server.js";

// The short version of `npm run bench:load` (which runs 20 s and reports throughput and p99):
// 32 concurrent loopback clients mixing Remember, Recall and Process over real HTTP. No call may
// fail and every acknowledged write must be readable afterwards. No timing is asserted.
const SECONDS = Number(process.env.AGENTMEM_LOAD_SECONDS ?? 3);

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(() => server.close());

describe("load", () => {
  it(`32 clients for ${SECONDS} s: zero errors, every acknowledged write readable`, { timeout: 120_000 + SECONDS * 2000 }, async () => {
    const result = await runLoad({ url: server.url, clients: 32, durationMs: SECONDS * 1000 });
    expect(result.errors).toEqual([]);
    expect(result.ops.remember.count).toBeGreaterThan(0);
    expect(result.ops.recall.count).toBeGreaterThan(0);
    expect(result.ops.process.count).toBeGreaterThan(0);
    expect(await missingWrites(server.url, result.acked)).toEqual([]);
  });
});
