import type { Schema } from "apache-arrow";
import type { AuditRecord } from "../../core/privacy/audit-record.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

// Scope columns are `scope_*`, not `user`: the audit trail is kept when an end-user is erased
// (it is the proof of the erasure), and erasure finds personal tables by their `user` column.

/** The `audit` table schema: append-only, no content. */
export function auditSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.float("at"),
    col.text("actor"),
    col.text("operation"),
    col.text("scope_namespace"),
    col.text("scope_agent"),
    col.text("scope_session"),
    col.text("scope_user"),
    col.text("outcome"),
    col.text("counts_json"),
  ]);
}

/** Maps `AuditRecord` ↔ row. */
export const auditCodec: Codec<AuditRecord> = {
  columns: auditSchema().fields.map((f) => f.name),
  toRow: (a) => ({
    id: a.id,
    at: a.at,
    actor: a.actor,
    operation: a.operation,
    scope_namespace: a.scope.namespace,
    scope_agent: a.scope.agent,
    scope_session: a.scope.session,
    scope_user: a.scope.user,
    outcome: a.outcome,
    counts_json: JSON.stringify(a.counts),
  }),
  fromRow: (r) => ({
    id: String(r.id),
    at: Number(r.at),
    actor: String(r.actor),
    operation: String(r.operation),
    scope: {
      namespace: String(r.scope_namespace ?? ""),
      agent: String(r.scope_agent ?? ""),
      session: String(r.scope_session ?? ""),
      user: String(r.scope_user ?? ""),
    },
    outcome: String(r.outcome),
    counts: JSON.parse(String(r.counts_json ?? "{}")) as Record<string, number>,
  }),
};
