import { cosine } from "../ranking.js";
import type { CrisisClass } from "./prototypes.js";

/** A labelled sentence's vector: a crisis (with its class when known) or a non-crisis look-alike. */
export interface CrisisExampleVector {
  crisis: boolean;
  crisisClass: CrisisClass | null;
  vector: Float32Array;
}

/** How close a message comes to the crisis sentences and to the non-crisis ones. */
export interface CrisisCloseness {
  /** The class of the closest crisis sentence that names one (ideation when none does). */
  crisisClass: CrisisClass;
  /** The mean of the k best similarities to crisis sentences. */
  crisis: number;
  /** The mean of the k best similarities to non-crisis sentences. */
  safe: number;
}

const meanOfBest = (xs: number[], k: number) => {
  if (xs.length === 0) return -2;
  xs.sort((a, b) => b - a);
  const n = Math.min(k, xs.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += xs[i];
  return s / n;
};

/**
 * The nearest-neighbour reading of a message: the mean similarity of its k nearest crisis
 * sentences and of its k nearest non-crisis sentences (k = 1 is the closest of each).
 */
export function crisisCloseness(vector: Float32Array, examples: readonly CrisisExampleVector[], k: number): CrisisCloseness {
  const crisis: number[] = [];
  const safe: number[] = [];
  let crisisClass: CrisisClass = "ideation";
  let closest = -2;
  for (const e of examples) {
    const s = cosine(vector, e.vector);
    if (e.crisis) {
      crisis.push(s);
      if (e.crisisClass && s > closest) [closest, crisisClass] = [s, e.crisisClass];
    } else {
      safe.push(s);
    }
  }
  return { crisisClass, crisis: meanOfBest(crisis, k), safe: meanOfBest(safe, k) };
}
