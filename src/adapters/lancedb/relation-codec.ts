import type { Schema } from "apache-arrow";
import type { RelationRecord } from "../../core/relational/records.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

const nullableNumber = (v: unknown): number | null => (v == null ? null : Number(v));

/** The `relations` table schema: one row per revision of an end-user's relation, with the four relational scalars. */
export function relationSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("user"),
    col.float("trust"),
    col.float("sentiment"),
    col.float("grudge"),
    col.float("familiarity"),
    col.float("updated_at", true),
    col.float("interaction_count"),
    col.float("known_since", true),
    col.float("last_seen", true),
    // Added 2026-12-07: rows of older tables read as revision 0.
    col.float("revision", true),
  ]);
}

/** Maps `RelationRecord` ↔ row. */
export const relationCodec: Codec<RelationRecord> = {
  columns: relationSchema().fields.map((f) => f.name),
  toRow: (r) => ({
    id: r.id,
    user: r.user,
    trust: r.trust,
    sentiment: r.sentiment,
    grudge: r.grudge,
    familiarity: r.familiarity,
    updated_at: r.updatedAt,
    interaction_count: r.interactionCount,
    known_since: r.knownSince,
    last_seen: r.lastSeen,
    revision: r.revision,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    user: String(r.user),
    trust: Number(r.trust),
    sentiment: Number(r.sentiment),
    grudge: Number(r.grudge),
    familiarity: Number(r.familiarity),
    updatedAt: nullableNumber(r.updated_at),
    interactionCount: Number(r.interaction_count),
    knownSince: nullableNumber(r.known_since),
    lastSeen: nullableNumber(r.last_seen),
    revision: Number(r.revision ?? 0),
  }),
};
