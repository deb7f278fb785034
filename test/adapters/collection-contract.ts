import { describe, expect, it } from "vitest";
import type { EpisodeRecord } from "../../src/core/records.js";
import type { Collection } from "../../src/ports/collection.js";
import { where } from "../../src/core/condition.js";

/** An episode row with a unit vector pointing at `axis`. */
export function episode(id: string, user: string, content: string, axis: number, dimension: number): EpisodeRecord {
  const vector = new Float32Array(dimension);
  vector[axis % dimension] = 1;
  return {
    id, namespace: "", agent: "", session: "s1", user, role: "user", name: "", content,
    observedAt: 1000 + axis, traceNumber: axis, parentId: "", channel: "", vector, createdAt: 1, memoryId: "",
  };
}

/**
 * The contract every `Collection` implementation must meet (Hono style: one suite, many
 * implementations). `make` returns a fresh, empty collection of episodes.
 */
export function runCollectionContract(name: string, make: () => Promise<{ collection: Collection<EpisodeRecord>; dimension: number }>): void {
  describe(`Collection contract: ${name}`, () => {
    it("upserts by id, never duplicating", async () => {
      const { collection: c, dimension } = await make();
      await c.upsert([episode("a", "u1", "first text", 0, dimension)]);
      await c.upsert([episode("a", "u1", "second text", 0, dimension)]);
      expect(await c.count(where.all())).toBe(1);
      expect((await c.get(["a"]))[0].content).toBe("second text");
    });

    it("insertNew leaves existing ids untouched", async () => {
      const { collection: c, dimension } = await make();
      await c.insertNew([episode("a", "u1", "original", 0, dimension)]);
      await c.insertNew([episode("a", "u1", "changed", 0, dimension), episode("b", "u1", "new", 1, dimension)]);
      expect((await c.get(["a"]))[0].content).toBe("original");
      expect(await c.count(where.all())).toBe(2);
    });

    it("groups concurrent writes and keeps every one", async () => {
      const { collection: c, dimension } = await make();
      await Promise.all(Array.from({ length: 50 }, (_, i) => c.upsert([episode(`id${i}`, "u1", `text ${i}`, i, dimension)])));
      expect(await c.count(where.all())).toBe(50);
    });

    it("filters with escaped values and finds by vector and by words", async () => {
      const { collection: c, dimension } = await make();
      await c.upsert([
        episode("a", "u1", "the quick brown fox", 0, dimension),
        episode("b", "u2", "the quick brown fox", 0, dimension),
        episode("c", "o'brien", "lazy dogs sleep", 1, dimension),
      ]);
      expect((await c.find(where.eq("user", "o'brien"))).map((r) => r.id)).toEqual(["c"]);
      expect(await c.find(where.eq("user", "x' OR '1'='1"))).toEqual([]);
      const near = await c.nearest(episode("q", "", "", 0, dimension).vector, where.eq("user", "u1"), 5);
      expect(near.map((s) => s.row.id)).toEqual(["a"]);
      expect(near[0].score).toBeCloseTo(1, 5);
      const words = await c.match("fox", where.eq("user", "u2"), 5);
      expect(words.map((s) => s.row.id)).toEqual(["b"]);
      expect(await c.match("!!! ???", where.all(), 5)).toEqual([]);
    });

    it("deletes by condition and reports the count", async () => {
      const { collection: c, dimension } = await make();
      await c.upsert([episode("a", "u1", "x", 0, dimension), episode("b", "u1", "y", 1, dimension), episode("c", "u2", "z", 2, dimension)]);
      expect(await c.delete(where.eq("user", "u1"))).toBe(2);
      expect(await c.delete(where.eq("user", "u1"))).toBe(0);
      expect((await c.find(where.all())).map((r) => r.id)).toEqual(["c"]);
    });
  });
}
