import { describe, expect, it } from "vitest";
import { KeyedLock } from "./keyed-lock.js";

const tick = () => new Promise((r) => setImmediate(r));

describe("KeyedLock", () => {
  it("runs work of one key in order, one at a time, and other keys alongside", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const job = (key: string, name: string) =>
      lock.run(key, async () => {
        log.push(`start ${name}`);
        await tick();
        await tick();
        log.push(`end ${name}`);
        return name;
      });
    const results = await Promise.all([job("a", "a1"), job("a", "a2"), job("b", "b1")]);
    expect(results).toEqual(["a1", "a2", "b1"]);
    expect(log.indexOf("end a1")).toBeLessThan(log.indexOf("start a2"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
    expect(lock.size).toBe(0);
  });

  it("keeps going after a failure and reports it to its caller only", async () => {
    const lock = new KeyedLock();
    const failed = lock.run("k", async () => {
      throw new Error("refused");
    });
    const next = lock.run("k", async () => "ran");
    await expect(failed).rejects.toThrow("refused");
    await expect(next).resolves.toBe("ran");
    expect(lock.size).toBe(0);
  });
});
