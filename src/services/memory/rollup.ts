import type { RollupRequest } from "../../gen/agentmem/v1/memory_service_pb.js";
import { AgentMemError, invalidArgument } from "../../core/errors.js";
import { contentHash, memoryId } from "../../core/ids.js";
import { checkCount } from "../../core/limits.js";
import type { MemoryRecord, ScopeKey } from "../../core/records.js";
import { acceptAbstract, rollupMessages } from "../../core/rollup/abstractive.js";
import { commonScope, commonTags, mergeSummary, ROLLUP_CATEGORY, ROLLUP_DEFAULTS, rollupCutoff, selectSources } from "../../core/rollup/rollup-plan.js";
import { isGlobal, scopeCondition, scopeKey } from "../../core/scope.js";
import type { PatchableCollection } from "../../ports/collection.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import { readsOf, scopeUser } from "../user-reads.js";

/** A validated rollup request. */
export interface RollupInput {
  key: ScopeKey;
  olderThanDays: number;
  maxSources: number;
}

/** What one rollup pass did. */
export interface RollupResult {
  rolledUp: boolean;
  consolidated: number;
  summary?: MemoryRecord;
  sourceIds: string[];
  /** True when the summary came from the chat model rather than the deterministic merge. */
  abstractive: boolean;
  /** Sources of an earlier, interrupted pass that were deleted now that their summary exists. */
  recovered: number;
}

/** Validates a RollupRequest (non-global scope; 0 → defaults). */
export function rollupInput(req: RollupRequest): RollupInput {
  const key = scopeKey(req.scope);
  if (isGlobal(key)) throw invalidArgument("scope", "GLOBAL_SCOPE", "Rollup needs a scope that names a namespace, agent, session or user");
  return {
    key,
    olderThanDays: checkCount("older_than_days", req.olderThanDays, ROLLUP_DEFAULTS.olderThanDays, 36_500),
    maxSources: checkCount("max_sources", req.maxSources, ROLLUP_DEFAULTS.maxSources, 1_000),
  };
}

/**
 * Finishes passes that wrote their summary but died before deleting the sources: a source still
 * stored next to a rollup summary that lists it (and that it predates) is deleted now.
 */
async function finishInterrupted(memories: PatchableCollection<MemoryRecord>, key: ScopeKey): Promise<number> {
  const summaries = await readsOf(memories, scopeUser(key)).find(where.and(scopeCondition(key), where.eq("fact_type", "summary"), where.eq("category", ROLLUP_CATEGORY)), { withoutVector: true });
  const writtenAt = new Map<string, number>();
  for (const s of summaries) for (const id of s.sourceIds) writtenAt.set(id, Math.max(writtenAt.get(id) ?? 0, s.createdAt));
  if (writtenAt.size === 0) return 0;
  const leftovers = (await memories.find(where.in("id", [...writtenAt.keys()]), { withoutVector: true }))
    .filter((m) => m.factType !== "summary" && !m.pinned && m.createdAt <= (writtenAt.get(m.id) ?? 0))
    .map((m) => m.id);
  if (leftovers.length === 0) return 0;
  return memories.delete(where.and(where.in("id", leftovers), where.eq("pinned", false)));
}

/** The summary text: abstractive when a chat model is configured and answers usably, else the merge. */
async function summarize(deps: ServiceDeps, tenant: string, sources: readonly MemoryRecord[]): Promise<{ text: string; abstractive: boolean }> {
  if (deps.chat.available) {
    try {
      const answer = await deps.chat.complete({ messages: rollupMessages(sources), tenant, temperature: 0, maxTokens: 2048 });
      const text = acceptAbstract(answer.content);
      if (text !== undefined) return { text, abstractive: true };
      deps.logger.warn({ tenant, sources: sources.length }, "rollup: unusable model summary, using the merge");
    } catch (error) {
      deps.logger.warn({ tenant, sources: sources.length, err: error instanceof Error ? error.message : String(error) }, "rollup: model failed, using the merge");
    }
  }
  return { text: mergeSummary(sources), abstractive: false };
}

/**
 * Folds aged memories of a scope into one summary memory. The summary is written (and read back)
 * before any source is deleted, so a failure at any point leaves the sources; a pass that dies
 * after the write and before the delete leaves both, and the next pass deletes those sources.
 */
export async function rollupScope(deps: ServiceDeps, tenant: string, input: RollupInput): Promise<RollupResult> {
  const memories = await deps.store.memories(tenant);
  const recovered = await finishInterrupted(memories, input.key);
  const now = deps.clock.now().getTime();
  const cutoff = rollupCutoff(now, input.olderThanDays);
  const candidates = await readsOf(memories, scopeUser(input.key)).find(
    where.and(scopeCondition(input.key), where.isNull("valid_to"), where.eq("pinned", false), where.ne("fact_type", "summary"), where.lte("valid_from", cutoff)),
    { withoutVector: true },
  );
  // The summary inherits its sources' recorded uses as its own baseline.
  const sources = await deps.access.current(tenant, selectSources(candidates, cutoff, input.maxSources));
  if (sources.length < ROLLUP_DEFAULTS.minSources) return { rolledUp: false, consolidated: 0, sourceIds: [], abstractive: false, recovered };

  const { text, abstractive } = await summarize(deps, tenant, sources);
  const [vector] = await deps.embedder.embed([text]);
  const scope = commonScope(sources);
  const sourceIds = sources.map((m) => m.id);
  const summary: MemoryRecord = {
    ...scope,
    id: memoryId(tenant, scope, text),
    text,
    factType: "summary",
    category: ROLLUP_CATEGORY,
    importance: Math.max(...sources.map((m) => m.importance)),
    entities: [...new Set(sources.flatMap((m) => m.entities))],
    tags: commonTags(sources),
    pinned: false,
    contentHash: contentHash(text),
    vector,
    sourceIds,
    parentId: "",
    createdAt: now,
    validFrom: Math.min(...sources.map((m) => m.validFrom)),
    validTo: null,
    supersededBy: "",
    eventDate: null,
    lastAccessedAt: Math.max(...sources.map((m) => m.lastAccessedAt)),
    accessCount: sources.reduce((sum, m) => sum + m.accessCount, 0),
    channel: "",
    emotions: [],
    intent: "",
    embedModel: deps.embedder.model,
    role: "",
    name: "",
    traceNumber: 0,
  };
  await memories.upsert([summary]);
  if ((await memories.get([summary.id])).length === 0) {
    throw new AgentMemError("INTERNAL", "ROLLUP_SUMMARY_NOT_WRITTEN", "the rollup summary could not be read back; no source was deleted");
  }
  // Only rows still unpinned and open: a source pinned or superseded meanwhile is kept.
  await memories.delete(where.and(where.in("id", sourceIds), where.eq("pinned", false), where.isNull("valid_to")));
  deps.logger.info({ tenant, consolidated: sources.length, abstractive, recovered }, "rollup");
  return { rolledUp: true, consolidated: sources.length, summary, sourceIds, abstractive, recovered };
}

/** The Rollup RPC. */
export async function rollup(deps: ServiceDeps, tenant: string, req: RollupRequest) {
  const result = await rollupScope(deps, tenant, rollupInput(req));
  return {
    rolledUp: result.rolledUp,
    consolidated: result.consolidated,
    summaryId: result.summary?.id ?? "",
    summary: result.summary?.text ?? "",
    sourceIds: result.sourceIds,
  };
}
