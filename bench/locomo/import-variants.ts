import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { RememberRequestSchema } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import type { LocomoConversation, LocomoTurn } from "./dataset.js";

/**
 * One way a developer might import a conversation through RememberBatch. Outside checks import
 * LoCoMo themselves, from the docs, so a ranking feature that only works when our own importer sets
 * a field (speaker name, session, trace_number, session date) may be invisible to them.
 */
export interface ImportVariant {
  name: string;
  why: string;
  /** Content starts with `"<speaker>: "` (else the bare text, caption kept). */
  speakerInText: boolean;
  /** `name` = the speaker. */
  nameField: boolean;
  /** `scope.session` = the session. */
  session: boolean;
  /** `trace_number` = position in the session (1-based). */
  trace: boolean;
  /** `observed_at` = the session's date (else unset: the server's now). */
  dates: boolean;
  /** One RememberBatch per session, or one for the whole conversation. */
  batch: "session" | "conversation";
}

/** Every variant; the first is how `bench:locomo` has always imported (the rows' main figures). */
export const IMPORT_VARIANTS: readonly ImportVariant[] = [
  { name: "full", why: "speaker in text + name, session, trace, dates, a batch per session", speakerInText: true, nameField: true, session: true, trace: true, dates: true, batch: "session" },
  { name: "no trace", why: "as full, without trace_number", speakerInText: true, nameField: true, session: true, trace: false, dates: true, batch: "session" },
  { name: "one scope", why: "no session: trace restarts per session in one user scope, one batch", speakerInText: true, nameField: true, session: false, trace: true, dates: true, batch: "conversation" },
  { name: "name field", why: "bare text + name, dates; no session, no trace, a batch per session", speakerInText: false, nameField: true, session: false, trace: false, dates: true, batch: "session" },
  { name: "text only", why: "`<speaker>: <text>` and nothing else, one batch (observed now)", speakerInText: true, nameField: false, session: false, trace: false, dates: false, batch: "conversation" },
  { name: "bare", why: "bare text and nothing else, one batch (no speaker anywhere)", speakerInText: false, nameField: false, session: false, trace: false, dates: false, batch: "conversation" },
];

type Item = MessageInitShape<typeof RememberRequestSchema>;

const text = (t: LocomoTurn, v: ImportVariant) => (v.speakerInText ? t.content : t.content.slice(t.speaker.length + 2));

/** The RememberBatch calls (item lists, in order) that import `conversation` into `scope` as `variant` says. */
export function importBatches(conversation: LocomoConversation, scope: { tenant: string; user: string }, variant: ImportVariant, sessionPrefix = "s"): Item[][] {
  const item = (t: LocomoTurn): Item => ({
    scope: { ...scope, session: variant.session ? `${sessionPrefix}${t.session}` : "" },
    content: text(t, variant),
    role: "user",
    name: variant.nameField ? t.speaker : "",
    observedAt: variant.dates ? timestampFromMs(t.observedAt) : undefined,
    traceNumber: variant.trace ? BigInt(t.trace) : 0n,
    tags: { dia_id: t.diaId },
  });
  if (variant.batch === "conversation") return [conversation.turns.map(item)];
  const sessions = [...new Set(conversation.turns.map((t) => t.session))];
  return sessions.map((s) => conversation.turns.filter((t) => t.session === s).map(item));
}
