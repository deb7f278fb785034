// Writes the recall table of docs/recall.md from bench/results/locomo.json (written by
// `npm run bench:locomo`), between the markers <!-- bench-tables:locomo:start --> and
// <!-- bench-tables:locomo:end -->. `--check` exits 1 when the doc differs from what the results say.
//   node scripts/bench-tables.mjs [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const START = "<!-- bench-tables:locomo:start -->";
const END = "<!-- bench-tables:locomo:end -->";
const DEFAULT_ROW = "agentmem default";
/** LoCoMo's question categories (5, adversarial, is not scored). */
const CATEGORY = { 1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop" };

const f3 = (x) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "–");
const signed = (x) => (x > 0 ? `+${x.toFixed(3)}` : x.toFixed(3));
const row = (cells) => `| ${cells.join(" | ")} |`;
const head = (cells) => [row(cells), row(cells.map(() => "---"))];

/**
 * The markdown block for one bench:locomo result.
 * @param {any} result parsed bench/results/locomo.json
 * @returns {string}
 */
export function locomoTables(result) {
  const ids = result.conversations.map((c) => c.id);
  const base = result.rows.find((r) => r.name === DEFAULT_ROW);
  const lines = [];
  const load = result.machine?.loadavgAtStart?.map((x) => x.toFixed(1)).join(" / ") ?? "?";
  lines.push(
    `Measured ${result.at.slice(0, 16).replace("T", " ")} UTC with \`${result.command}\` on ${result.machine?.cpus ?? "?"} CPUs ` +
      `shared with other work (load ${load} at start); ${result.conversations.map((c) => `conversation ${c.id}: ${c.turns} turns, ${c.questions} questions`).join("; ")}; k = ${result.k}.`,
    "",
  );
  lines.push(
    ...head(["row", ...ids.flatMap((id) => [`${id} R@1`, `${id} R@5`, `${id} R@10`]), "all R@5", ...ids.map((id) => `Δ R@5 ${id}`), "what it shows"]),
  );
  for (const r of result.rows) {
    const deltas = ids.map((id) => (base && r !== base ? signed(r.byConversation[id].r5 - base.byConversation[id].r5) : ""));
    const scores = ids.flatMap((id) => [r.byConversation[id].r1, r.byConversation[id].r5, r.byConversation[id].r10].map(f3));
    const name = r.name === DEFAULT_ROW ? `**${r.name}**` : r.name;
    lines.push(row([name, ...scores, f3(r.overall.r5), ...deltas, r.why]));
  }
  lines.push("", "Folds: the row with the best R@5 on one conversation, scored on the conversation it never saw.", "");
  lines.push(...head(["tuned on", "scored on", "picked row", "R@5 where tuned", "unseen R@1", "unseen R@5", "unseen R@10", "default, unseen R@5"]));
  for (const f of result.folds) {
    lines.push(row([f.tunedOn, f.scoredOn, f.picked, f3(f.tunedR5), f3(f.unseen.r1), f3(f.unseen.r5), f3(f.unseen.r10), f3(f.defaultUnseen.r5)]));
  }
  const mean = result.folds.reduce((s, f) => s + f.unseen.r5, 0) / (result.folds.length || 1);
  lines.push("", `Mean unseen R@5 over the folds: **${f3(mean)}**.`, "");
  const categories = Object.keys(base?.byCategory ?? {});
  lines.push(
    ...head([
      "category",
      "questions",
      "default R@1",
      "default R@5",
      "default R@10",
      ...result.folds.map((f) => `fold ${f.tunedOn}→${f.scoredOn} R@5`),
      "BM25 R@5",
    ]),
  );
  const bm25 = result.rows.find((r) => r.via === "bm25");
  for (const c of categories) {
    const s = base.byCategory[c];
    lines.push(
      row([CATEGORY[c] ?? c, String(s.questions), f3(s.r1), f3(s.r5), f3(s.r10), ...result.folds.map((f) => f3(f.unseenByCategory[c]?.r5)), f3(bm25?.byCategory[c]?.r5)]),
    );
  }
  return lines.join("\n");
}

/**
 * The doc with its generated block replaced.
 * @param {string} doc
 * @param {string} block
 */
export function withBlock(doc, block) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/recall.md lacks the ${START} … ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${block}\n${doc.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = JSON.parse(readFileSync(join(root, "bench", "results", "locomo.json"), "utf8"));
  const docFile = join(root, "docs", "recall.md");
  const doc = readFileSync(docFile, "utf8");
  const next = withBlock(doc, locomoTables(result));
  if (process.argv.includes("--check")) {
    if (next !== doc) {
      console.error("docs/recall.md is stale: run `node scripts/bench-tables.mjs`");
      process.exit(1);
    }
  } else {
    writeFileSync(docFile, next);
    console.log(`wrote ${docFile}`);
  }
}
