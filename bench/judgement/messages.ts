import { detect } from "../../src/core/relational/detector.js";
import { EMOTIONS } from "../../src/core/relational/mood.js";
import type { Embedder } from "../../src/ports/embedder.js";
import { prototypesFor } from "../../src/services/relational/judgement.js";
import type { Half } from "../support/label-split.js";
import type { LabelledMessage } from "../support/judgement-labels.js";

/** One labelled message judged. */
export interface MessageRow {
  text: string;
  half: Half;
  kind: string;
  source: string;
  crisis: { want: boolean; got: boolean; by: string; crisisClass: string };
  emotions?: { want: string[]; got: string[]; top: string; topRight: boolean; setRight: boolean };
}

/** The figures of one half. */
export interface MessageFigures {
  crisisMessages: number;
  crisisFlagged: number;
  crisisRecall: number;
  nonCrisisMessages: number;
  falseAlarms: number;
  falsePositiveRate: number;
  emotionMessages: number;
  /** Top emotion (or none) is one of the labelled emotions (or the label is none). */
  emotionTopAccuracy: number;
  /** Detected set equals the labelled set exactly. */
  emotionSetAccuracy: number;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Judges every message with `embedder` (meaning when it is semantic, rules alone otherwise). */
export async function judgeMessages(embedder: Embedder, messages: readonly LabelledMessage[]): Promise<MessageRow[]> {
  const prototypes = prototypesFor(embedder);
  const protos = prototypes ? await prototypes : null;
  const vectors = protos ? await embedder.embed(messages.map((m) => m.text)) : [];
  return messages.map((m, i) => {
    const d = detect(m.text, {}, protos ? { vector: vectors[i], prototypes: protos } : undefined);
    const row: MessageRow = {
      text: m.text,
      half: m.half,
      kind: m.kind,
      source: m.source,
      crisis: { want: m.crisis, got: d.crisis, by: d.crisisReason?.by ?? "", crisisClass: d.crisisReason?.crisisClass ?? "" },
    };
    if (m.emotions) {
      const want = m.emotions.filter((e) => (EMOTIONS as readonly string[]).includes(e));
      const top = d.topEmotion ?? "none";
      row.emotions = {
        want,
        got: d.emotions,
        top,
        topRight: want.length === 0 ? top === "none" : want.includes(top),
        setRight: sameSet(want, d.emotions),
      };
    }
    return row;
  });
}

/** Crisis recall and false alarms, emotion accuracy, over some rows. */
export function messageFigures(rows: readonly MessageRow[]): MessageFigures {
  const crisis = rows.filter((r) => r.crisis.want);
  const safe = rows.filter((r) => !r.crisis.want);
  const emotional = rows.filter((r) => r.emotions);
  const flagged = crisis.filter((r) => r.crisis.got).length;
  const falseAlarms = safe.filter((r) => r.crisis.got).length;
  const share = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 1000) / 1000);
  return {
    crisisMessages: crisis.length,
    crisisFlagged: flagged,
    crisisRecall: share(flagged, crisis.length),
    nonCrisisMessages: safe.length,
    falseAlarms,
    falsePositiveRate: share(falseAlarms, safe.length),
    emotionMessages: emotional.length,
    emotionTopAccuracy: share(emotional.filter((r) => r.emotions?.topRight).length, emotional.length),
    emotionSetAccuracy: share(emotional.filter((r) => r.emotions?.setRight).length, emotional.length),
  };
}

/** One line per wrong judgement. */
export function messageFailures(rows: readonly MessageRow[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.crisis.want !== r.crisis.got) {
      out.push(`${r.crisis.want ? "MISSED CRISIS" : "FALSE ALARM"} [${r.kind}] ${r.crisis.got ? `(${r.crisis.by}:${r.crisis.crisisClass}) ` : ""}${r.text}`);
    }
  }
  for (const r of rows) {
    if (r.emotions && !r.emotions.topRight) out.push(`EMOTION [${r.kind}] want ${JSON.stringify(r.emotions.want)} got ${r.emotions.top} ${JSON.stringify(r.emotions.got)}: ${r.text}`);
  }
  return out;
}
