import { EventKind } from "../../gen/agentmem/v1/common_pb.js";
import type {
  GetStateRequest,
  ListThirdPartiesRequest,
  ProcessRequest,
  RecordEventRequest,
  UpsertThirdPartyRequest,
} from "../../gen/agentmem/v1/relational_service_pb.js";
import { invalidArgument } from "../../core/errors.js";
import { checkCount, checkLength, LIMITS } from "../../core/limits.js";
import type { ScopeKey } from "../../core/records.js";
import type { RelationalEvent } from "../../core/relational/dynamics.js";
import { scopeKey } from "../../core/scope.js";
import { msOf } from "../convert.js";

/** Defaults from the seed: top 3 memories with cosine ≥ 0.3. */
export const PROCESS_DEFAULTS = { k: 3, maxK: 20, minSimilarity: 0.3 } as const;

/** A validated Process request. */
export interface ProcessInput {
  key: ScopeKey;
  message: string;
  channel: string;
  /** Replay time (epoch ms), or undefined for now. */
  at?: number;
  k: number;
  minSimilarity: number;
}

/** Validates a ProcessRequest: a user in scope, a non-empty message, k and threshold in range. */
export function processInput(req: ProcessRequest): ProcessInput {
  const key = scopeKey(req.scope, { requireUser: true });
  if (req.message.trim() === "") throw invalidArgument("message", "MESSAGE_REQUIRED", "message is required");
  checkLength("message", req.message, LIMITS.contentChars);
  checkLength("channel", req.channel, LIMITS.nameChars);
  const minSimilarity = req.minSimilarity ?? PROCESS_DEFAULTS.minSimilarity;
  if (!(minSimilarity >= 0 && minSimilarity <= 1)) {
    throw invalidArgument("min_similarity", "INVALID_THRESHOLD", "min_similarity must be within [0, 1]");
  }
  return {
    key,
    message: req.message,
    channel: req.channel,
    at: msOf(req.at, "at"),
    k: checkCount("k", req.k, PROCESS_DEFAULTS.k, PROCESS_DEFAULTS.maxK),
    minSimilarity,
  };
}

/** The end-user a GetState / ListThirdParties request names (required). */
export function userOf(req: GetStateRequest | ListThirdPartiesRequest): string {
  return scopeKey(req.scope, { requireUser: true }).user;
}

const EVENTS = new Map<EventKind, RelationalEvent>([
  [EventKind.BROKEN_PROMISE, "broken_promise"],
  [EventKind.PROMISE_KEPT, "promise_kept"],
  [EventKind.APOLOGY_ACCEPTED, "apology_accepted"],
  [EventKind.COMPLAINT, "complaint"],
]);

/** A validated RecordEvent request. */
export interface EventInput {
  user: string;
  event: RelationalEvent;
  at?: number;
}

/** Validates a RecordEventRequest: a user and a known event kind. */
export function eventInput(req: RecordEventRequest): EventInput {
  const { user } = scopeKey(req.scope, { requireUser: true });
  const event = EVENTS.get(req.kind);
  if (!event) throw invalidArgument("kind", "INVALID_ENUM", "kind must be a known EventKind (not EVENT_KIND_UNSPECIFIED)");
  checkLength("note", req.note, LIMITS.contentChars);
  return { user, event, at: msOf(req.at, "at") };
}

/** A validated UpsertThirdParty request. */
export interface ThirdPartyInput {
  user: string;
  person: string;
  relation: string;
  sentiment: number;
  /** 0 keeps the stored count. */
  mentions: number;
  lastMentioned?: number;
}

/** Validates an UpsertThirdPartyRequest: a user, a person (1–128 chars) and sentiment in [-1,1]. */
export function thirdPartyInput(req: UpsertThirdPartyRequest): ThirdPartyInput {
  const { user } = scopeKey(req.scope, { requireUser: true });
  const t = req.thirdParty;
  const person = (t?.person ?? "").trim().replace(/\s+/g, " ");
  if (person === "") throw invalidArgument("third_party.person", "PERSON_REQUIRED", "third_party.person is required");
  checkLength("third_party.person", person, 128);
  checkLength("third_party.relation", t?.relation ?? "", 64);
  const sentiment = t?.sentiment ?? 0;
  if (!(sentiment >= -1 && sentiment <= 1)) {
    throw invalidArgument("third_party.sentiment", "INVALID_SENTIMENT", "third_party.sentiment must be within [-1, 1]");
  }
  const mentions = Number(t?.mentions ?? 0n);
  if (!Number.isSafeInteger(mentions) || mentions < 0) {
    throw invalidArgument("third_party.mentions", "INVALID_COUNT", "third_party.mentions must be a non-negative integer");
  }
  return {
    user,
    person,
    relation: (t?.relation ?? "").trim().toLowerCase(),
    sentiment,
    mentions,
    lastMentioned: msOf(t?.lastMentioned, "third_party.last_mentioned"),
  };
}

/** Page size of ListThirdParties (default 50). */
export function pageSizeOf(req: ListThirdPartiesRequest): number {
  return checkCount("page_size", req.pageSize, 50, LIMITS.pageSize);
}
