import type { Schema } from "apache-arrow";
import type { ThirdPartyRecord } from "../../core/relational/records.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

/** The `third_parties` table schema: (end-user, person) → relation, sentiment, mentions. */
export function thirdPartySchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("user"),
    col.text("person"),
    col.text("relation"),
    col.float("sentiment"),
    col.float("mentions"),
    col.float("last_mentioned", true),
    col.float("created_at"),
  ]);
}

/** Maps `ThirdPartyRecord` ↔ row. */
export const thirdPartyCodec: Codec<ThirdPartyRecord> = {
  columns: thirdPartySchema().fields.map((f) => f.name),
  toRow: (t) => ({
    id: t.id,
    user: t.user,
    person: t.person,
    relation: t.relation,
    sentiment: t.sentiment,
    mentions: t.mentions,
    last_mentioned: t.lastMentioned,
    created_at: t.createdAt,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    user: String(r.user),
    person: String(r.person),
    relation: String(r.relation ?? ""),
    sentiment: Number(r.sentiment),
    mentions: Number(r.mentions),
    lastMentioned: r.last_mentioned == null ? null : Number(r.last_mentioned),
    createdAt: Number(r.created_at),
  }),
};
