import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { FactType } from "../../gen/agentmem/v1/common_pb.js";
import type { RecallRequest, RememberRequest } from "../../gen/agentmem/v1/memory_service_pb.js";
import { AgentMemError, invalidArgument } from "../../core/errors.js";
import { checkCount, checkLength, checkTags, LIMITS } from "../../core/limits.js";
import { scopeKey } from "../../core/scope.js";
import { factTypeFromProto, msOf } from "../convert.js";
import type { RecallInput } from "./recall.js";
import type { RememberInput } from "./remember.js";

const ROLES = new Set(["user", "assistant", "system", "tool"]);

/** Known extraction strategies for `infer=true`. */
export const STRATEGIES = new Set(["facts", "preferences", "events"]);

/** Validates a RememberRequest (field paths prefixed for batch items) into a RememberInput. */
export function rememberInput(req: RememberRequest, now: number, prefix = ""): RememberInput {
  const key = scopeKey(req.scope);
  if (req.content.trim() === "" && req.image.length === 0) {
    throw invalidArgument(`${prefix}content`, "CONTENT_REQUIRED", "content is required (or an image)");
  }
  checkLength(`${prefix}content`, req.content, LIMITS.contentChars);
  checkLength(`${prefix}name`, req.name, LIMITS.nameChars);
  checkLength(`${prefix}channel`, req.channel, LIMITS.nameChars);
  checkLength(`${prefix}parent_id`, req.parentId, LIMITS.nameChars);
  checkTags(`${prefix}tags`, req.tags);
  const role = req.role === "" ? "user" : req.role;
  if (!ROLES.has(role)) throw invalidArgument(`${prefix}role`, "INVALID_ROLE", "role must be user, assistant, system or tool");
  if (req.image.length > 0) {
    if (req.image.length > LIMITS.imageBytes) throw invalidArgument(`${prefix}image`, "IMAGE_TOO_LARGE", "images are limited to 5 MiB");
    throw new AgentMemError("FAILED_PRECONDITION", "EMBEDDER_NOT_MULTIMODAL", "the configured embedder cannot embed images", `${prefix}image`);
  }
  for (const s of req.strategies) {
    if (!STRATEGIES.has(s)) throw invalidArgument(`${prefix}strategies`, "UNKNOWN_STRATEGY", `unknown strategy ${JSON.stringify(s)}; use facts, preferences or events`);
  }
  const trace = Number(req.traceNumber);
  if (trace < 0) throw invalidArgument(`${prefix}trace_number`, "INVALID_COUNT", "trace_number must not be negative");
  return {
    key,
    content: req.content,
    role,
    name: req.name,
    factType: factTypeFromProto(req.factType, `${prefix}fact_type`),
    pinned: req.pinned,
    tags: { ...req.tags },
    parentId: req.parentId,
    traceNumber: trace,
    observedAt: msOf(req.observedAt, `${prefix}observed_at`) ?? now,
    channel: req.channel,
  };
}

/** Checks the query of a Recall, Search or PromptBlock: required, at most `LIMITS.queryChars`. */
export function checkQuery(query: string): void {
  checkLength("query", query, LIMITS.queryChars);
  if (query.trim() === "") throw invalidArgument("query", "QUERY_REQUIRED", "query is required");
}

/** The k (default 10, at most `LIMITS.maxK`) and as_of / as_of_event instants of a Recall or Search. */
export function queryWindow(req: { k: number; asOf?: Timestamp; asOfEvent?: Timestamp }): { k: number; asOf?: number; asOfEvent?: number } {
  return { k: checkCount("k", req.k, 10, LIMITS.maxK), asOf: msOf(req.asOf, "as_of"), asOfEvent: msOf(req.asOfEvent, "as_of_event") };
}

/** Validates a RecallRequest. */
export function recallInput(req: RecallRequest): RecallInput {
  const key = scopeKey(req.scope);
  checkQuery(req.query);
  checkTags("tags", req.tags);
  const w = req.weights;
  const weights = w ? { lexical: w.lexical, vector: w.vector, names: w.names, salience: w.salience, context: w.context, time: w.time } : undefined;
  for (const [name, value] of Object.entries(weights ?? {})) {
    if (value !== undefined && !(value >= 0 && value <= 1)) throw invalidArgument(`weights.${name}`, "INVALID_WEIGHT", "weights must be within [0, 1]");
  }
  return {
    key,
    query: req.query,
    ...queryWindow(req),
    factTypes: req.factTypes.map((f, i) => {
      if (f === FactType.UNSPECIFIED) throw invalidArgument(`fact_types[${i}]`, "INVALID_ENUM", "fact type must be specified");
      return factTypeFromProto(f, `fact_types[${i}]`);
    }),
    tags: { ...req.tags },
    includeHistory: req.includeHistory,
    weights: weights && Object.fromEntries(Object.entries(weights).filter(([, v]) => v !== undefined)),
  };
}
