/**
 * L2-regularised logistic regression (binary and multinomial) by full-batch gradient descent with
 * Adam, and deterministic stratified folds: the trainers of the judgement models (issue 21).
 */

/** A sample's weight in the loss: class weights balance rare classes. */
export type Weights = readonly number[];

function adamStep(w: Float64Array, g: Float64Array, m: Float64Array, v: Float64Array, t: number, rate: number) {
  for (let j = 0; j < w.length; j++) {
    m[j] = 0.9 * m[j] + 0.1 * g[j];
    v[j] = 0.999 * v[j] + 0.001 * g[j] * g[j];
    w[j] -= (rate * (m[j] / (1 - 0.9 ** t))) / (Math.sqrt(v[j] / (1 - 0.999 ** t)) + 1e-8);
  }
}

/** The non-zero entries of each sample (the bag of words is sparse): the training loops skip the zeros. */
function sparse(xs: readonly number[][]): { at: Int32Array; value: Float64Array }[] {
  return xs.map((x) => {
    const at: number[] = [];
    for (let j = 0; j < x.length; j++) if (x[j] !== 0) at.push(j);
    return { at: Int32Array.from(at), value: Float64Array.from(at, (j) => x[j]) };
  });
}

function sparseScore(w: ArrayLike<number>, bias: number, s: { at: Int32Array; value: Float64Array }): number {
  let z = bias;
  for (let k = 0; k < s.at.length; k++) z += w[s.at[k]] * s.value[k];
  return z;
}

/** Binary logistic regression; returns the weights with the bias last. `classWeight` = [negative, positive]. */
export function trainBinary(xs: readonly number[][], ys: readonly number[], l2: number, classWeight: Weights = [1, 1], epochs = 300, rate = 0.05): number[] {
  const d = xs[0].length;
  const sx = sparse(xs);
  const w = new Float64Array(d + 1);
  const m = new Float64Array(d + 1);
  const v = new Float64Array(d + 1);
  for (let t = 1; t <= epochs; t++) {
    const g = new Float64Array(d + 1);
    let total = 0;
    sx.forEach((x, i) => {
      const p = 1 / (1 + Math.exp(-sparseScore(w, w[d], x)));
      const c = classWeight[ys[i]];
      total += c;
      const e = (p - ys[i]) * c;
      for (let k = 0; k < x.at.length; k++) g[x.at[k]] += e * x.value[k];
      g[d] += e;
    });
    for (let j = 0; j <= d; j++) g[j] = g[j] / total + (j < d ? l2 * w[j] : 0);
    adamStep(w, g, m, v, t, rate);
  }
  return Array.from(w);
}

/** Multinomial logistic regression; one weight row per class, bias last. */
export function trainSoftmax(xs: readonly number[][], ys: readonly number[], classes: number, l2: number, classWeight: Weights, epochs = 200, rate = 0.05): number[][] {
  const d = xs[0].length;
  const sx = sparse(xs);
  const W = Array.from({ length: classes }, () => new Float64Array(d + 1));
  const M = W.map(() => new Float64Array(d + 1));
  const V = W.map(() => new Float64Array(d + 1));
  for (let t = 1; t <= epochs; t++) {
    const G = W.map(() => new Float64Array(d + 1));
    let total = 0;
    sx.forEach((x, i) => {
      const z = W.map((w) => sparseScore(w, w[d], x));
      const max = Math.max(...z);
      const ez = z.map((a) => Math.exp(a - max));
      const sum = ez.reduce((a, b) => a + b, 0);
      const c = classWeight[ys[i]];
      total += c;
      for (let k = 0; k < classes; k++) {
        const e = (ez[k] / sum - (k === ys[i] ? 1 : 0)) * c;
        for (let q = 0; q < x.at.length; q++) G[k][x.at[q]] += e * x.value[q];
        G[k][d] += e;
      }
    });
    for (let k = 0; k < classes; k++) {
      for (let j = 0; j <= d; j++) G[k][j] = G[k][j] / total + (j < d ? l2 * W[k][j] : 0);
      adamStep(W[k], G[k], M[k], V[k], t, rate);
    }
  }
  return W.map((w) => Array.from(w));
}

/** The linear score of `x` (bias last in `w`). */
export function score(w: ArrayLike<number>, x: readonly number[]): number {
  let z = w[x.length];
  for (let j = 0; j < x.length; j++) z += w[j] * x[j];
  return z;
}

/** Class probabilities of a multinomial model. */
export function softmax(W: readonly ArrayLike<number>[], x: readonly number[]): number[] {
  const z = W.map((w) => score(w, x));
  const max = Math.max(...z);
  const e = z.map((a) => Math.exp(a - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((a) => a / sum);
}

/** Fold numbers 0..k-1, dealt round-robin within each class in input order (deterministic, stratified). */
export function stratifiedFolds(ys: readonly number[], k: number): number[] {
  const seen = new Map<number, number>();
  return ys.map((y) => {
    const c = seen.get(y) ?? 0;
    seen.set(y, c + 1);
    return c % k;
  });
}

/** Balanced class weights: n / (classes × count), 0 for an empty class. */
export function balancedWeights(ys: readonly number[], classes: number): number[] {
  const counts = new Array<number>(classes).fill(0);
  for (const y of ys) counts[y]++;
  return counts.map((c) => (c === 0 ? 0 : ys.length / (classes * c)));
}
