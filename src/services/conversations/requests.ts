import { randomBytes } from "node:crypto";
import type {
  AppendMessagesRequest,
  CreateConversationRequest,
  ListConversationsRequest,
  ListMessagesRequest,
  UpdateConversationRequest,
} from "../../gen/agentmem/v1/conversation_service_pb.js";
import { invalidArgument, tooLarge } from "../../core/errors.js";
import type { MessageTrace } from "../../core/conversations/conversation-record.js";
import { checkCount, checkLength, checkTags, LIMITS } from "../../core/limits.js";
import { checkScopeValue, scopeKey } from "../../core/scope.js";
import { msOf } from "../convert.js";

const ROLES = new Set(["user", "assistant", "system", "tool"]);

/** A validated message to append. */
export interface MessageInput {
  role: string;
  name: string;
  content: string;
  /** Epoch ms, or undefined for "when appended". */
  observedAt: number | undefined;
  trace: MessageTrace | null;
}

/** Validates `conversation_id` (a scope value: it becomes the session). */
export function conversationIdOf(id: string): string {
  if (id === "") throw invalidArgument("conversation_id", "CONVERSATION_ID_REQUIRED", "conversation_id is required");
  checkScopeValue("conversation_id", id);
  return id;
}

/** A new random conversation id. */
export function newConversationId(): string {
  return `conv_${randomBytes(12).toString("hex")}`;
}

/** Validates a CreateConversationRequest. */
export function createInput(req: CreateConversationRequest) {
  const key = scopeKey(req.scope);
  if (key.session !== "") throw invalidArgument("scope.session", "SESSION_NOT_ALLOWED", "scope.session must be empty: the conversation id becomes the session");
  checkLength("title", req.title, LIMITS.nameChars);
  checkTags("metadata", req.metadata);
  return { key, id: req.conversationId === "" ? newConversationId() : conversationIdOf(req.conversationId), title: req.title.trim(), metadata: { ...req.metadata } };
}

/** Validates a ListConversationsRequest. */
export function listInput(req: ListConversationsRequest) {
  const key = scopeKey(req.scope);
  checkTags("metadata", req.metadata);
  const since = msOf(req.since, "since");
  const until = msOf(req.until, "until");
  if (since !== undefined && until !== undefined && until <= since) throw invalidArgument("until", "INVALID_TIME_RANGE", "until must be after since");
  return { key, size: checkCount("page_size", req.pageSize, 50, LIMITS.pageSize), metadata: { ...req.metadata }, since, until, archived: req.archived };
}

/** Validates an UpdateConversationRequest. */
export function updateInput(req: UpdateConversationRequest) {
  if (req.title !== undefined) checkLength("title", req.title, LIMITS.nameChars);
  checkTags("metadata", req.metadata);
  return { title: req.title?.trim(), metadata: { ...req.metadata }, archived: req.archived };
}

function traceOf(t: AppendMessagesRequest["messages"][number]["trace"], field: string): MessageTrace | null {
  if (!t) return null;
  checkLength(`${field}.tool_name`, t.toolName, LIMITS.nameChars);
  checkLength(`${field}.model`, t.model, LIMITS.nameChars);
  checkLength(`${field}.arguments`, t.arguments, LIMITS.contentChars);
  checkLength(`${field}.result`, t.result, LIMITS.contentChars);
  const count = (name: string, v: bigint) => {
    if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidArgument(`${field}.${name}`, "INVALID_COUNT", `${field}.${name} must be a non-negative integer`);
    return Number(v);
  };
  return {
    toolName: t.toolName,
    arguments: t.arguments,
    result: t.result,
    model: t.model,
    inputTokens: count("input_tokens", t.inputTokens),
    outputTokens: count("output_tokens", t.outputTokens),
    latencyMs: count("latency_ms", t.latencyMs),
  };
}

/** Validates the messages of an AppendMessagesRequest. */
export function appendInput(req: AppendMessagesRequest): MessageInput[] {
  if (req.messages.length === 0) throw invalidArgument("messages", "MESSAGES_REQUIRED", "messages must hold at least one message");
  if (req.messages.length > LIMITS.messages) throw tooLarge("messages", `at most ${LIMITS.messages} messages per call`, LIMITS.messages);
  return req.messages.map((m, i) => {
    const field = `messages[${i}]`;
    const role = m.role === "" ? "user" : m.role;
    if (!ROLES.has(role)) throw invalidArgument(`${field}.role`, "INVALID_ROLE", "role must be user, assistant, system or tool");
    checkLength(`${field}.name`, m.name, LIMITS.nameChars);
    checkLength(`${field}.content`, m.content, LIMITS.contentChars);
    const trace = traceOf(m.trace, `${field}.trace`);
    if (m.content.trim() === "") throw invalidArgument(`${field}.content`, "CONTENT_REQUIRED", "content is required");
    return { role, name: m.name.trim(), content: m.content, observedAt: msOf(m.observedAt, `${field}.observed_at`), trace };
  });
}

/** Validates a ListMessagesRequest's paging. */
export function listMessagesInput(req: ListMessagesRequest) {
  return { size: checkCount("page_size", req.pageSize, 50, LIMITS.pageSize), since: msOf(req.since, "since"), newestFirst: req.newestFirst };
}
