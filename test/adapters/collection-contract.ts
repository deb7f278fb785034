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
export function runCollectionContract(
  name: string,
  make: () => Promise<{ collection: Collection<EpisodeRecord>; dimension: number }>,
  /** `layered`: a cache layer holds the end-users it writes (so `forUser(…).inMemory()` turns true). */
  options: { layered?: boolean } = {},
): void {
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

    it("narrows reads and deletes to the end-user named by forUser", async () => {
      const { collection: c, dimension } = await make();
      await c.upsert([
        episode("a", "u1", "the quick brown fox", 0, dimension),
        episode("b", "u2", "the quick brown fox", 0, dimension),
        episode("c", "u1", "lazy dogs sleep", 1, dimension),
      ]);
      const u1 = c.forUser("u1");
      expect(u1.user).toBe("u1");
      expect((await u1.find(where.all())).map((r) => r.id).sort()).toEqual(["a", "c"]);
      expect(await u1.count(where.all())).toBe(2);
      expect(await u1.count(where.eq("user", "u2"))).toBe(0);
      expect((await u1.get(["a", "b", "nope"])).map((r) => r.id)).toEqual(["a"]);
      // A key lookup with more conditions beside it: every one applies, and a limit counts only rows that pass.
      expect((await u1.find(where.and(where.in("id", ["a", "b", "c"]), where.eq("content", "lazy dogs sleep")))).map((r) => r.id)).toEqual(["c"]);
      expect((await u1.find(where.in("id", ["b", "c"]), { limit: 1 })).map((r) => r.id)).toEqual(["c"]);
      expect(await u1.find(where.in("id", []))).toEqual([]);
      expect((await u1.nearest(episode("q", "", "", 0, dimension).vector, where.all(), 5)).map((s) => s.row.id)).toEqual(["a", "c"]);
      expect((await u1.match("fox", where.all(), 5)).map((s) => s.row.id)).toEqual(["a"]);
      expect(await u1.match("!!! ???", where.all(), 5)).toEqual([]);
      expect((await u1.project(where.all(), ["id"])).map((r) => r.id).sort()).toEqual(["a", "c"]);
      expect(await u1.delete(where.eq("id", "b"))).toBe(0);
      expect(await u1.delete(where.all())).toBe(2);
      expect((await c.find(where.all())).map((r) => r.id)).toEqual(["b"]);
      expect(await c.forUser("u1").count(where.all())).toBe(0);
      expect((await c.forUser("u2").find(where.all())).map((r) => r.id)).toEqual(["b"]);
    });

    it("answers reads that name no end-user over every end-user's rows: merged best first, limits applied after merging", async () => {
      const { collection: c, dimension } = await make();
      const users = Array.from({ length: 12 }, (_, i) => `user-${i}`);
      const rows = users.flatMap((u, i) => [episode(`${u}-a`, u, `harbour lights ${i}`, i, dimension), episode(`${u}-b`, u, `quiet garden ${i}`, i + 1, dimension)]);
      await c.upsert(rows);
      expect(await c.count(where.all())).toBe(24);
      expect(await c.count(where.eq("user", "user-7"))).toBe(2);
      expect((await c.find(where.all())).length).toBe(24);
      expect((await c.find(where.all(), { limit: 5 })).length).toBe(5);
      const ids = rows.filter((_, i) => i % 5 === 0).map((r) => r.id);
      expect((await c.get(ids)).map((r) => r.id).sort()).toEqual([...ids].sort());
      expect((await c.project(where.all(), ["id", "user"])).length).toBe(24);
      // The rows whose vector points at axis 3 score 1; every other row scores 0.
      const best = rows.filter((r) => r.vector[3] === 1).map((r) => r.id).sort();
      expect(best.length).toBeGreaterThan(2);
      const query = episode("q", "", "", 3, dimension).vector;
      const near = await c.nearest(query, where.all(), best.length + 2);
      expect(near.length).toBe(best.length + 2);
      expect(near.slice(0, best.length).map((s) => s.row.id).sort()).toEqual(best);
      expect(near.map((s) => s.score)).toEqual([...near.map((s) => s.score)].sort((a, b) => b - a));
      const two = await c.nearest(query, where.all(), 2);
      expect(two.length).toBe(2);
      expect(two.every((s) => best.includes(s.row.id) && s.score > 0.99)).toBe(true);
      const words = await c.match("harbour", where.all(), 4);
      expect(words.length).toBe(4);
      expect(words.every((s) => s.row.id.endsWith("-a"))).toBe(true);
      expect(words.map((s) => s.score)).toEqual([...words.map((s) => s.score)].sort((a, b) => b - a));
      expect(await c.delete(where.in("id", ["user-1-a", "user-6-b", "user-11-a"]))).toBe(3);
      expect(await c.count(where.all())).toBe(21);
    });

    it(options.layered ? "holds an end-user it wrote in memory, current with every write" : "holds nothing in memory", async () => {
      const { collection: c, dimension } = await make();
      await c.upsert([episode("a", "u1", "first", 0, dimension)]);
      expect(await c.forUser("u1").count(where.all())).toBe(1);
      expect(c.forUser("u1").inMemory()).toBe(options.layered === true);
      await c.insertNew([episode("b", "u1", "second", 1, dimension)]);
      expect((await c.forUser("u1").find(where.all())).map((r) => r.id).sort()).toEqual(["a", "b"]);
      expect(await c.forUser("u1").delete(where.eq("id", "a"))).toBe(1);
      expect((await c.forUser("u1").find(where.all())).map((r) => r.id)).toEqual(["b"]);
    });
  });
}
