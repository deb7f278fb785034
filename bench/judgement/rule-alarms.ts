/**
 * Which crisis cue families raise false alarms on writers they were not written for (issue 21).
 * Reads the *tune* half only: for each source set (one writer) and each cue class (and the
 * co-occurrence net), the crises it catches and the non-crisis messages it flags, after the
 * look-alikes cancel. Rules are fixed, so each set is a held-out writer for every rule not written
 * on it. Prints counts per cue (`--cues`) without any message text.
 *
 *   npx tsx bench/judgement/rule-alarms.ts [--cues]
 */
import { lookAlike, riskWords } from "../../src/core/relational/crisis.js";
import { CRISIS_CUES, foldForCues } from "../../src/core/relational/crisis-rules.js";
import { CRISIS_CLASSES } from "../../src/core/relational/prototypes.js";
import { loadMessages } from "../support/judgement-labels.js";

const tune = loadMessages("bench/labels").filter((m) => m.half === "tune");
const families = [...CRISIS_CLASSES.map((c) => [c, CRISIS_CUES[c].map((cue) => new RegExp(`(?<![\\w])(?:${cue})(?![\\w])`, "u"))] as const)];
const sources = [...new Set(tune.map((m) => m.source))].sort();
const rows: Record<string, string | number>[] = [];
const perCue = new Map<string, { hits: number; alarms: number; alarmSets: Set<string> }>();
for (const [family, cues] of [...families, ["net", []] as const]) {
  const row: Record<string, string | number> = { family };
  let hits = 0;
  let alarms = 0;
  for (const s of sources) {
    let h = 0;
    let a = 0;
    for (const m of tune.filter((x) => x.source === s)) {
      if (lookAlike(m.text)) continue;
      const folded = foldForCues(m.text);
      const fired = family === "net" ? riskWords(folded) : cues.some((c) => c.test(folded));
      if (!fired) continue;
      if (m.crisis) h++;
      else a++;
      if (family !== "net") {
        cues.forEach((c, i) => {
          if (!c.test(folded)) return;
          const key = `${family}#${i}`;
          const e = perCue.get(key) ?? { hits: 0, alarms: 0, alarmSets: new Set<string>() };
          if (m.crisis) e.hits++;
          else {
            e.alarms++;
            e.alarmSets.add(s.replace(/\.json$/, ""));
          }
          perCue.set(key, e);
        });
      }
    }
    row[s.replace(/\.json$/, "")] = a > 0 || h > 0 ? `${h}/${a}` : "";
    hits += h;
    alarms += a;
  }
  row.total = `${hits}/${alarms}`;
  rows.push(row);
}
console.log(`tune, per cue family and source set: crises caught / non-crisis flagged (${tune.filter((m) => !m.crisis).length} non-crisis)`);
console.table(rows);
if (process.argv.includes("--cues")) {
  console.table([...perCue].filter(([, e]) => e.alarms > 0).sort((a, b) => b[1].alarms - a[1].alarms).map(([k, e]) => ({ cue: k, hits: e.hits, alarms: e.alarms, sets: [...e.alarmSets].join(" ") })));
}
