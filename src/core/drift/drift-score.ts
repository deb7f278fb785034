import { type DriftCalibration, cosineToDistance } from "./calibration.js";
import { clampedCosine } from "./vector-math.js";

/** Fusion weights of the three distances (goal-dominant, from the Lucenia design). */
export const DRIFT_WEIGHTS = { goal: 0.55, centroid: 0.3, novelty: 0.15 } as const;

/** Score thresholds: below `nudge` is ON_TRACK, below `correct` NUDGE, below `block` CORRECT, else BLOCK. */
export const DRIFT_THRESHOLDS = { nudge: 0.25, correct: 0.45, block: 0.7 } as const;

/** The escalation ladder, in increasing severity. */
export type DriftVerdict = "on_track" | "nudge" | "correct" | "block";

/** The vectors a response is scored against. */
export interface DriftReference {
  goal?: { text: string; vector: Float32Array };
  constraints: readonly { text: string; vector: Float32Array }[];
  /** Mean of the accepted turns; absent before the first one. */
  centroid?: Float32Array;
}

/** A scored response. */
export interface DriftScore {
  goalDistance: number;
  centroidDistance: number;
  novelty: number;
  /** 0.55·goal + 0.30·centroid + 0.15·novelty, in [0,1]. */
  score: number;
  verdict: DriftVerdict;
  /** From CORRECT up. */
  needsIntervention: boolean;
  /** True for ON_TRACK and NUDGE: only these may move the centroid. */
  accepted: boolean;
  /** Text of the anchor (goal or constraint) closest to the response; "" without anchors. */
  nearestAnchor: string;
}

/** The verdict for a fused score. */
export function verdictFor(score: number): DriftVerdict {
  if (score < DRIFT_THRESHOLDS.nudge) return "on_track";
  if (score < DRIFT_THRESHOLDS.correct) return "nudge";
  if (score < DRIFT_THRESHOLDS.block) return "correct";
  return "block";
}

/**
 * Scores a response vector against a scope's anchors. Three distances in [0,1]:
 * - goal: from the goal (without a goal, from the nearest constraint);
 * - centroid: from the running centroid of accepted turns (before the first, the goal distance);
 * - novelty: from the nearest anchor of all (goal and constraints), i.e. how unmoored it is.
 * With no anchors and no centroid there is nothing to drift from: every distance is 0.
 */
export function scoreDrift(response: Float32Array, ref: DriftReference, calibration: DriftCalibration): DriftScore {
  const anchors = [...(ref.goal ? [ref.goal] : []), ...ref.constraints];
  const distanceTo = (v: Float32Array) => cosineToDistance(clampedCosine(response, v), calibration);
  let nearestAnchor = "";
  let novelty = anchors.length > 0 ? 1 : 0;
  for (const a of anchors) {
    const d = distanceTo(a.vector);
    if (nearestAnchor === "" || d < novelty) {
      novelty = d;
      nearestAnchor = a.text;
    }
  }
  const fromCentroid = ref.centroid && ref.centroid.length > 0 ? distanceTo(ref.centroid) : undefined;
  const goalDistance = ref.goal ? distanceTo(ref.goal.vector) : anchors.length > 0 ? novelty : (fromCentroid ?? 0);
  const centroidDistance = fromCentroid ?? goalDistance;
  if (anchors.length === 0) novelty = centroidDistance;
  const score = clamp01(DRIFT_WEIGHTS.goal * goalDistance + DRIFT_WEIGHTS.centroid * centroidDistance + DRIFT_WEIGHTS.novelty * novelty);
  const verdict = verdictFor(score);
  return {
    goalDistance,
    centroidDistance,
    novelty,
    score,
    verdict,
    needsIntervention: verdict === "correct" || verdict === "block",
    accepted: verdict === "on_track" || verdict === "nudge",
    nearestAnchor,
  };
}

/**
 * The corrective context to steer back with: the goal, then the constraints as a list.
 * Empty when the scope has neither.
 */
export function correctiveText(goal: string, constraints: readonly string[]): string {
  const lines: string[] = [];
  if (goal !== "") lines.push(goal);
  if (constraints.length > 0) lines.push("Constraints:", ...constraints.map((c) => `- ${c}`));
  return lines.join("\n");
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
