import type { UsageRequest } from "../../gen/agentmem/v1/memory_service_pb.js";
import { scopeCondition, scopeKey } from "../../core/scope.js";
import type { ServiceDeps } from "../deps.js";

/** Rough stored size of a row read without its vector: its fields as JSON plus the float32 vector. */
function approxBytes(row: object, dimension: number): number {
  return Buffer.byteLength(JSON.stringify({ ...row, vector: undefined })) + 4 * dimension;
}

/**
 * The Usage RPC: rows in scope (tenant, or narrower), bytes on disk of all the tenant's tables,
 * the provider counters of the tenant and, when a user is named, the approximate bytes of the
 * rows in scope.
 */
export async function usageReport(deps: ServiceDeps, tenant: string, req: UsageRequest) {
  const key = scopeKey(req.scope);
  const condition = scopeCondition(key);
  const [memories, episodes] = await Promise.all([deps.store.memories(tenant), deps.store.episodes(tenant)]);
  const [memoryRows, episodeRows, bytesOnDisk, totals] = await Promise.all([
    memories.count(condition),
    episodes.count(condition),
    deps.store.bytesOnDisk(tenant),
    deps.usage.totals(tenant),
  ]);
  let userBytes = 0;
  if (key.user !== "") {
    const [m, e] = await Promise.all([memories.find(condition, { withoutVector: true }), episodes.find(condition, { withoutVector: true })]);
    for (const row of [...m, ...e]) userBytes += approxBytes(row, deps.store.dimension);
  }
  return {
    memories: BigInt(memoryRows),
    episodes: BigInt(episodeRows),
    bytesOnDisk: BigInt(bytesOnDisk),
    embeddingTokens: BigInt(totals.embeddingTokens),
    llmPromptTokens: BigInt(totals.llmPromptTokens),
    llmCompletionTokens: BigInt(totals.llmCompletionTokens),
    externalChars: BigInt(totals.externalChars),
    userBytes: BigInt(userBytes),
  };
}
