import type { Schema } from "apache-arrow";
import type { ProfileRecord } from "../../core/profile-record.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

/** The `profiles` table schema (one ~120-word profile per end-user; no vectors). */
export function profileSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("namespace"),
    col.text("agent"),
    col.text("session"),
    col.text("user"),
    col.text("text"),
    col.text("session_key"),
    col.float("updated_at"),
    col.float("fact_count"),
  ]);
}

/** Maps `ProfileRecord` ↔ row. */
export const profileCodec: Codec<ProfileRecord> = {
  columns: profileSchema().fields.map((f) => f.name),
  toRow: (p) => ({
    id: p.id,
    namespace: p.namespace,
    agent: p.agent,
    session: p.session,
    user: p.user,
    text: p.text,
    session_key: p.sessionKey,
    updated_at: p.updatedAt,
    fact_count: p.factCount,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    namespace: String(r.namespace),
    agent: String(r.agent),
    session: String(r.session),
    user: String(r.user),
    text: String(r.text),
    sessionKey: String(r.session_key),
    updatedAt: Number(r.updated_at),
    factCount: Number(r.fact_count),
  }),
};
