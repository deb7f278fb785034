import { create, fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { RememberRequestSchema, ScopeSchema } from "../../sdk/index.js";

/** One turn to store, as a RememberRequest. */
export type ImportItem = MessageInitShape<typeof RememberRequestSchema>;

/** What a file held. */
export interface ImportSource {
  format: "jsonl" | "locomo";
  items: ImportItem[];
  /** LoCoMo: sessions read. */
  sessions: number;
}

interface LocomoTurn {
  speaker: string;
  text: string;
  dia_id?: string;
  blip_caption?: string;
}
type LocomoConversation = Record<string, unknown> & { speaker_a: string; speaker_b: string };

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** Parses LoCoMo's session time, e.g. `1:56 pm on 8 May, 2023` (read as UTC). */
export function parseLocomoDate(value: string): number {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(value);
  const month = m ? MONTHS.indexOf(m[5].toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unreadable LoCoMo session time: ${value}`);
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

function isConversation(v: unknown): v is LocomoConversation {
  return typeof v === "object" && v !== null && "speaker_a" in v && "speaker_b" in v;
}

/** The conversation inside a LoCoMo file: the flat form, `{conversation: …}`, or a one-sample list. */
function locomoConversation(doc: unknown): LocomoConversation | null {
  const sample = Array.isArray(doc) && doc.length === 1 ? doc[0] : doc;
  if (isConversation(sample)) return sample;
  if (typeof sample === "object" && sample !== null && "conversation" in sample && isConversation(sample.conversation)) return sample.conversation;
  return null;
}

/** Every turn of a LoCoMo conversation as `"<speaker>: <text>"` at its session time, tagged with its dia_id. */
function locomoItems(conv: LocomoConversation, user: string): ImportSource {
  const sessions = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined && Array.isArray(conv[`session_${n}`]))
    .map(Number)
    .sort((a, b) => a - b);
  const items: ImportItem[] = [];
  for (const n of sessions) {
    const at = parseLocomoDate(String(conv[`session_${n}_date_time`] ?? ""));
    (conv[`session_${n}`] as LocomoTurn[]).forEach((turn, i) => {
      const caption = turn.blip_caption ? ` [shares ${turn.blip_caption}]` : "";
      items.push({
        scope: { user, session: `session_${n}` },
        content: `${turn.speaker}: ${turn.text}${caption}`,
        role: "user",
        name: turn.speaker,
        observedAt: timestampFromMs(at),
        traceNumber: BigInt(i),
        tags: turn.dia_id ? { dia_id: turn.dia_id } : {},
      });
    });
  }
  return { format: "locomo", items, sessions: sessions.length };
}

/** JSONL: one RememberRequest per line in its proto JSON form; `scope.user` defaults to `user`. */
function jsonlItems(text: string, user: string | undefined): ImportSource {
  const items: ImportItem[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let item;
    try {
      item = fromJson(RememberRequestSchema, JSON.parse(line) as JsonValue);
    } catch (error) {
      throw new Error(`line ${i + 1}: not a RememberRequest in JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!item.scope?.user && !user) throw new Error(`line ${i + 1}: no scope.user and no --user given`);
    const s = item.scope ?? create(ScopeSchema);
    item.scope = create(ScopeSchema, { tenant: s.tenant, namespace: s.namespace, agent: s.agent, session: s.session, user: s.user || user || "" });
    items.push(item);
  });
  return { format: "jsonl", items, sessions: 0 };
}

/** Reads a file's text as LoCoMo (detected by its speakers and sessions) or as JSONL. */
export function parseImport(text: string, user: string | undefined): ImportSource {
  let doc: unknown = undefined;
  const head = text.trimStart()[0];
  if (head === "{" || head === "[") {
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined; // several lines of JSON: JSONL
    }
  }
  const conv = locomoConversation(doc);
  if (conv) {
    if (!user) throw new Error("--user is required to import a LoCoMo conversation");
    return locomoItems(conv, user);
  }
  if (Array.isArray(doc)) throw new Error("a JSON array that is not a LoCoMo sample: write one RememberRequest per line (JSONL)");
  return jsonlItems(text, user);
}
