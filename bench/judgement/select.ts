/**
 * Model selection for the crisis and emotion readings by **grouped** cross-validation inside tune
 * (issue 21): each fold holds out one source set (one writer), so the out-of-fold figures
 * estimate how the models read text by a writer they never saw — the validate situation. Reads
 * the tune half only; prints a table per grid, writes nothing.
 *
 *   npx tsx bench/judgement/select.ts crisis
 *   npx tsx bench/judgement/select.ts emotion
 */
import { createUseEmbedder } from "../../src/adapters/embedders/use-embedder.js";
import { judgeCrisisByRules, lookAlike } from "../../src/core/relational/crisis.js";
import { isShouting, normalizeMessage } from "../../src/core/relational/detector.js";
import { ruleEmotions } from "../../src/core/relational/emotion.js";
import { EMOTION_CLASSES } from "../../src/core/relational/emotion-model.js";
import { bestPerLabel, prototypeTexts } from "../../src/core/relational/meaning.js";
import { CRISIS_CLASSES, type CrisisClass } from "../../src/core/relational/prototypes.js";
import { wordFeatures } from "../../src/core/relational/text-model.js";
import { valence } from "../../src/core/relational/valence.js";
import { EMOTIONS } from "../../src/core/relational/mood.js";
import { prototypesFor } from "../../src/services/relational/judgement.js";
import { loadMessages } from "../support/judgement-labels.js";
import { groupFolds } from "./groups.js";
import { balancedWeights, score, softmax, trainBinary, trainSoftmax } from "./logistic.js";
import { embedCached, readOutOfFold } from "./vector-cache.js";
import { tuneVocabulary } from "./vocabulary.js";

const what = process.argv[2] ?? "crisis";
const all = loadMessages("bench/labels");
const tune = all.filter((m) => m.half === "tune");
const vocabulary = tuneVocabulary(all);
const V = vocabulary.length;
const embedder = createUseEmbedder();
const vectors = await embedCached(embedder, tune.map((m) => m.text));
const protos = prototypeTexts();
const protoVectors = await embedder.embed([...protos.crisis.map(([, t]) => t), ...protos.safe]);
const crisisProtos = protos.crisis.map(([label], i) => ({ label, vector: protoVectors[i] }));
const safeProtos = protos.safe.map((_, i) => ({ label: "safe" as const, vector: protoVectors[protos.crisis.length + i] }));
const words = tune.map((m) => wordFeatures(m.text, valence(m.text), vocabulary));
const S = 4;
const blocks = tune.map((m, i) => {
  const v = vectors[i];
  const cls = bestPerLabel<CrisisClass>(v, crisisProtos);
  const classes = CRISIS_CLASSES.map((c) => cls.get(c) ?? 0);
  const safe = bestPerLabel(v, safeProtos).get("safe") ?? 0;
  const w = words[i];
  return {
    vec: Array.from(v, (x) => x * S),
    protos: [...classes.map((s) => s * S), safe * S, (Math.max(...classes) - safe) * S],
    bag: w.slice(0, V),
    concepts: w.slice(V, w.length - 1),
    valence: [w[w.length - 1]],
  };
});
type Block = keyof (typeof blocks)[number];
const build = (groups: readonly Block[]) => blocks.map((b) => groups.flatMap((g) => b[g]));
const { folds, names } = groupFolds(tune.map((m) => m.source));
const K = names.length;
console.log(`${tune.length} tune messages, vocabulary ${V}; grouped folds: ${names.map((n, k) => `${n} (${folds.filter((f) => f === k).length})`).join(", ")}`);

if (what === "crisis") {
  const ys = tune.map((m) => (m.crisis ? 1 : 0));
  const rules = tune.map((m) => judgeCrisisByRules(m.text) !== null);
  const cancelled = tune.map((m) => lookAlike(m.text));
  const crises = ys.filter((y) => y === 1).length;
  const safe = ys.length - crises;
  const oofOf = (xs: number[][], l2: number, pw: number) => {
    const oof = new Array<number>(xs.length);
    for (let k = 0; k < K; k++) {
      const train = xs.map((_, i) => i).filter((i) => folds[i] !== k);
      const w = trainBinary(train.map((i) => xs[i]), train.map((i) => ys[i]), l2, [1, pw]);
      xs.forEach((x, i) => {
        if (folds[i] === k) oof[i] = score(w, x);
      });
    }
    return oof;
  };
  const auc = (oof: readonly number[]) => {
    const pos = oof.filter((_, i) => ys[i] === 1);
    const neg = oof.filter((_, i) => ys[i] === 0);
    let sum = 0;
    for (const p of pos) for (const n of neg) sum += p > n ? 1 : p === n ? 0.5 : 0;
    return sum / (pos.length * neg.length);
  };
  // Recall of the model alone and of rules OR model, at the model's own false alarms within each budget.
  const at = (oof: readonly number[], fa: number) => {
    const neg = oof.filter((_, i) => ys[i] === 0 && !cancelled[i]).sort((a, b) => b - a);
    const t = neg[Math.floor(fa * safe)] + 1e-9;
    let alone = 0;
    let or = 0;
    for (let i = 0; i < ys.length; i++) {
      if (ys[i] !== 1) continue;
      const m = !cancelled[i] && oof[i] >= t;
      if (m) alone++;
      if (m || rules[i]) or++;
    }
    return `${alone}/${or}`;
  };
  const sets: Block[][] = (process.env.SETS ?? "vec,protos,bag,concepts,valence;bag,concepts,valence;vec,protos,concepts,valence;vec,protos;protos,concepts,valence")
    .split(";")
    .map((s) => s.split(",") as Block[]);
  const l2s = (process.env.L2 ?? "0.001,0.003,0.01,0.03").split(",").map(Number);
  const pws = (process.env.PW ?? "2,4").split(",").map(Number);
  const rows = [];
  for (const set of sets) {
    const xs = build(set);
    for (const l2 of l2s) for (const pw of pws) {
      const oof = oofOf(xs, l2, pw);
      rows.push({ features: set.join("+"), l2, pw, auc: Number(auc(oof).toFixed(4)), "fa3 alone/or": at(oof, 0.03), "fa5": at(oof, 0.05), "fa8": at(oof, 0.08) });
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
  }
  console.log(`grouped CV over tune: ${crises} crises, ${safe} non-crisis; rules alone catch ${ys.filter((y, i) => y === 1 && rules[i]).length} (in-sample), rules false alarms ${ys.filter((y, i) => y === 0 && rules[i]).length}`);
  console.table(rows);
}

if (what === "emotion") {
  const prototypes = await prototypesFor(embedder);
  if (!prototypes) throw new Error("semantic");
  const idx = tune.map((m, i) => (m.emotions ? i : -1)).filter((i) => i >= 0);
  const found = idx.map((i) => {
    const m = tune[i];
    const v = valence(m.text);
    const oof = readOutOfFold();
    let crisis = judgeCrisisByRules(m.text);
    if (!crisis && oof?.[m.text]) crisis = { crisisClass: [...bestPerLabel(vectors[i], prototypes.crisis)].sort((a, b) => b[1] - a[1])[0][0], by: "meaning" };
    return { crisis, found: ruleEmotions(normalizeMessage(m.text), { valence: v, shouting: isShouting(m.text), crisis, shoutedAngerValence: -0.2, joyValence: 0.6 }) };
  });
  const ruleBlock = found.map((f) => EMOTIONS.map((e) => (f.found.has(e) ? 1 : 0)));
  const ys = idx.map((i) => EMOTION_CLASSES.indexOf((tune[i].emotions?.[0] ?? "none") as (typeof EMOTION_CLASSES)[number]));
  const want = idx.map((i) => tune[i].emotions ?? []);
  const right = (j: number, cls: string) => (want[j].length === 0 ? cls === "none" : want[j].includes(cls));
  const C = EMOTION_CLASSES.length;
  const ef = idx.map((i) => folds[i]);
  const balanced = balancedWeights(ys, C);
  const emoSets = (process.env.SETS ?? "vec,valence,rules,bag,concepts;vec,valence,rules,concepts;vec,valence,rules;valence,rules,bag,concepts").split(";").map((s) => s.split(","));
  const l2s = (process.env.L2 ?? "0.003,0.01,0.03,0.1").split(",").map(Number);
  const rows = [];
  const crisisEmo = (c: { crisisClass: string }) => (c.crisisClass === "medical" || c.crisisClass === "violence" ? "anxiety" : c.crisisClass === "harm_others" ? "anger" : "sadness");
  for (const set of emoSets) {
    const xs = idx.map((i, j) => set.flatMap((g) => (g === "rules" ? ruleBlock[j] : blocks[i][g as Block])));
    for (const l2 of l2s) for (const cw of (process.env.CW ?? "balanced,sqrt").split(",")) {
      const weights = cw === "balanced" ? balanced : balanced.map(Math.sqrt);
      const probs = new Array<number[]>(xs.length);
      for (let k = 0; k < K; k++) {
        const train = xs.map((_, j) => j).filter((j) => ef[j] !== k);
        if (train.length === xs.length) continue;
        // MULTI=1: a message with several labelled emotions is also a training example of each of the others.
        const extra = process.env.MULTI ? train.flatMap((j) => want[j].slice(1).map((e) => [j, EMOTION_CLASSES.indexOf(e as (typeof EMOTION_CLASSES)[number])] as const)) : [];
        const W = trainSoftmax([...train.map((j) => xs[j]), ...extra.map(([j]) => xs[j])], [...train.map((j) => ys[j]), ...extra.map(([, c]) => c)], C, l2, weights);
        xs.forEach((x, j) => {
          if (ef[j] === k) probs[j] = softmax(W, x);
        });
      }
      let model = 0;
      let withCrisis = 0;
      let rulesOnly = 0;
      let n = 0;
      probs.forEach((p, j) => {
        if (!p) return;
        n++;
        const best = EMOTION_CLASSES[p.indexOf(Math.max(...p))];
        if (right(j, best)) model++;
        const c = found[j].crisis;
        if (right(j, c ? crisisEmo(c) : best)) withCrisis++;
        if (right(j, c && c.by === "rules" ? crisisEmo(c) : best)) rulesOnly++;
      });
      // A log-odds bias on "none" and on each class, chosen on these grouped out-of-fold probabilities.
      const acc = (bias: number[]) => {
        let h = 0;
        probs.forEach((p, j) => {
          const z = p.map((q, c) => Math.log(q + 1e-12) + bias[c]);
          if (right(j, EMOTION_CLASSES[z.indexOf(Math.max(...z))])) h++;
        });
        return h / probs.length;
      };
      const noneCurve = [-1, -0.5, 0, 0.25, 0.5, 0.75, 1, 1.5].map((b) => `${b}:${acc([b, 0, 0, 0, 0, 0, 0, 0].slice(0, C)).toFixed(3)}`).join(" ");
      console.log(`none bias: ${noneCurve}`);
      rows.push({ features: set.join("+"), l2, cw, n, model: Number((model / n).toFixed(3)), "with crisis override": Number((withCrisis / n).toFixed(3)), "rules crisis override": Number((rulesOnly / n).toFixed(3)) });
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
  }
  console.table(rows);
}
