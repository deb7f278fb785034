/**
 * Chooses the thresholds of the slot judgement by meaning (`slot-meaning.ts`) for supersede by
 * leave-one-set-out cross-validation on the *tune* half of the supersede sets: for each source set,
 * the thresholds that close the most positives of the other sets' tune scenarios without closing
 * any of their negatives are scored on the held-out set's tune scenarios. Runs the offline
 * extractor directly (turn 1 → stored facts with their `use` vectors → turn 2), not the whole Add
 * path, so only the closing decision is measured (ranking is bench:judgement's). Reads no
 * validate scenario.
 *
 *   npx tsx bench/judgement/sweep-meaning.ts
 */
import { createUseEmbedder } from "../../src/adapters/embedders/use-embedder.js";
import { extractOffline, type SlotMeaning, statementSentences } from "../../src/core/extract/offline-extractor.js";
import { STORED_SLOT_THRESHOLDS, SLOT_MEANING_THRESHOLDS, type SlotMeaningThresholds, slotByMeaning, slotPrototypeTexts, slotsByMeaning } from "../../src/core/extract/slot-meaning.js";
import type { SlotName } from "../../src/core/extract/slots.js";
import { loadScenarios } from "../support/judgement-labels.js";

const T0 = Date.UTC(2025, 2, 1, 12);
const YEAR = 365 * 86_400_000;

const embedder = createUseEmbedder();
const scenarios = loadScenarios("bench/labels").filter((s) => s.half === "tune");
const texts = slotPrototypeTexts();
const protoVectors = await embedder.embed(texts.map((t) => t.text));
const protos = texts.map((t, i) => ({ slot: t.slot, vector: protoVectors[i] }));


interface Prepared {
  source: string;
  closes: boolean;
  speaker: string;
  second: string;
  stored: { id: string; text: string; vector: Float32Array }[];
  sentences: { text: string; vector: Float32Array }[];
}

const prepared: Prepared[] = [];
for (const s of scenarios) {
  const first = extractOffline({ messages: [{ id: "t1", role: "user", name: s.speaker, content: s.first }], observedAt: T0, storedFacts: [], strategies: [] });
  const storedVectors = first.length > 0 ? await embedder.embed(first.map((f) => f.text)) : [];
  const sentences = statementSentences(s.second);
  const sentenceVectors = sentences.length > 0 ? await embedder.embed(sentences) : [];
  prepared.push({
    source: s.source,
    closes: s.closes,
    speaker: s.speaker,
    second: s.second,
    stored: first.map((f, i) => ({ id: `f${i}`, text: f.text, vector: storedVectors[i] })),
    sentences: sentences.map((text, i) => ({ text, vector: sentenceVectors[i] })),
  });
}

const memo = new Map<string, boolean>();
function closes(p: Prepared, i: number, statement: SlotMeaningThresholds, stored: SlotMeaningThresholds): boolean {
  const bySentence = new Map<string, SlotName>();
  for (const s of p.sentences) {
    const slot = slotByMeaning(s.vector, protos, statement);
    if (slot) bySentence.set(s.text, slot);
  }
  const byStored = new Map<string, SlotName[]>();
  for (const f of p.stored) {
    const slots = slotsByMeaning(f.vector, protos, stored);
    if (slots.length > 0) byStored.set(f.id, slots);
  }
  const key = `${i}|${JSON.stringify([...bySentence])}|${JSON.stringify([...byStored])}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const meaning: SlotMeaning = { sentences: bySentence, stored: byStored };
  const facts = extractOffline({
    messages: [{ id: "t2", role: "user", name: p.speaker, content: p.second }],
    observedAt: T0 + YEAR,
    storedFacts: p.stored.map((f) => ({ id: f.id, text: f.text })),
    strategies: [],
    meaning,
  });
  const out = facts.some((f) => f.supersedes.length > 0);
  memo.set(key, out);
  return out;
}

interface Config {
  statement: SlotMeaningThresholds;
  stored: SlotMeaningThresholds;
}
const configs: Config[] = [];
for (const a of [0.4, 0.45, 0.5, 0.55]) {
  for (const b of [0, 0.03, 0.05, 0.08]) {
    for (const c of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55]) {
      for (const d of [0, 0.02, 0.05]) configs.push({ statement: { minSimilarity: a, minMargin: b }, stored: { minSimilarity: c, minMargin: d } });
    }
  }
}

/** Positives closed and negatives closed of a config over some prepared scenarios (by index). */
function score(config: Config, idx: readonly number[]) {
  let pos = 0;
  let neg = 0;
  for (const i of idx) {
    const c = closes(prepared[i], i, config.statement, config.stored);
    if (c && prepared[i].closes) pos++;
    if (c && !prepared[i].closes) neg++;
  }
  return { pos, neg };
}

/** The best config on some scenarios: no negative closed, most positives closed, then the strictest. */
function best(idx: readonly number[]): Config {
  let chosen = configs[0];
  let top = -1;
  for (const c of configs) {
    const { pos, neg } = score(c, idx);
    const value = neg > 0 ? -1 : pos;
    if (value >= top) [chosen, top] = [c, value];
  }
  return chosen;
}

const all = prepared.map((_, i) => i);
const sources = [...new Set(prepared.map((p) => p.source))];
let cvPos = 0;
let cvNeg = 0;
for (const held of sources) {
  const train = all.filter((i) => prepared[i].source !== held);
  const test = all.filter((i) => prepared[i].source === held);
  const c = best(train);
  const r = score(c, test);
  cvPos += r.pos;
  cvNeg += r.neg;
  const positives = test.filter((i) => prepared[i].closes).length;
  console.log(`held out ${held}: ${JSON.stringify(c)} → positives closed ${r.pos}/${positives}, negatives closed ${r.neg}/${test.length - positives}`);
}
const positives = all.filter((i) => prepared[i].closes).length;
console.log(`cross-validated (by set, tune only): positives closed ${cvPos}/${positives}, negatives closed ${cvNeg}/${all.length - positives}`);
const final = best(all);
const current = { statement: SLOT_MEANING_THRESHOLDS, stored: STORED_SLOT_THRESHOLDS };
console.log(`chosen on all of tune: ${JSON.stringify(final)} → ${JSON.stringify(score(final, all))}; today's ${JSON.stringify(score(current, all))}`);
