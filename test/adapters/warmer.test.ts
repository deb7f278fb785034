import { describe, expect, it } from "vitest";
import { Warmer, type WarmBudget } from "../../src/adapters/row-cache/warmer.js";

function budget(maxBytes: number, bytes = 0, partitions = 0, victim?: string): WarmBudget {
  return { maxBytes, counters: { bytes, partitions, warms: 0, warmsSkipped: 0 }, victim: () => victim };
}

/** A job that records when it ran. */
function job(log: string[], key: string, wanted = () => true) {
  return { wanted, run: async () => void log.push(key) };
}

describe("Warmer (background loads of end-users not held)", () => {
  it("loads only once no read is in flight, in request order", async () => {
    const b = budget(1_000);
    const warmer = new Warmer(b, { admitAfterReads: 1 });
    const log: string[] = [];
    let release!: () => void;
    const read = warmer.reading(() => new Promise<void>((r) => (release = r)));
    warmer.request("a", job(log, "a"));
    warmer.request("b", job(log, "b"));
    await new Promise((r) => setTimeout(r, 30));
    expect(log).toEqual([]); // a read is in flight
    release();
    await read;
    await warmer.idle();
    expect(log).toEqual(["a", "b"]);
    expect(b.counters.warms).toBe(2);
  });

  it("loads a user only once read twice lately, with room or without, and bounds its queue", async () => {
    const log: string[] = [];
    for (const b of [budget(10_000), budget(1_000, 1_000, 4)]) {
      const warmer = new Warmer(b, { missWindowMs: 0 });
      warmer.request("a", job(log, "a"));
      await warmer.idle();
      expect(log).toEqual([]); // read once: the engine answered, nothing is loaded
      warmer.request("a", job(log, "a"));
      await warmer.idle();
      expect(log).toEqual(["a"]); // read again: loaded
      log.length = 0;
    }
    let release!: () => void;
    const read = new Promise<void>((r) => (release = r));
    const roomy = new Warmer(budget(10_000), { maxQueued: 1, admitAfterReads: 1 });
    const held = roomy.reading(() => read);
    roomy.request("x", job(log, "x"));
    roomy.request("y", job(log, "y")); // queue full: dropped
    release();
    await held;
    await roomy.idle();
    expect(log).toEqual(["x"]);
  });

  it("when full, loads a user only if read more lately than the one it would evict (TinyLFU)", async () => {
    const log: string[] = [];
    const warmer = new Warmer(budget(1_000, 1_000, 4, "held"), { missWindowMs: 0 });
    for (let i = 0; i < 3; i++) warmer.accessed("held"); // the least recently used user was read 3 times
    for (let i = 0; i < 3; i++) warmer.request("b", job(log, "b"));
    await warmer.idle();
    expect(log).toEqual([]); // as often as the victim: not worth a load
    warmer.request("b", job(log, "b"));
    await warmer.idle();
    expect(log).toEqual(["b"]); // more often: loaded
  });

  it("halves every count each half-life, so old reads fade", async () => {
    const log: string[] = [];
    const warmer = new Warmer(budget(10_000), { missWindowMs: 0, halfLifeMs: 40 });
    warmer.request("a", job(log, "a")); // a: 1
    await new Promise((r) => setTimeout(r, 50)); // halved: a → 0
    warmer.request("a", job(log, "a")); // a: 1 again, not 2
    await warmer.idle();
    expect(log).toEqual([]);
    warmer.request("a", job(log, "a"));
    await warmer.idle();
    expect(log).toEqual(["a"]);
  });

  it("counts the reads of one recall as one miss: a user read twice in a moment is not admitted", async () => {
    const full = budget(1_000, 1_000, 4);
    const warmer = new Warmer(full, { missWindowMs: 50 });
    const log: string[] = [];
    warmer.request("a", job(log, "a"));
    warmer.request("a", job(log, "a")); // the same recall's next read
    await warmer.idle();
    expect(log).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    warmer.request("a", job(log, "a")); // the user came back
    await warmer.idle();
    expect(log).toEqual(["a"]);
  });

  it("skips a job no longer wanted and drops what waits on stop", async () => {
    const b = budget(10_000);
    const warmer = new Warmer(b, { admitAfterReads: 1 });
    const log: string[] = [];
    warmer.request("gone", job(log, "gone", () => false));
    await warmer.idle();
    expect(log).toEqual([]);
    expect(b.counters.warmsSkipped).toBe(1);
    let release!: () => void;
    const read = warmer.reading(() => new Promise<void>((r) => (release = r)));
    warmer.request("later", job(log, "later"));
    await warmer.stop();
    release();
    await read;
    await warmer.idle();
    expect(log).toEqual([]);
  });

  it("tells heavy work when requests have been quiet for a while, or when it waited long enough", async () => {
    const warmer = new Warmer(budget(1));
    await warmer.reading(async () => undefined);
    const t = performance.now();
    await warmer.quiet(80, 5_000);
    expect(performance.now() - t).toBeGreaterThanOrEqual(70);
    let release!: () => void;
    const read = warmer.reading(() => new Promise<void>((r) => (release = r)));
    const u = performance.now();
    await warmer.quiet(10, 150); // a request stays in flight: gives up waiting at 150 ms
    expect(performance.now() - u).toBeGreaterThanOrEqual(140);
    release();
    await read;
  });
});
