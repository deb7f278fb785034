import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Half, halfOf, normaliseLabelText } from "./label-split.js";

/** A labelled message from any judgement set (crisis and/or emotions). */
export interface LabelledMessage {
  text: string;
  crisis: boolean;
  /** Undefined when the set does not label emotions. */
  emotions?: string[];
  kind: string;
  source: string;
  half: Half;
}

/** A labelled supersede scenario. */
export interface LabelledScenario {
  speaker: string;
  first: string;
  second: string;
  question: string;
  expected: string;
  stale: string;
  closes: boolean;
  slot: string;
  kind: string;
  source: string;
  half: Half;
}

const MESSAGE_SETS = /^(?:detector|messages|crisis|emotion)-.*\.json$/;
const SCENARIO_SETS = /^supersede-.*\.json$/;

/** Every labelled message under `dir`, deduplicated by normalised text (first set wins). */
export function loadMessages(dir: string): LabelledMessage[] {
  const seen = new Set<string>();
  const out: LabelledMessage[] = [];
  for (const file of readdirSync(dir).filter((f) => MESSAGE_SETS.test(f)).sort()) {
    const { messages } = JSON.parse(readFileSync(join(dir, file), "utf8")) as { messages: Omit<LabelledMessage, "source" | "half">[] };
    for (const m of messages) {
      const key = normaliseLabelText(m.text);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ text: m.text, crisis: m.crisis, emotions: m.emotions, kind: m.kind ?? (m.crisis ? "crisis" : "other"), source: file, half: halfOf(m.text) });
    }
  }
  return out;
}

/** Every supersede scenario under `dir`; split by the hash of both turns. */
export function loadScenarios(dir: string): LabelledScenario[] {
  const out: LabelledScenario[] = [];
  for (const file of readdirSync(dir).filter((f) => SCENARIO_SETS.test(f)).sort()) {
    const { scenarios } = JSON.parse(readFileSync(join(dir, file), "utf8")) as { scenarios: Omit<LabelledScenario, "source" | "half">[] };
    for (const s of scenarios) out.push({ ...s, source: file, half: halfOf(`${s.first}\n${s.second}`) });
  }
  return out;
}
