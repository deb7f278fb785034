/**
 * Offline judgement against the labelled sets in bench/labels (issue 21): crisis recall and false
 * alarms, emotion accuracy, and supersede scenarios through the real Add → Search path with
 * `--llm none`. Every set is split 50/50 into tune and validate by a fixed hash of the text
 * (bench/support/label-split.ts); validate failures are printed only with --show-validate.
 *
 *   npm run bench:judgement                     # use embedder (the serve default), both halves
 *   npm run bench:judgement -- --embedder hash  # rules alone
 *   npm run bench:judgement -- --show-validate  # the final run for the report
 *   npm run bench:judgement -- --only messages  # or: --only supersede
 *   npx tsx bench/judgement.ts --only supersede --half tune [--set supersede-s]  # while choosing (no file written)
 *
 * Writes bench/results/judgement.json (or judgement-hash.json); a run with --only writes
 * judgement[-hash]-messages.json or judgement[-hash]-supersede.json instead.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { createUseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import type { Embedder } from "../src/ports/embedder.js";
import { judgeMessages, messageFailures, messageFigures } from "./judgement/messages.js";
import { runScenarios, scenarioFailures, scenarioFigures } from "./judgement/supersede.js";
import { loadMessages, loadScenarios } from "./support/judgement-labels.js";

const { values: args } = parseArgs({
  options: {
    embedder: { type: "string", default: "use" },
    "show-validate": { type: "boolean", default: false },
    "hide-tune": { type: "boolean", default: false },
    only: { type: "string", default: "" },
    // Run one half ("tune") and/or some sets ("supersede-s,supersede-t") only, while choosing; writes no results file.
    half: { type: "string", default: "" },
    set: { type: "string", default: "" },
    out: { type: "string", default: "" },
  },
});
const embedder: Embedder = args.embedder === "hash" ? createHashEmbedder() : createUseEmbedder();
const halves = ["tune", "validate"] as const;
const results: Record<string, unknown> = { embedder: embedder.model, date: new Date().toISOString() };

function show(title: string, failures: string[]) {
  console.log(`\n${title}: ${failures.length}`);
  for (const f of failures) console.log(`  ${f}`);
}

if (args.only !== "supersede") {
  const messages = loadMessages("bench/labels");
  const rows = await judgeMessages(embedder, messages);
  const figures = Object.fromEntries(halves.map((h) => [h, messageFigures(rows.filter((r) => r.half === h))]));
  console.log(`\nCrisis and emotion (${embedder.model}; emotion accuracy: top = the strongest detected emotion, or none, is one of the labelled ones; set = exact set match)`);
  console.table(figures);
  if (!args["hide-tune"]) show("tune failures", messageFailures(rows.filter((r) => r.half === "tune")));
  if (args["show-validate"]) show("validate failures", messageFailures(rows.filter((r) => r.half === "validate")));
  results.messages = { figures, rows };
}

if (args.only !== "messages") {
  const sets = args.set === "" ? null : new Set(args.set.split(",").map((x) => x.replace(/(?:\.json)?$/u, ".json")));
  const scenarios = loadScenarios("bench/labels").filter((s) => (args.half === "" || s.half === args.half) && (sets === null || sets.has(s.source)));
  const rows = await runScenarios(embedder, scenarios);
  const figures = Object.fromEntries(halves.map((h) => [h, scenarioFigures(rows.filter((r) => r.half === h))]));
  console.log(`\nSupersede scenarios (${embedder.model}, --llm none; right = the old fact closed exactly when it should be, and the top Search hit holds the expected value)`);
  console.table(figures);
  if (!args["hide-tune"]) show("tune failures", scenarioFailures(rows.filter((r) => r.half === "tune")));
  if (args["show-validate"]) show("validate failures", scenarioFailures(rows.filter((r) => r.half === "validate")));
  results.supersede = { figures, rows };
}

if (args.half !== "" || args.set !== "") {
  if (args.out !== "") writeFileSync(args.out, JSON.stringify(results, null, 2));
  process.exit(0);
}
mkdirSync("bench/results", { recursive: true });
// A partial run (--only) writes its own file, so it never replaces the full run's figures.
const file = `bench/results/judgement${embedder.mode === "hash" ? "-hash" : ""}${args.only ? `-${args.only}` : ""}.json`;
writeFileSync(file, JSON.stringify(results, null, 2));
console.log(`\nwrote ${file}`);
