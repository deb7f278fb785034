import { type AnchorRecord, hasAnchors } from "../../core/drift/anchor-record.js";
import { calibrationFor } from "../../core/drift/calibration.js";
import { correctiveText, type DriftReference, type DriftScore, scoreDrift } from "../../core/drift/drift-score.js";
import { foldMean } from "../../core/drift/vector-math.js";
import type { ScopeKey } from "../../core/records.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import { anchorId, emptyAnchors, updateAnchors } from "./anchor-store.js";

/** A validated drift check: anything undefined was not sent. */
export interface CheckInput {
  key: ScopeKey;
  goal?: string;
  constraints?: string[];
  response?: string;
}

/** What a check found; `score` is absent when only anchors were set. */
export interface CheckResult {
  score?: DriftScore;
  /** Goal and constraints to steer back with, when the verdict is NUDGE or worse. */
  corrective: string;
}

/** The reference vectors of an anchor row. */
function referenceOf(a: AnchorRecord): DriftReference {
  return {
    goal: a.goal !== "" ? { text: a.goal, vector: a.goalVector } : undefined,
    constraints: a.constraints.map((text, i) => ({ text, vector: a.constraintVectors[i] })),
    centroid: a.acceptedTurns > 0 ? a.centroid : undefined,
  };
}

/**
 * Sets anchors and/or scores a response, in one embedding call. A new goal (or a new embedding
 * model, whose vectors cannot be compared with the old ones) restarts the centroid; only accepted
 * turns (ON_TRACK, NUDGE) are folded into it, so drift can never redefine the topic.
 */
export async function checkDrift(deps: ServiceDeps, tenant: string, input: CheckInput): Promise<CheckResult> {
  const anchors = await deps.store.anchors(tenant);
  const id = anchorId(tenant, input.key);
  const model = deps.embedder.model;
  const now = deps.clock.now().getTime();
  const fresh = emptyAnchors(id, input.key, model, now);
  const stored = (await anchors.get([id]))[0] ?? fresh;
  const stale = stored.embedModel !== model;

  const goal = input.goal ?? stored.goal;
  const constraints = input.constraints ?? stored.constraints;
  const embedGoal = goal !== "" && (input.goal !== undefined || stale);
  const embedConstraints = input.constraints !== undefined || stale;
  const texts = [...(embedGoal ? [goal] : []), ...(embedConstraints ? constraints : []), ...(input.response !== undefined ? [input.response] : [])];
  const vectors = texts.length > 0 ? await deps.embedder.embed(texts) : [];
  let at = 0;
  const goalVector = embedGoal ? vectors[at++] : goal === "" ? new Float32Array(0) : stored.goalVector;
  const constraintVectors = embedConstraints ? constraints.map(() => vectors[at++]) : stored.constraintVectors;
  const responseVector = input.response !== undefined ? vectors[at] : undefined;

  const restart = stale || (input.goal !== undefined && input.goal !== stored.goal);
  const anchorsChanged = input.goal !== undefined || input.constraints !== undefined || stale;
  const current: AnchorRecord = {
    ...stored,
    goal,
    goalVector,
    constraints,
    constraintVectors,
    centroid: restart ? new Float32Array(0) : stored.centroid,
    acceptedTurns: restart ? 0 : stored.acceptedTurns,
    embedModel: model,
  };
  const score = responseVector ? scoreDrift(responseVector, referenceOf(current), calibrationFor(deps.embedder.mode)) : undefined;
  const fold = score?.accepted === true && responseVector !== undefined;

  if (anchorsChanged || fold) {
    await updateAnchors(anchors, fresh, (row) => {
      let next = row;
      if (anchorsChanged) {
        next = { ...row, goal, goalVector, constraints, constraintVectors, embedModel: model };
        if (restart) next = { ...next, centroid: new Float32Array(0), acceptedTurns: 0 };
      }
      if (fold && responseVector && next.embedModel === model) {
        next = { ...next, centroid: foldMean(next.centroid, next.acceptedTurns, responseVector), acceptedTurns: next.acceptedTurns + 1 };
      }
      return { ...next, updatedAt: now };
    });
  }
  const advise = score !== undefined && score.verdict !== "on_track" && hasAnchors(current);
  return { score, corrective: advise ? correctiveText(current.goal, current.constraints) : "" };
}

/** The anchors of a scope, or undefined when it has none. */
export async function getAnchors(deps: ServiceDeps, tenant: string, key: ScopeKey): Promise<AnchorRecord | undefined> {
  const [row] = await (await deps.store.anchors(tenant)).get([anchorId(tenant, key)]);
  return row;
}

/** Removes the anchors (and centroid) of a scope; true when there were any. */
export async function clearAnchors(deps: ServiceDeps, tenant: string, key: ScopeKey): Promise<boolean> {
  const anchors = await deps.store.anchors(tenant);
  return (await anchors.delete(where.eq("id", anchorId(tenant, key)))) > 0;
}
