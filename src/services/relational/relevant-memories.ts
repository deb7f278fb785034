import type { MemoryRecord, ScopeKey } from "../../core/records.js";
import { scopeCondition } from "../../core/scope.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";

/** A memory relevant to the incoming message, with its raw cosine similarity. */
export interface RelevantMemory {
  memory: MemoryRecord;
  similarity: number;
}

/**
 * The end-user's memories across sessions (namespace and agent still partition), open rows only;
 * when replaying at `at`, only what had been observed by then.
 */
export function memoriesOfUser(key: ScopeKey, at?: number) {
  return where.and(
    scopeCondition({ ...key, session: "" }),
    where.isNull("valid_to"),
    at === undefined ? undefined : where.lte("valid_from", at),
  );
}

/** Top `k` memories by cosine similarity to the message vector, keeping those ≥ `minSimilarity`. */
export async function relevantMemories(
  deps: ServiceDeps,
  tenant: string,
  key: ScopeKey,
  vector: Float32Array,
  options: { k: number; minSimilarity: number; at?: number },
): Promise<RelevantMemory[]> {
  const memories = await deps.store.memories(tenant);
  const hits = await memories.nearest(vector, memoriesOfUser(key, options.at), options.k);
  return hits
    .filter((h) => h.score >= options.minSimilarity)
    .sort((a, b) => b.score - a.score)
    .map((h) => ({ memory: h.row, similarity: h.score }));
}
