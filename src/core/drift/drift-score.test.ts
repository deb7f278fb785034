import { describe, expect, it } from "vitest";
import { cosineToDistance, USE_CALIBRATION } from "./calibration.js";
import { correctiveText, DRIFT_WEIGHTS, scoreDrift, verdictFor } from "./drift-score.js";
import { clampedCosine, foldMean } from "./vector-math.js";

const unit = (i: number, n = 4) => Float32Array.from({ length: n }, (_, j) => (j === i ? 1 : 0));
/** A unit vector at cosine `c` to e0, in the e0/e1 plane. */
const atCosine = (c: number) => Float32Array.from([c, Math.sqrt(1 - c * c), 0, 0]);
const CAL = { similar: 0.6, unrelated: 0.2 };

describe("cosineToDistance", () => {
  it("is 0 at and above `similar`, 1 at and below `unrelated`, linear between", () => {
    expect(cosineToDistance(0.9, CAL)).toBe(0);
    expect(cosineToDistance(0.6, CAL)).toBe(0);
    expect(cosineToDistance(0.2, CAL)).toBe(1);
    expect(cosineToDistance(-0.5, CAL)).toBe(1);
    expect(cosineToDistance(0.4, CAL)).toBeCloseTo(0.5, 12);
    expect(cosineToDistance(0.3, CAL)).toBeCloseTo(0.75, 12);
  });

  it("decreases as similarity grows, within [0,1]", () => {
    let last = 2;
    for (let c = -1; c <= 1.0001; c += 0.05) {
      const d = cosineToDistance(c, USE_CALIBRATION);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(1);
      expect(d).toBeLessThanOrEqual(last);
      last = d;
    }
  });
});

describe("verdictFor", () => {
  it("follows the ladder 0.25 / 0.45 / 0.70", () => {
    expect(verdictFor(0)).toBe("on_track");
    expect(verdictFor(0.2499)).toBe("on_track");
    expect(verdictFor(0.25)).toBe("nudge");
    expect(verdictFor(0.4499)).toBe("nudge");
    expect(verdictFor(0.45)).toBe("correct");
    expect(verdictFor(0.6999)).toBe("correct");
    expect(verdictFor(0.7)).toBe("block");
    expect(verdictFor(1)).toBe("block");
  });
});

describe("scoreDrift", () => {
  const goal = { text: "goal", vector: unit(0) };

  it("fuses goal, centroid and novelty with 0.55 / 0.30 / 0.15", () => {
    const s = scoreDrift(unit(2), { goal, constraints: [{ text: "rule", vector: unit(1) }], centroid: unit(2) }, CAL);
    expect(s.goalDistance).toBe(1);
    expect(s.centroidDistance).toBe(0);
    expect(s.novelty).toBe(1);
    expect(s.score).toBeCloseTo(DRIFT_WEIGHTS.goal + DRIFT_WEIGHTS.novelty, 12);
    expect(s.verdict).toBe("block");
    expect(s.needsIntervention).toBe(true);
    expect(s.accepted).toBe(false);
  });

  it("is ON_TRACK and accepted for the goal itself", () => {
    const s = scoreDrift(unit(0), { goal, constraints: [] }, CAL);
    expect(s).toMatchObject({ score: 0, verdict: "on_track", accepted: true, needsIntervention: false, nearestAnchor: "goal" });
  });

  it("walks the ladder as the response moves away from the goal", () => {
    const verdicts = [0.6, 0.45, 0.35, 0.2].map((c) => scoreDrift(atCosine(c), { goal, constraints: [] }, CAL).verdict);
    expect(verdicts).toEqual(["on_track", "nudge", "correct", "block"]);
    const nudge = scoreDrift(atCosine(0.45), { goal, constraints: [] }, CAL);
    expect(nudge.accepted).toBe(true);
    expect(nudge.needsIntervention).toBe(false);
    const correct = scoreDrift(atCosine(0.35), { goal, constraints: [] }, CAL);
    expect(correct.accepted).toBe(false);
    expect(correct.needsIntervention).toBe(true);
  });

  it("uses the goal distance for the centroid before any turn was accepted", () => {
    const s = scoreDrift(atCosine(0.4), { goal, constraints: [] }, CAL);
    expect(s.centroidDistance).toBe(s.goalDistance);
    expect(s.goalDistance).toBeCloseTo(0.5, 6);
  });

  it("names the nearest anchor and measures novelty from it", () => {
    const s = scoreDrift(unit(1), { goal, constraints: [{ text: "a", vector: unit(3) }, { text: "b", vector: unit(1) }] }, CAL);
    expect(s.nearestAnchor).toBe("b");
    expect(s.novelty).toBe(0);
    expect(s.goalDistance).toBe(1);
  });

  it("without a goal, measures the goal distance from the nearest constraint", () => {
    const s = scoreDrift(unit(1), { constraints: [{ text: "b", vector: unit(1) }] }, CAL);
    expect(s.goalDistance).toBe(0);
    expect(s.verdict).toBe("on_track");
  });

  it("with no anchors and no centroid there is nothing to drift from", () => {
    const s = scoreDrift(unit(1), { constraints: [] }, CAL);
    expect(s).toMatchObject({ score: 0, verdict: "on_track", accepted: true, nearestAnchor: "" });
  });

  it("with only a centroid, every distance is from the centroid", () => {
    const s = scoreDrift(unit(1), { constraints: [], centroid: unit(0) }, CAL);
    expect([s.goalDistance, s.centroidDistance, s.novelty]).toEqual([1, 1, 1]);
    expect(s.verdict).toBe("block");
  });
});

describe("vector math", () => {
  it("cosine is scale-free and 0 for empty or zero vectors", () => {
    expect(clampedCosine(Float32Array.from([2, 0]), Float32Array.from([5, 0]))).toBeCloseTo(1, 6);
    expect(clampedCosine(new Float32Array(0), new Float32Array(0))).toBe(0);
    expect(clampedCosine(Float32Array.from([0, 0]), Float32Array.from([1, 0]))).toBe(0);
  });

  it("foldMean keeps a running mean", () => {
    let mean: Float32Array = new Float32Array(0);
    const xs = [unit(0), unit(1), unit(1), unit(2)];
    xs.forEach((x, i) => (mean = foldMean(mean, i, x)));
    expect(Array.from(mean)).toEqual([0.25, 0.5, 0.25, 0]);
  });
});

describe("correctiveText", () => {
  it("holds the goal and the constraints", () => {
    expect(correctiveText("Assess traffic.", ["report times in Zulu", "cite sources"])).toBe(
      "Assess traffic.\nConstraints:\n- report times in Zulu\n- cite sources",
    );
    expect(correctiveText("", [])).toBe("");
  });
});
