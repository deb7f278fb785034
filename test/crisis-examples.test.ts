import { describe, expect, it } from "vitest";
import { createUseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { judgeCrisis } from "../src/core/relational/crisis.js";
import { CRISIS_EXAMPLES, CRISIS_VOTE } from "../src/core/relational/crisis-examples.js";
import { crisisMeaning } from "../src/core/relational/meaning.js";
import { halfOf } from "../bench/support/label-split.js";
import { judgeOffline, prototypesFor } from "../src/services/relational/judgement.js";

describe("crisis examples (issue 21)", () => {
  it("are tune-half texts only, with crisis and look-alike messages", () => {
    expect(CRISIS_EXAMPLES.length).toBeGreaterThan(100);
    for (const [, text] of CRISIS_EXAMPLES) expect(halfOf(text), text).toBe("tune");
    expect(CRISIS_EXAMPLES.some(([label]) => label !== null)).toBe(true);
    expect(CRISIS_EXAMPLES.some(([label]) => label === null)).toBe(true);
    expect(CRISIS_VOTE.k).toBeGreaterThanOrEqual(1);
  });

  it("are embedded with the prototypes by the use embedder and read by meaning in Process's judgement", { timeout: 120_000 }, async () => {
    const embedder = createUseEmbedder();
    const prototypes = await prototypesFor(embedder);
    expect(prototypes?.examples).toHaveLength(CRISIS_EXAMPLES.length);
    // Without the examples the nearest sentences differ: the examples take part in the reading.
    const grey = "what's the point of anything, it's all grey";
    const [greyVector] = await embedder.embed([grey]);
    const withExamples = crisisMeaning({ vector: greyVector, prototypes: prototypes! }, CRISIS_VOTE.k);
    const without = crisisMeaning({ vector: greyVector, prototypes: { ...prototypes!, examples: undefined } }, CRISIS_VOTE.k);
    expect(withExamples).not.toEqual(without);

    // A quiet crisis with no cue word: the rules miss it, the reading by meaning flags it.
    const quiet = "i keep picturing the bottle of pills in the cupboard and how quiet it would be";
    expect(judgeCrisis(quiet)).toBeNull();
    const [quietVector] = await embedder.embed([quiet]);
    expect((await judgeOffline(embedder, quiet, quietVector)).crisisReason).toMatchObject({ by: "meaning" });
    // Everyday troubles are not flagged.
    for (const text of ["the dishwasher broke again, what a day", "my hamster died and i'm a bit sad"]) {
      const [v] = await embedder.embed([text]);
      expect((await judgeOffline(embedder, text, v)).crisis, text).toBe(false);
    }
  });
});
