/**
 * Chooses NOT_CURRENT_FACTOR and REPLACED_FACTOR (core/fact-search.ts), one after the other, on the *tune* half of the supersede scenarios,
 * by leave-one-set-out cross-validation, from the hits a `bench:judgement -- --only supersede`
 * run recorded (their scores with the factor in use then). Reads tune rows only.
 *
 *   npx tsx bench/judgement/sweep-ranking.ts bench/results/judgement-supersede.json
 */
import { readFileSync } from "node:fs";
import { NOT_CURRENT_FACTOR, notCurrentFor, REPLACED_FACTOR } from "../../src/core/fact-search.js";
import { loadScenarios } from "../support/judgement-labels.js";
import type { ScenarioRow } from "./supersede.js";

const file = process.argv[2] ?? "bench/results/judgement-supersede.json";
const all = (JSON.parse(readFileSync(file, "utf8")) as { supersede: { rows: ScenarioRow[] } }).supersede.rows;
// Rows of a run before the bench recorded the source set get it from the labels.
const sourceOf = new Map(loadScenarios("bench/labels").map((s) => [`${s.first}\n${s.second}`, s.source] as const));
const rows = all.filter((r) => r.half === "tune").map((r) => ({ ...r, source: r.source ?? sourceOf.get(`${r.first}\n${r.second}`) ?? "" }));
// Rows of a run before the bench recorded `replaced` were scored without REPLACED_FACTOR.
const recordedReplaced = rows.some((r) => r.hits.some((h) => h.replaced !== undefined));
const sweeps = {
  "not current": [1, 0.97, 0.95, 0.92, 0.9, 0.87, 0.85, 0.8, 0.75, 0.7, 0.6],
  replaced: [1, 1.03, 1.05, 1.08, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4],
};

/** Right with these two factors, rescoring the recorded hits. */
function right(r: ScenarioRow, notCurrent: number, replaced: number): boolean {
  const not = notCurrentFor(r.question);
  let top = "";
  let best = -Infinity;
  for (const h of r.hits) {
    const was = (not(h.category) ? NOT_CURRENT_FACTOR : 1) * (h.replaced && recordedReplaced ? REPLACED_FACTOR : 1);
    const s = (h.score / was) * (not(h.category) ? notCurrent : 1) * (h.replaced ? replaced : 1);
    if (s > best) [best, top] = [s, h.text];
  }
  return r.closedRight && top.toLowerCase().includes(r.expected.toLowerCase());
}

for (const which of ["not current", "replaced"] as const) {
  const count = (rs: readonly ScenarioRow[], f: number) =>
    rs.filter((r) => (which === "not current" ? right(r, f, 1) : right(r, NOT_CURRENT_FACTOR, f))).length;
  console.log(`\n${which} factor`);
  for (const f of sweeps[which]) console.log(`factor ${f}: tune right ${count(rows, f)}/${rows.length}`);
  const sources = [...new Set(rows.map((r) => r.source))];
  let cv = 0;
  for (const held of sources) {
    const train = rows.filter((r) => r.source !== held);
    const test = rows.filter((r) => r.source === held);
    // The most right on the other sets; ties go to the factor nearest 1 (the least change).
    const f = sweeps[which].reduce((a, b) => (count(train, b) > count(train, a) ? b : a));
    cv += count(test, f);
    console.log(`held out ${held}: factor ${f} → ${count(test, f)}/${test.length}`);
  }
  console.log(`cross-validated by set (tune only): ${cv}/${rows.length} (with no factor: ${count(rows, 1)})`);
}
