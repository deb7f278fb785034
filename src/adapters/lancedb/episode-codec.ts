import type { Schema } from "apache-arrow";
import type { EpisodeRecord } from "../../core/records.js";
import { arrow, col, toVector } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

/** The `episodes` table schema (the raw transcript). */
export function episodeSchema(dimension: number): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("namespace"),
    col.text("agent"),
    col.text("session"),
    col.text("user"),
    col.text("role"),
    col.text("name"),
    col.text("content"),
    col.float("observed_at"),
    col.float("trace_number"),
    col.text("parent_id"),
    col.text("channel"),
    col.vector("vector", dimension),
    col.float("created_at"),
    col.text("memory_id"),
  ]);
}

/** Maps `EpisodeRecord` ↔ row. */
export const episodeCodec: Codec<EpisodeRecord> = {
  columns: episodeSchema(1).fields.map((f) => f.name),
  vectorColumn: "vector",
  textColumn: "content",
  toRow: (e) => ({
    id: e.id,
    namespace: e.namespace,
    agent: e.agent,
    session: e.session,
    user: e.user,
    role: e.role,
    name: e.name,
    content: e.content,
    observed_at: e.observedAt,
    trace_number: e.traceNumber,
    parent_id: e.parentId,
    channel: e.channel,
    vector: e.vector,
    created_at: e.createdAt,
    memory_id: e.memoryId,
  }),
  fromRow: (r, vector) => ({
    id: String(r.id),
    namespace: String(r.namespace),
    agent: String(r.agent),
    session: String(r.session),
    user: String(r.user),
    role: String(r.role),
    name: String(r.name),
    content: String(r.content),
    observedAt: Number(r.observed_at),
    traceNumber: Number(r.trace_number),
    parentId: String(r.parent_id),
    channel: String(r.channel),
    vector: vector ?? toVector(r.vector),
    createdAt: Number(r.created_at),
    memoryId: String(r.memory_id),
  }),
};
