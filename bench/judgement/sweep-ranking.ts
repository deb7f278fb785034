/**
 * Chooses NOT_CURRENT_FACTOR (core/fact-search.ts) on the *tune* half of the supersede scenarios,
 * by leave-one-set-out cross-validation, from the hits a `bench:judgement -- --only supersede`
 * run recorded (their scores with the factor in use then). Reads tune rows only.
 *
 *   npx tsx bench/judgement/sweep-ranking.ts bench/results/judgement-supersede.json
 */
import { readFileSync } from "node:fs";
import { NOT_CURRENT_FACTOR, notCurrentFor } from "../../src/core/fact-search.js";
import { loadScenarios } from "../support/judgement-labels.js";
import type { ScenarioRow } from "./supersede.js";

const file = process.argv[2] ?? "bench/results/judgement-supersede.json";
const all = (JSON.parse(readFileSync(file, "utf8")) as { supersede: { rows: ScenarioRow[] } }).supersede.rows;
// Rows of a run before the bench recorded the source set get it from the labels.
const sourceOf = new Map(loadScenarios("bench/labels").map((s) => [`${s.first}\n${s.second}`, s.source] as const));
const rows = all.filter((r) => r.half === "tune").map((r) => ({ ...r, source: r.source ?? sourceOf.get(`${r.first}\n${r.second}`) ?? "" }));
const factors = [1, 0.97, 0.95, 0.92, 0.9, 0.87, 0.85, 0.8, 0.75, 0.7, 0.6];

function right(r: ScenarioRow, f: number): boolean {
  const not = notCurrentFor(r.question);
  let top = "";
  let best = -Infinity;
  for (const h of r.hits) {
    const raw = not(h.category) ? h.score / NOT_CURRENT_FACTOR : h.score;
    const s = not(h.category) ? raw * f : raw;
    if (s > best) [best, top] = [s, h.text];
  }
  return r.closedRight && top.toLowerCase().includes(r.expected.toLowerCase());
}

const count = (rs: readonly ScenarioRow[], f: number) => rs.filter((r) => right(r, f)).length;
for (const f of factors) console.log(`factor ${f}: tune right ${count(rows, f)}/${rows.length}`);
const sources = [...new Set(rows.map((r) => r.source))];
let cv = 0;
for (const held of sources) {
  const train = rows.filter((r) => r.source !== held);
  const test = rows.filter((r) => r.source === held);
  // The most right on the other sets; ties go to the factor nearest 1 (the least change).
  const f = factors.reduce((a, b) => (count(train, b) > count(train, a) ? b : a));
  cv += count(test, f);
  console.log(`held out ${held}: factor ${f} → ${count(test, f)}/${test.length}`);
}
console.log(`cross-validated by set (tune only): ${cv}/${rows.length}`);
