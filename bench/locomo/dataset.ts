import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

/** One turn as it is remembered. */
export interface LocomoTurn {
  /** `"<speaker>: <text>"`, plus ` [shares <caption>]` when the turn shared an image. */
  content: string;
  speaker: string;
  diaId: string;
  /** 1-based session number. */
  session: number;
  /** 1-based position in its session. */
  trace: number;
  /** Session time, epoch ms. */
  observedAt: number;
}

/** One scored question (category 5, adversarial, is left out). */
export interface LocomoQuestion {
  question: string;
  category: number;
  /** Gold evidence dia_ids (used only to score, never sent to the server). */
  evidence: string[];
}

/** One conversation file. */
export interface LocomoConversation {
  id: string;
  speakers: [string, string];
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  /** Non-adversarial questions without any evidence (cannot be scored). */
  unscorable: number;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** Parses a LoCoMo session time such as `"1:56 pm on 8 May, 2023"` (UTC). */
export function parseSessionTime(text: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  const month = m ? MONTHS.indexOf(m[5].toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unreadable session time ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawQa {
  question: string;
  category: number;
  evidence?: string[];
}

/** Reads one LoCoMo conversation file. */
export function readConversation(file: string): LocomoConversation {
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const turns: LocomoTurn[] = [];
  for (let s = 1; typeof raw[`session_${s}_date_time`] === "string"; s++) {
    const observedAt = parseSessionTime(raw[`session_${s}_date_time`] as string);
    ((raw[`session_${s}`] as RawTurn[] | undefined) ?? []).forEach((t, i) => {
      const caption = t.blip_caption ? ` [shares ${t.blip_caption}]` : "";
      turns.push({ content: `${t.speaker}: ${t.text}${caption}`, speaker: t.speaker, diaId: t.dia_id, session: s, trace: i + 1, observedAt });
    });
  }
  const asked = (raw.qa as RawQa[]).filter((q) => q.category !== 5);
  // A few evidence entries hold two ids in one string ("D8:6; D9:17").
  const withEvidence = asked.map((q) => ({ ...q, evidence: (q.evidence ?? []).flatMap((e) => e.split(/[;,\s]+/)).filter(Boolean) }));
  return {
    id: basename(file, ".json"),
    speakers: [String(raw.speaker_a), String(raw.speaker_b)],
    turns,
    questions: withEvidence.filter((q) => q.evidence.length > 0).map((q) => ({ question: q.question, category: q.category, evidence: q.evidence })),
    unscorable: withEvidence.filter((q) => q.evidence.length === 0).length,
  };
}

/** Every `*.json` conversation in a directory, by file name. */
export function readConversations(dir: string): LocomoConversation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => readConversation(join(dir, f)));
}
