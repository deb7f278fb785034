/**
 * Trains the emotion classifier used with the `use` embedder (issue 21): multinomial logistic
 * regression, L2-regularised with class weights, over the message vector, VADER valence, the
 * emotions the rules find and the word features (a bag of stemmed words, negated stems and stem
 * bigrams, and the concept lexicons: src/core/relational/emotion-model.ts, text-model.ts), on the
 * *tune* half of bench/labels only (first labelled emotion, or none). The penalty and the class
 * weighting (balanced, or its square root) are chosen by leave-one-set-out cross-validation
 * inside tune (each fold holds out one source set, one writer: bench/judgement/groups.ts)
 * (top-emotion accuracy of the classifier's decision); validate is not read. Writes
 * src/core/relational/emotion-weights.ts and word-vocabulary.ts.
 *
 *   npx tsx bench/judgement/train-emotion.ts            # choose, train and write
 *   npx tsx bench/judgement/train-emotion.ts --dry-run  # print the cross-validation only
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createUseEmbedder } from "../../src/adapters/embedders/use-embedder.js";
import { type CrisisJudgement, judgeCrisisByRules } from "../../src/core/relational/crisis.js";
import { bestPerLabel } from "../../src/core/relational/meaning.js";
import { isShouting, normalizeMessage } from "../../src/core/relational/detector.js";
import { crisisEmotion, ruleEmotions } from "../../src/core/relational/emotion.js";
import { EMOTION_CLASSES, emotionFeatures } from "../../src/core/relational/emotion-model.js";
import { wordFeatures } from "../../src/core/relational/text-model.js";
import { valence } from "../../src/core/relational/valence.js";
import { prototypesFor } from "../../src/services/relational/judgement.js";
import { loadMessages } from "../support/judgement-labels.js";
import { groupFolds } from "./groups.js";
import { balancedWeights, softmax, trainSoftmax } from "./logistic.js";
import { embedCached, readOutOfFold } from "./vector-cache.js";
import { tuneVocabulary, writeVocabulary } from "./vocabulary.js";

const { values: args } = parseArgs({ options: { "dry-run": { type: "boolean", default: false } } });
// Round 9: the smaller penalty of the grid won, so the grid reaches one step lower.
const PENALTIES = [0.001, 0.003, 0.01];
const WEIGHTINGS = ["balanced", "sqrt"] as const;
const TRIED_WEIGHTINGS = (process.env.EMOTION_WEIGHTINGS ?? "balanced").split(",") as (typeof WEIGHTINGS)[number][];

const all = loadMessages("bench/labels");
const vocabulary = tuneVocabulary(all);
const tuneMessages = all.filter((m) => m.half === "tune").length;
const tune = all.filter((m) => m.half === "tune" && m.emotions);
const embedder = createUseEmbedder();
const prototypes = await prototypesFor(embedder);
if (!prototypes) throw new Error("the use embedder is semantic");
const vectors = await embedCached(embedder, tune.map((m) => m.text));
// The same features Process computes: the rules' emotions with the crisis read by rules and meaning.
// The crisis is the crisis trainer's out-of-fold decision (rules OR models scored by models that did
// not see the message's set), so the crisis feature is as reliable in training as on new text: read
// in-sample, it is almost always right on tune and the classifier learns to trust it too much.
const outOfFold = readOutOfFold();
if (!outOfFold) throw new Error("run bench/judgement/train-crisis-model.ts first (it writes the out-of-fold crisis decisions)");
const crisisOf = (text: string, vector: Float32Array): CrisisJudgement | null => {
  const ruled = judgeCrisisByRules(text);
  if (ruled) return ruled;
  if (!outOfFold[text]) return null;
  const [crisisClass] = [...bestPerLabel(vector, prototypes.crisis)].sort((a, b) => b[1] - a[1])[0];
  return { crisisClass, by: "meaning" };
};
const crises = tune.map((m, i) => crisisOf(m.text, vectors[i]));
const xs = tune.map((m, i) => {
  const v = valence(m.text);
  const crisis = crises[i];
  const found = ruleEmotions(normalizeMessage(m.text), { valence: v, shouting: isShouting(m.text), crisis, shoutedAngerValence: -0.2, joyValence: 0.6 });
  return emotionFeatures(vectors[i], found, v, wordFeatures(m.text, v, vocabulary));
});
const ys = tune.map((m) => EMOTION_CLASSES.indexOf((m.emotions?.[0] ?? "none") as (typeof EMOTION_CLASSES)[number]));
const right = (i: number, cls: number) => {
  const want = tune[i].emotions ?? [];
  return want.length === 0 ? cls === 0 : want.includes(EMOTION_CLASSES[cls]);
};
const K = EMOTION_CLASSES.length;
const balanced = balancedWeights(ys, K);
const weighting = (w: (typeof WEIGHTINGS)[number]) => (w === "balanced" ? balanced : balanced.map(Math.sqrt));
// Grouped folds: one source set (one writer) held out per fold (bench/judgement/groups.ts).
const grouped = groupFolds(tune.map((m) => m.source));
const folds = grouped.folds;
const FOLDS = grouped.names.length;
const argmax = (p: number[]) => p.indexOf(Math.max(...p));

const cells = PENALTIES.flatMap((l2) =>
  TRIED_WEIGHTINGS.map((classWeights) => {
    const probs = new Array<number[]>(xs.length);
    for (let k = 0; k < FOLDS; k++) {
      const train = xs.map((_, i) => i).filter((i) => folds[i] !== k);
      const W = trainSoftmax(train.map((i) => xs[i]), train.map((i) => ys[i]), K, l2, weighting(classWeights));
      xs.forEach((x, i) => {
        if (folds[i] === k) probs[i] = softmax(W, x);
      });
    }
    let hits = 0;
    let crisisOnTop = 0;
    probs.forEach((p, i) => {
      const top = argmax(p);
      if (right(i, top)) hits++;
      const c = crises[i];
      if (right(i, c ? EMOTION_CLASSES.indexOf(crisisEmotion(c)) : top)) crisisOnTop++;
    });
    return { l2, classWeights, accuracy: Number((hits / xs.length).toFixed(3)), "with the crisis's emotion on top": Number((crisisOnTop / xs.length).toFixed(3)), probs };
  }),
);
console.log(`leave-one-set-out cross-validation (${FOLDS} folds: ${grouped.names.join(", ")}) over ${tune.length} tune messages: top-emotion accuracy of the classifier`);
console.table(cells.map(({ probs: _, ...c }) => c));
const best = [...cells].sort((a, b) => b.accuracy - a.accuracy || b.l2 - a.l2)[0];
console.log(`chosen: l2=${best.l2} class weights ${best.classWeights}`);

// Per-class bias calibration: a log-odds offset per class added before the arg max, fitted on the
// grouped out-of-fold probabilities (coordinate ascent over a grid). Its own worth is estimated by
// a second grouped cross-validation: offsets fitted on the other writers' out-of-fold probabilities,
// scored on the held-out writer's.
const BIAS_GRID = [-1.5, -1.25, -1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5];
const logs = best.probs.map((p) => p.map((q) => Math.log(q + 1e-12)));
const hitsWith = (bias: readonly number[], rows: readonly number[]) => rows.filter((i) => right(i, argmax(logs[i].map((z, c) => z + bias[c])))).length;
function fitBias(rows: readonly number[]): number[] {
  const bias = new Array<number>(K).fill(0);
  for (let sweep = 0; sweep < 3; sweep++) {
    for (let c = 1; c < K; c++) {
      let top = { b: bias[c], hits: hitsWith(bias, rows) };
      for (const b of BIAS_GRID) {
        const h = hitsWith(bias.map((x, j) => (j === c ? b : x)), rows);
        if (h > top.hits || (h === top.hits && Math.abs(b) < Math.abs(top.b))) top = { b, hits: h };
      }
      bias[c] = top.b;
    }
  }
  return bias;
}
const everyRow = xs.map((_, i) => i);
let calibratedHits = 0;
for (let k = 0; k < FOLDS; k++) {
  const held = everyRow.filter((i) => folds[i] === k);
  calibratedHits += hitsWith(fitBias(everyRow.filter((i) => folds[i] !== k)), held);
}
const calibratedAccuracy = calibratedHits / xs.length;
const fitted = fitBias(everyRow);
// Kept only when it carries over to a held-out writer.
const bias = calibratedAccuracy > best.accuracy ? fitted : new Array<number>(K).fill(0);
console.log(
  `per-class bias (${EMOTION_CLASSES.map((c, i) => `${c} ${fitted[i]}`).join(", ")}): out of fold ${(hitsWith(fitted, everyRow) / xs.length).toFixed(3)} in-sample on the out-of-fold probabilities, ` +
    `${calibratedAccuracy.toFixed(3)} cross-validated against ${best.accuracy} without; ${calibratedAccuracy > best.accuracy ? "kept" : "not kept"}`,
);

if (!args["dry-run"]) {
  const W = trainSoftmax(xs, ys, K, best.l2, weighting(best.classWeights));
  writeVocabulary(vocabulary, tuneMessages);
  const rows = W.map((w) => `  [${w.map((v) => Number(v.toFixed(4))).join(",")}],`).join("\n");
  writeFileSync(
    "src/core/relational/emotion-weights.ts",
    `// Generated by bench/judgement/train-emotion.ts from the tune half of bench/labels (${tune.length} messages); do not edit.\n` +
      `// Multinomial logistic regression over emotionFeatures() (${embedder.model} vector, valence, the rules' emotions, word features), l2 ${best.l2}, ${best.classWeights} class weights;\n` +
      `// Leave-one-set-out cross-validation on tune (${FOLDS} folds): top-emotion accuracy ${best.accuracy}. Classes in EMOTION_CLASSES order.\n\n` +
      `/** The embedder model whose vectors the weights read. */\nexport const EMOTION_WEIGHTS_MODEL = ${JSON.stringify(embedder.model)};\n\n` +
      `/** One row of weights per class (the last weight is the bias). */\nexport const EMOTION_WEIGHTS: readonly (readonly number[])[] = [\n${rows}\n];\n\n` +
      `/** A log-odds offset per class added before the arg max (per-class calibration on the grouped out-of-fold probabilities; cross-validated accuracy ${calibratedAccuracy.toFixed(3)}). */\nexport const EMOTION_CLASS_BIAS: readonly number[] = [${bias.join(",")}];\n`,
  );
  console.log("wrote src/core/relational/emotion-weights.ts");
}
