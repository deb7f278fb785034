/** Small vector helpers for drift scoring: a handful of dot products, no model call. */

/**
 * Cosine similarity of any two vectors (not assumed unit length), clamped to [-1, 1]; 0 when either
 * is empty or zero. For L2-normalised vectors `core/ranking.cosine` (a plain dot product) is cheaper.
 */
export function clampedCosine(a: Float32Array, b: Float32Array): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return 0;
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

/**
 * Folds one more accepted turn into a running mean: `mean + (v − mean) / (count + 1)`.
 * With `count` 0 (or an empty mean) the result is a copy of `v`.
 */
export function foldMean(mean: Float32Array, count: number, v: Float32Array): Float32Array {
  if (count <= 0 || mean.length !== v.length) return Float32Array.from(v);
  const n = count + 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = mean[i] + (v[i] - mean[i]) / n;
  return out;
}
