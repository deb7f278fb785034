import type { ScopeKey } from "../records.js";

/**
 * The drift anchors of one scope (exactly that scope, not the scopes below it): the goal, the
 * pinned constraints, their vectors, and the running centroid of accepted turns.
 * Times are epoch ms.
 */
export interface AnchorRecord extends ScopeKey {
  /** Derived from the tenant and the scope, so a scope has one row. */
  id: string;
  /** "" when no goal is set. */
  goal: string;
  /** Empty when no goal is set. */
  goalVector: Float32Array;
  constraints: string[];
  /** One vector per constraint, in the same order. */
  constraintVectors: Float32Array[];
  /** Mean of the accepted turns' vectors; empty before the first accepted turn. */
  centroid: Float32Array;
  /** Turns that moved the centroid (ON_TRACK or NUDGE). */
  acceptedTurns: number;
  /** The model that made the vectors; anchors are re-embedded when it changes. */
  embedModel: string;
  createdAt: number;
  updatedAt: number;
}

/** True when the record holds a goal or at least one constraint. */
export function hasAnchors(a: Pick<AnchorRecord, "goal" | "constraints">): boolean {
  return a.goal !== "" || a.constraints.length > 0;
}
