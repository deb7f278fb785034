import type { Schema } from "apache-arrow";
import type { UsageRecord } from "../../core/usage/usage-record.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

/** The `usage` table schema: a tenant's provider counters (no vectors, no content). */
export function usageSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.float("embedding_tokens"),
    col.float("llm_prompt_tokens"),
    col.float("llm_completion_tokens"),
    col.float("external_chars"),
    col.float("embedding_requests"),
    col.float("chat_requests"),
    col.float("updated_at"),
  ]);
}

/** Maps `UsageRecord` ↔ row. */
export const usageCodec: Codec<UsageRecord> = {
  columns: usageSchema().fields.map((f) => f.name),
  toRow: (u) => ({
    id: u.id,
    embedding_tokens: u.embeddingTokens,
    llm_prompt_tokens: u.llmPromptTokens,
    llm_completion_tokens: u.llmCompletionTokens,
    external_chars: u.externalChars,
    embedding_requests: u.embeddingRequests,
    chat_requests: u.chatRequests,
    updated_at: u.updatedAt,
  }),
  fromRow: (r) => ({
    id: String(r.id),
    embeddingTokens: Number(r.embedding_tokens ?? 0),
    llmPromptTokens: Number(r.llm_prompt_tokens ?? 0),
    llmCompletionTokens: Number(r.llm_completion_tokens ?? 0),
    externalChars: Number(r.external_chars ?? 0),
    embeddingRequests: Number(r.embedding_requests ?? 0),
    chatRequests: Number(r.chat_requests ?? 0),
    updatedAt: Number(r.updated_at),
  }),
};
