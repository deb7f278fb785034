import type { ScopeKey } from "../records.js";

/** One stored conversation (`session` equals `id`). Times are epoch milliseconds. */
export interface ConversationRecord extends ScopeKey {
  id: string;
  title: string;
  /** The title was given by the application (so no automatic title replaces it). */
  titleGiven: boolean;
  metadata: Record<string, string>;
  createdAt: number;
  /** Last activity: creation, an update or the last appended message. */
  updatedAt: number;
  messageCount: number;
  /** Position of the last appended message (never reused, even after trims). */
  lastPosition: number;
  /** `created_at` of the last appended message (they increase strictly within a conversation). */
  lastMessageAt: number;
  lastMessagePreview: string;
  archived: boolean;
}

/** How an assistant or tool message was made. */
export interface MessageTrace {
  toolName: string;
  arguments: string;
  result: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
}

/**
 * One message of a conversation as stored beside its transcript turn (`id` is the turn's id;
 * role, name, content and observed_at live on the turn). `session` is the conversation id.
 */
export interface MessageRecord extends ScopeKey {
  id: string;
  position: number;
  createdAt: number;
  /** Null when the message came without a trace. */
  trace: MessageTrace | null;
}
