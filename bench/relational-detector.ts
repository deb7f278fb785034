// Accuracy of the offline relational detector on a labelled set of messages.
// Usage: npx tsx bench/relational-detector.ts [labels.json]   (default bench/labels/detector-labels.json)
// Prints per-signal accuracy (all / easy / hard) and the misses; writes bench/results/relational-detector.json.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { detect } from "../src/core/relational/detector.js";

interface Labelled {
  text: string;
  emotions: string[];
  crisis: boolean;
  shouting: boolean;
  intent: string;
  hard?: boolean;
}

const file = process.argv[2] ?? "bench/labels/detector-labels.json";
const { messages } = JSON.parse(readFileSync(file, "utf8")) as { messages: Labelled[] };

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const rows = messages.map((m) => {
  const d = detect(m.text);
  return {
    text: m.text,
    hard: m.hard === true,
    emotions: sameSet(d.emotions, m.emotions),
    crisis: d.crisis === m.crisis,
    shouting: d.shouting === m.shouting,
    intent: d.intent === m.intent,
    got: { emotions: d.emotions, crisis: d.crisis, shouting: d.shouting, intent: d.intent, valence: d.valence },
    want: { emotions: m.emotions, crisis: m.crisis, shouting: m.shouting, intent: m.intent },
  };
});

type Row = (typeof rows)[number];
const signals = ["emotions", "crisis", "shouting", "intent"] as const;
const rate = (rs: Row[], f: (r: Row) => boolean) => (rs.length === 0 ? 0 : rs.filter(f).length / rs.length);
const groups = { all: rows, easy: rows.filter((r) => !r.hard), hard: rows.filter((r) => r.hard) };
const crisisRecall = rate(rows.filter((r) => r.want.crisis), (r) => r.got.crisis);
const crisisFalseAlarms = rows.filter((r) => !r.want.crisis && r.got.crisis).length;

const table = Object.entries(groups).map(([name, rs]) => ({
  set: name,
  n: rs.length,
  ...Object.fromEntries(signals.map((s) => [s, rate(rs, (r) => r[s]).toFixed(3)])),
  allFour: rate(rs, (r) => signals.every((s) => r[s])).toFixed(3),
}));
console.table(table);
console.log(`crisis recall ${crisisRecall.toFixed(3)}, crisis false alarms ${crisisFalseAlarms}`);
for (const r of rows.filter((r) => !signals.every((s) => r[s]))) {
  const wrong = signals.filter((s) => !r[s]).map((s) => `${s}: got ${JSON.stringify(r.got[s])} want ${JSON.stringify(r.want[s])}`);
  console.log(`${r.hard ? "[hard] " : ""}${r.text}\n    ${wrong.join("; ")}`);
}
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/relational-detector.json", JSON.stringify({ file, table, crisisRecall, crisisFalseAlarms, rows }, null, 2));
