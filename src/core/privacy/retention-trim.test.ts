import { describe, expect, it } from "vitest";
import { planTrim, type TrimEpisode, type TrimMemory } from "./retention-trim.js";

const turn = (id: string, observedAt: number, memoryId = `m-${id}`, traceNumber = 0): TrimEpisode => ({ id, observedAt, traceNumber, createdAt: 0, memoryId });
const mem = (id: string, sourceIds: string[], pinned = false): TrimMemory => ({ id, pinned, sourceIds });

describe("planTrim", () => {
  it("keeps the newest turns and removes the memories only the trimmed turns wrote", () => {
    const turns = [turn("a", 1), turn("b", 2), turn("c", 3), turn("d", 4)];
    const memories = [mem("m-a", ["a"]), mem("m-b", ["b"]), mem("m-c", ["c"]), mem("m-d", ["d"])];
    expect(planTrim(turns, memories, 2)).toEqual({ episodeIds: ["b", "a"], memoryIds: ["m-a", "m-b"] });
  });

  it("never removes pinned memories, memories tied to a kept turn, or memories tied to no turn", () => {
    const turns = [turn("a", 1, "shared"), turn("b", 2, "pin"), turn("c", 3, "shared")];
    const memories = [mem("shared", ["c"]), mem("pin", ["b"], true), mem("summary", ["m1", "m2"]), mem("fact", ["a", "b"])];
    expect(planTrim(turns, memories, 1)).toEqual({ episodeIds: ["b", "a"], memoryIds: ["fact"] });
  });

  it("orders ties by trace number and does nothing at or under the cap or when unlimited", () => {
    const turns = [turn("x", 5, "", 2), turn("y", 5, "", 1), turn("z", 5, "", 3)];
    expect(planTrim(turns, [], 2).episodeIds).toEqual(["y"]);
    expect(planTrim(turns, [], 3)).toEqual({ episodeIds: [], memoryIds: [] });
    expect(planTrim(turns, [], 0)).toEqual({ episodeIds: [], memoryIds: [] });
  });
});
