/**
 * How a channel's raw scores become 0..1 before fusion.
 * - `minmax`: (v − lowest) / spread. A tiny spread (0.146 vs 0.127 cosine among three memories)
 *   becomes the full range, so noise can outvote a real word match.
 * - `floor`: (v − lowest) / max(spread, floor). A spread below the channel's floor stays small;
 *   above it this is min-max.
 * - `rank`: reciprocal rank, 60 / (60 + rank) with ties sharing a rank; ignores magnitudes.
 */
export type ChannelScaling = { kind: "minmax" } | { kind: "floor"; floors: ChannelFloors } | { kind: "rank" };

/** Smallest spread each channel is divided by (`floor` scaling), in its raw units. */
export interface ChannelFloors {
  /** BM25 score units. */
  lexical: number;
  /** Sentence-embedder cosine. */
  vector: number;
  /** Word-vector cosine. */
  words: number;
}

/** The floors `agentmem serve` uses; chosen on the LoCoMo folds (docs/recall.md). */
export const DEFAULT_FLOORS: ChannelFloors = { lexical: 2, vector: 0.25, words: 0.25 };

/** The scaling `agentmem serve` uses. */
export const DEFAULT_SCALING: ChannelScaling = { kind: "floor", floors: DEFAULT_FLOORS };

/** Min-max scales values to 0..1; a constant channel scales to 1 when positive, else 0. */
export function minMax(values: readonly number[]): number[] {
  if (values.length === 0) return [];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi - lo < 1e-12) return values.map((v) => (v > 0 ? 1 : 0));
  return values.map((v) => (v - lo) / (hi - lo));
}

/** (v − lowest) / max(spread, floor); a constant channel scales to 1 when positive, else 0. */
export function floorScale(values: readonly number[], floor: number): number[] {
  if (values.length === 0) return [];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi - lo < 1e-12) return values.map((v) => (v > 0 ? 1 : 0));
  const spread = Math.max(hi - lo, floor);
  return values.map((v) => (v - lo) / spread);
}

/** 60 / (60 + rank), rank 0 for the highest value; values ≤ 0 (no signal) score 0. */
export function rankScale(values: readonly number[]): number[] {
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]);
  const out = new Array<number>(values.length).fill(0);
  let rank = 0;
  order.forEach((i, n) => {
    if (n > 0 && values[i] < values[order[n - 1]]) rank = n;
    out[i] = values[i] > 0 ? 60 / (60 + rank) : 0;
  });
  return out;
}

/** Scales one channel's raw scores. */
export function scaleChannel(values: readonly number[], scaling: ChannelScaling, channel: keyof ChannelFloors): number[] {
  if (scaling.kind === "rank") return rankScale(values);
  if (scaling.kind === "floor") return floorScale(values, scaling.floors[channel]);
  return minMax(values);
}
