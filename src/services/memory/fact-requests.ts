import type { AddRequest, PromptBlockRequest, SearchRequest } from "../../gen/agentmem/v1/memory_service_pb.js";
import { invalidArgument, tooLarge } from "../../core/errors.js";
import { checkCount, checkLength, LIMITS } from "../../core/limits.js";
import { scopeKey } from "../../core/scope.js";
import { msOf } from "../convert.js";
import type { AddInput } from "./add.js";
import type { PromptBlockInput } from "./prompt-block.js";
import { checkQuery, queryWindow } from "./requests.js";
import type { SearchInput } from "./search.js";

const MESSAGE_ROLES = new Set(["user", "assistant", "system"]);

/** Validates an AddRequest: 1–100 messages with content, known roles, sizes; observed_at defaults to now. */
export function addInput(req: AddRequest, now: number): AddInput {
  const key = scopeKey(req.scope);
  if (req.messages.length === 0) throw invalidArgument("messages", "MESSAGES_REQUIRED", "messages must hold at least one message");
  if (req.messages.length > LIMITS.messages) throw tooLarge("messages", `at most ${LIMITS.messages} messages per Add`, LIMITS.messages);
  const messages = req.messages.map((m, i) => {
    const role = m.role === "" ? "user" : m.role;
    if (!MESSAGE_ROLES.has(role)) throw invalidArgument(`messages[${i}].role`, "INVALID_ROLE", "role must be user, assistant or system");
    if (m.content.trim() === "") throw invalidArgument(`messages[${i}].content`, "CONTENT_REQUIRED", "every message needs content");
    checkLength(`messages[${i}].content`, m.content, LIMITS.contentChars);
    checkLength(`messages[${i}].name`, m.name, LIMITS.nameChars);
    return { role, name: m.name.trim(), content: m.content };
  });
  // One Add is a slice of conversation; megabytes of text would tie up the extractor for minutes.
  const total = messages.reduce((n, m) => n + m.content.length, 0);
  if (total > LIMITS.contentChars) throw tooLarge("messages", `the messages hold ${total} characters; the limit per Add is ${LIMITS.contentChars}`, LIMITS.contentChars);
  return { key, messages, observedAt: msOf(req.observedAt, "observed_at") ?? now, strategies: [] };
}

/** Validates a SearchRequest: a query, k (default 10, at most 100), optional as_of / as_of_event. */
export function searchInput(req: SearchRequest): SearchInput {
  const key = scopeKey(req.scope);
  checkQuery(req.query);
  return {
    key,
    query: req.query,
    ...queryWindow(req),
  };
}

/** Validates a PromptBlockRequest: a query and budget_tokens (default 500, at most 32,000). */
export function promptBlockInput(req: PromptBlockRequest): PromptBlockInput {
  const key = scopeKey(req.scope);
  checkQuery(req.query);
  return { key, query: req.query, budgetTokens: checkCount("budget_tokens", req.budgetTokens, 500, LIMITS.budgetTokens) };
}
