import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { ScopeKey } from "../core/records.js";

/**
 * What a handler tells the audit trail about its call. The audit interceptor puts one in the
 * context of every audited call and writes it after the handler returns or throws.
 */
export interface AuditNote {
  /** The audit record's id, fixed before the handler runs (Erase returns it). */
  readonly id: string;
  /** Numbers the handler knows (rows deleted per table, items stored …); never content. */
  counts: Record<string, number>;
  /** The scope the call acted on, when the request's own `scope` does not say it (e.g. Erase). */
  scope?: ScopeKey;
}

/** Context key of the call's audit note (null when the call is not audited). */
export const auditNoteKey = createContextKey<AuditNote | null>(null);

/** Adds counts (and the scope acted on) to the call's audit record, if it has one. */
export function noteAudit(ctx: HandlerContext, counts: Record<string, number>, scope?: ScopeKey): void {
  const note = ctx.values.get(auditNoteKey);
  if (!note) return;
  Object.assign(note.counts, counts);
  if (scope) note.scope = scope;
}

/** The id the call's audit record will have ("" when the call is not audited). */
export function auditIdOf(ctx: HandlerContext): string {
  return ctx.values.get(auditNoteKey)?.id ?? "";
}
