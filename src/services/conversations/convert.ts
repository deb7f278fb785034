import type { ConversationRecord, MessageRecord } from "../../core/conversations/conversation-record.js";
import type { EpisodeRecord } from "../../core/records.js";
import { scopeToProto, ts } from "../convert.js";

/** A stored conversation → wire Conversation. */
export function conversationToProto(tenant: string, c: ConversationRecord) {
  return {
    id: c.id,
    scope: scopeToProto(tenant, c),
    title: c.title,
    metadata: c.metadata,
    createdAt: ts(c.createdAt),
    updatedAt: ts(c.updatedAt),
    messageCount: BigInt(Math.round(c.messageCount)),
    lastMessagePreview: c.lastMessagePreview,
    archived: c.archived,
  };
}

/** A stored message and its transcript turn → wire ConversationMessage. */
export function messageToProto(m: MessageRecord, turn: EpisodeRecord) {
  const t = m.trace;
  return {
    id: m.id,
    role: turn.role,
    name: turn.name,
    content: turn.content,
    observedAt: ts(turn.observedAt),
    createdAt: ts(m.createdAt),
    position: BigInt(Math.round(m.position)),
    trace: t
      ? {
          toolName: t.toolName,
          arguments: t.arguments,
          result: t.result,
          model: t.model,
          inputTokens: BigInt(t.inputTokens),
          outputTokens: BigInt(t.outputTokens),
          latencyMs: BigInt(t.latencyMs),
        }
      : undefined,
  };
}
