import { beforeAll, describe, expect, it } from "vitest";
import { createUseEmbedder, type UseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { USE_CALIBRATION } from "../src/core/drift/calibration.js";
import { scoreDrift } from "../src/core/drift/drift-score.js";
import { DRIFT_CALIBRATION } from "./fixtures/drift-calibration.js";

// The calibration property on the real `use` model: the same math the DriftService runs for the
// first response of a scope (goal and constraints set, no centroid yet).
let embedder: UseEmbedder;
beforeAll(async () => {
  embedder = createUseEmbedder();
  await embedder.warmUp();
});

describe("drift calibration on the use embedder", () => {
  for (const set of DRIFT_CALIBRATION) {
    it(`separates on-topic from off-topic answers for "${set.goal}"`, async () => {
      const [goal, ...rest] = await embedder.embed([set.goal, ...set.constraints, ...set.onTopic, ...set.offTopic]);
      const constraints = set.constraints.map((text, i) => ({ text, vector: rest[i] }));
      const answers = rest.slice(set.constraints.length);
      const ref = { goal: { text: set.goal, vector: goal }, constraints };
      set.onTopic.forEach((text, i) => {
        const s = scoreDrift(answers[i], ref, USE_CALIBRATION);
        expect(["on_track", "nudge"], `${text} (${s.score.toFixed(3)})`).toContain(s.verdict);
      });
      set.offTopic.forEach((text, i) => {
        const s = scoreDrift(answers[set.onTopic.length + i], ref, USE_CALIBRATION);
        expect(s.verdict, `${text} (${s.score.toFixed(3)})`).toBe("block");
      });
    });
  }
});
