import { describe, expect, it } from "vitest";
import { createUseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { judgeCrisisByRules } from "../src/core/relational/crisis.js";
import { CRISIS_EXAMPLES } from "../src/core/relational/crisis-examples.js";
import { crisisFeatures } from "../src/core/relational/crisis-model.js";
import { CRISIS_THRESHOLD, CRISIS_WEIGHTS, CRISIS_WEIGHTS_MODEL, CRISIS_WORD_WEIGHTS } from "../src/core/relational/crisis-weights.js";
import { EMOTION_WEIGHTS } from "../src/core/relational/emotion-weights.js";
import { emotionFeatures } from "../src/core/relational/emotion-model.js";
import { wordFeatureCount, wordFeatures } from "../src/core/relational/text-model.js";
import { WORD_VOCABULARY } from "../src/core/relational/word-vocabulary.js";
import { halfOf } from "../bench/support/label-split.js";
import { judgeOffline, prototypesFor } from "../src/services/relational/judgement.js";

describe("the trained crisis and emotion readings (issue 21)", () => {
  it("have one weight per feature plus a bias, and the vote's examples are tune-half texts only", () => {
    const v = new Float32Array(512);
    const words = wordFeatures("", 0, WORD_VOCABULARY);
    expect(words).toHaveLength(wordFeatureCount(WORD_VOCABULARY));
    expect(CRISIS_WEIGHTS).toHaveLength(crisisFeatures(v, new Map(), 0, words).length + 1);
    expect(CRISIS_WORD_WEIGHTS).toHaveLength(words.length + 1);
    for (const row of EMOTION_WEIGHTS) expect(row).toHaveLength(emotionFeatures(v, [], 0, words).length + 1);
    expect(Number.isFinite(CRISIS_THRESHOLD)).toBe(true);
    for (const [, text] of CRISIS_EXAMPLES) expect(halfOf(text), text).toBe("tune");
  });

  it("are what Process reads with the use embedder: a quiet crisis is flagged by meaning, everyday troubles are not", { timeout: 120_000 }, async () => {
    const embedder = createUseEmbedder();
    expect(embedder.model).toBe(CRISIS_WEIGHTS_MODEL);
    const prototypes = await prototypesFor(embedder);
    expect(prototypes?.crisisModel?.weights).toBe(CRISIS_WEIGHTS);
    expect(prototypes?.emotionModel?.weights).toBe(EMOTION_WEIGHTS);
    // The nearest-sentence vote's examples are not embedded when the model reads instead.
    expect(prototypes?.examples).toBeUndefined();

    const quiet = "i keep picturing the bottle of pills in the cupboard and how quiet it would be";
    expect(judgeCrisisByRules(quiet)).toBeNull();
    const [quietVector] = await embedder.embed([quiet]);
    expect((await judgeOffline(embedder, quiet, quietVector)).crisisReason).toMatchObject({ by: "meaning" });
    for (const text of ["the dishwasher broke again, what a day", "my hamster died and i'm a bit sad", "this commute is murder, two hours on the bus"]) {
      const [v] = await embedder.embed([text]);
      expect((await judgeOffline(embedder, text, v)).crisis, text).toBe(false);
    }
  });
});
