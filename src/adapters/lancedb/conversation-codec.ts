import type { Schema } from "apache-arrow";
import type { ConversationRecord, MessageRecord } from "../../core/conversations/conversation-record.js";
import { arrow, col } from "./arrow.js";
import { tagPairs } from "./memory-codec.js";
import type { Codec } from "./lance-collection.js";

/** The `conversations` table schema (no vectors: messages live in `episodes`). */
export function conversationSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("namespace"),
    col.text("agent"),
    col.text("session"),
    col.text("user"),
    col.text("title"),
    col.bool("title_given"),
    col.text("metadata_json"),
    col.texts("metadata_pairs"),
    col.float("created_at"),
    col.float("updated_at"),
    col.float("message_count"),
    col.float("last_position"),
    col.float("last_message_at"),
    col.text("last_message_preview"),
    col.bool("archived"),
  ]);
}

/** Maps `ConversationRecord` ↔ row; metadata is also stored as `k=v` pairs so a filter is an `array_has_all`. */
export const conversationCodec: Codec<ConversationRecord> = {
  columns: conversationSchema().fields.map((f) => f.name),
  toRow: (c) => ({
    id: c.id,
    namespace: c.namespace,
    agent: c.agent,
    session: c.session,
    user: c.user,
    title: c.title,
    title_given: c.titleGiven,
    metadata_json: JSON.stringify(c.metadata),
    metadata_pairs: tagPairs(c.metadata),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    message_count: c.messageCount,
    last_position: c.lastPosition,
    last_message_at: c.lastMessageAt,
    last_message_preview: c.lastMessagePreview,
    archived: c.archived,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    namespace: String(r.namespace),
    agent: String(r.agent),
    session: String(r.session),
    user: String(r.user),
    title: String(r.title),
    titleGiven: Boolean(r.title_given),
    metadata: JSON.parse(String(r.metadata_json)) as Record<string, string>,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    messageCount: Number(r.message_count),
    lastPosition: Number(r.last_position),
    lastMessageAt: Number(r.last_message_at),
    lastMessagePreview: String(r.last_message_preview),
    archived: Boolean(r.archived),
  }),
};

/** The `conversation_messages` table schema: a message's place in its conversation and its trace. */
export function messageSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("namespace"),
    col.text("agent"),
    col.text("session"),
    col.text("user"),
    col.float("position"),
    col.float("created_at"),
    col.bool("has_trace"),
    col.text("tool_name"),
    col.text("arguments"),
    col.text("result"),
    col.text("model"),
    col.float("input_tokens"),
    col.float("output_tokens"),
    col.float("latency_ms"),
  ]);
}

/** Maps `MessageRecord` ↔ row. */
export const messageCodec: Codec<MessageRecord> = {
  columns: messageSchema().fields.map((f) => f.name),
  toRow: (m) => ({
    id: m.id,
    namespace: m.namespace,
    agent: m.agent,
    session: m.session,
    user: m.user,
    position: m.position,
    created_at: m.createdAt,
    has_trace: m.trace !== null,
    tool_name: m.trace?.toolName ?? "",
    arguments: m.trace?.arguments ?? "",
    result: m.trace?.result ?? "",
    model: m.trace?.model ?? "",
    input_tokens: m.trace?.inputTokens ?? 0,
    output_tokens: m.trace?.outputTokens ?? 0,
    latency_ms: m.trace?.latencyMs ?? 0,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    namespace: String(r.namespace),
    agent: String(r.agent),
    session: String(r.session),
    user: String(r.user),
    position: Number(r.position),
    createdAt: Number(r.created_at),
    trace: r.has_trace
      ? {
          toolName: String(r.tool_name),
          arguments: String(r.arguments),
          result: String(r.result),
          model: String(r.model),
          inputTokens: Number(r.input_tokens),
          outputTokens: Number(r.output_tokens),
          latencyMs: Number(r.latency_ms),
        }
      : null,
  }),
};
