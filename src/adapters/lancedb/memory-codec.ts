import type { Schema } from "apache-arrow";
import type { FactTypeName, MemoryRecord } from "../../core/records.js";
import { turnKey } from "../../core/turn-key.js";
import { arrow, col, toStrings, toVector } from "./arrow.js";
import type { Codec } from "./lance-collection.js";
import { packedColumns } from "./packed-row.js";

const SCOPE = ["namespace", "agent", "session", "user"] as const;

/** The memory row's packed column: every column but `id`, `text` and `vector`, read beside those three. */
const PACKED_COLUMN = "fields";

/** The `memories` table schema for a given embedding dimension. */
export function memorySchema(dimension: number): Schema {
  return new arrow.Schema([
    col.text("id"),
    ...SCOPE.map((c) => col.text(c)),
    col.text("text"),
    col.text("fact_type"),
    col.text("category"),
    col.int("importance"),
    col.texts("entities"),
    col.text("tags_json"),
    col.texts("tag_pairs"),
    col.bool("pinned"),
    col.text("content_hash"),
    col.vector("vector", dimension),
    col.texts("source_ids"),
    col.text("parent_id"),
    col.float("created_at"),
    col.float("valid_from"),
    col.float("valid_to", true),
    col.text("superseded_by"),
    col.float("event_date", true),
    col.float("last_accessed_at"),
    col.float("access_count"),
    col.text("channel"),
    col.texts("emotions"),
    col.text("intent"),
    col.text("embed_model"),
    col.text("role"),
    col.text("name"),
    // Added after tables existed: nullable, so `addMissingColumns` adds it to an older table (null = not known).
    col.float("trace_number", true),
    // `turnKey` of a raw turn's scope and position (null for other rows, and for rows stored before
    // the column existed: `unkeyedTurn`). Btree-indexed: the adjacent-turn read is a lookup on it.
    col.float("turn_key", true),
    // Every column above but `id`, `text` and `vector`, once more as JSON (`packed-row.ts`): reads of
    // whole rows select it and those three. Nullable: an older table gets it added, empty.
    col.text(PACKED_COLUMN, true),
  ]);
}

/** Tags as stored in `tag_pairs`, so a tag filter is an `array_has_all`. */
export function tagPairs(tags: Record<string, string>): string[] {
  return Object.entries(tags).map(([k, v]) => `${k}=${v}`);
}

/** The `memories` columns in schema order; new columns are only ever appended (see `PackedColumns.holds`). */
const MEMORY_COLUMNS = memorySchema(1).fields.map((f) => f.name);

const MEMORY_PACKED = packedColumns(MEMORY_COLUMNS, PACKED_COLUMN, ["id", "text"], "vector");

/** Maps `MemoryRecord` ↔ row. */
export const memoryCodec: Codec<MemoryRecord> = {
  columns: MEMORY_COLUMNS,
  vectorColumn: "vector",
  textColumn: "text",
  packed: MEMORY_PACKED,
  toRow: (m) => ({
    id: m.id,
    namespace: m.namespace,
    agent: m.agent,
    session: m.session,
    user: m.user,
    text: m.text,
    fact_type: m.factType,
    category: m.category,
    importance: m.importance,
    entities: m.entities,
    tags_json: JSON.stringify(m.tags),
    tag_pairs: tagPairs(m.tags),
    pinned: m.pinned,
    content_hash: m.contentHash,
    vector: m.vector,
    source_ids: m.sourceIds,
    parent_id: m.parentId,
    created_at: m.createdAt,
    valid_from: m.validFrom,
    valid_to: m.validTo,
    superseded_by: m.supersededBy,
    event_date: m.eventDate,
    last_accessed_at: m.lastAccessedAt,
    access_count: m.accessCount,
    channel: m.channel,
    emotions: m.emotions,
    intent: m.intent,
    embed_model: m.embedModel,
    role: m.role,
    name: m.name,
    trace_number: m.traceNumber,
    turn_key: m.traceNumber !== null && m.traceNumber >= 1 ? turnKey(m, m.traceNumber) : null,
  }),
  fromRow: (r, vector) => ({
    id: String(r.id),
    namespace: String(r.namespace),
    agent: String(r.agent),
    session: String(r.session),
    user: String(r.user),
    text: String(r.text),
    factType: String(r.fact_type) as FactTypeName,
    category: String(r.category ?? ""),
    importance: Number(r.importance ?? 5),
    entities: toStrings(r.entities),
    tags: r.tags_json == null || r.tags_json === "{}" ? {} : (JSON.parse(String(r.tags_json)) as Record<string, string>),
    pinned: Boolean(r.pinned),
    contentHash: String(r.content_hash ?? ""),
    vector: vector ?? toVector(r.vector),
    sourceIds: toStrings(r.source_ids),
    parentId: String(r.parent_id ?? ""),
    createdAt: Number(r.created_at),
    validFrom: Number(r.valid_from),
    validTo: r.valid_to == null ? null : Number(r.valid_to),
    supersededBy: String(r.superseded_by ?? ""),
    eventDate: r.event_date == null ? null : Number(r.event_date),
    lastAccessedAt: Number(r.last_accessed_at),
    accessCount: Number(r.access_count ?? 0),
    channel: String(r.channel ?? ""),
    emotions: toStrings(r.emotions),
    intent: String(r.intent ?? ""),
    embedModel: String(r.embed_model ?? ""),
    role: String(r.role ?? ""),
    name: String(r.name ?? ""),
    traceNumber: r.trace_number == null ? null : Number(r.trace_number),
    ...(r.turn_key == null && r.trace_number != null && Number(r.trace_number) >= 1 ? { unkeyedTurn: true } : {}),
  }),
};
