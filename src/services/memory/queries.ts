import type {
  ForgetRequest,
  GetMemoryRequest,
  HistoryRequest,
  ListMemoriesRequest,
  MemoryHistoryRequest,
} from "../../gen/agentmem/v1/memory_service_pb.js";
import { invalidArgument, notFound } from "../../core/errors.js";
import { checkCount, checkLength, LIMITS } from "../../core/limits.js";
import type { EpisodeRecord, MemoryRecord } from "../../core/records.js";
import { inScope, isGlobal, scopeCondition, scopeKey } from "../../core/scope.js";
import { where } from "../../core/condition.js";
import { episodeToProto, memoryToProto } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { decodePageToken, encodePageToken } from "../page-token.js";
import { replacedBy } from "./recall.js";

const DAY_MS = 86_400_000;
/** Ids per delete commit when Forget removes unused memories by id. */
const FORGET_CHUNK = 1_000;

async function findInScope(deps: ServiceDeps, tenant: string, req: { scope?: GetMemoryRequest["scope"]; id: string }): Promise<MemoryRecord> {
  const key = scopeKey(req.scope);
  if (req.id === "") throw invalidArgument("id", "ID_REQUIRED", "id is required");
  checkLength("id", req.id, LIMITS.nameChars);
  const [row] = await (await deps.store.memories(tenant)).get([req.id]);
  if (!row || !inScope(key, row)) throw notFound("memory", req.id);
  const [used] = await deps.access.current(tenant, [row]);
  return used;
}

/** GetMemory: one memory, only if it lies in the caller's scope. */
export async function getMemory(deps: ServiceDeps, tenant: string, req: GetMemoryRequest) {
  return { memory: memoryToProto(tenant, await findInScope(deps, tenant, req)) };
}

/** ListMemories: newest first, opaque offset tokens bound to the scope. */
export async function listMemories(deps: ServiceDeps, tenant: string, req: ListMemoriesRequest) {
  const key = scopeKey(req.scope);
  const size = checkCount("page_size", req.pageSize, 50, LIMITS.pageSize);
  const binding = ["memories", tenant, key.namespace, key.agent, key.session, key.user];
  const offset = decodePageToken(req.pageToken, binding);
  const memories = await deps.store.memories(tenant);
  // Order and page over two columns; only the page's rows are loaded.
  const keys = await memories.project(scopeCondition(key), ["id", "created_at"]);
  keys.sort((a, b) => Number(b.created_at) - Number(a.created_at) || String(a.id).localeCompare(String(b.id)));
  const pageIds = keys.slice(offset, offset + size).map((k) => String(k.id));
  const byId = new Map((await memories.get(pageIds)).map((m) => [m.id, m]));
  const page = pageIds.map((id) => byId.get(id)).filter((m): m is MemoryRecord => m !== undefined);
  const next = offset + size < keys.length ? encodePageToken(offset + size, binding) : "";
  return { memories: (await deps.access.current(tenant, page)).map((m) => memoryToProto(tenant, m)), nextPageToken: next };
}

/** MemoryHistory: the whole supersede chain through a memory, oldest first. */
export async function memoryHistory(deps: ServiceDeps, tenant: string, req: MemoryHistoryRequest) {
  const start = await findInScope(deps, tenant, req);
  const memories = await deps.store.memories(tenant);
  let newest = start;
  for (let i = 0; i < 50 && newest.supersededBy; i++) {
    const [next] = await memories.get([newest.supersededBy]);
    if (!next) break;
    newest = next;
  }
  const chain = [...(await replacedBy(memories, newest.id)), newest];
  return { chain: (await deps.access.current(tenant, chain)).map((m) => memoryToProto(tenant, m)) };
}

/** Forget: delete memories in a non-global scope; pinned ones survive unless pinned_exempt=false. */
export async function forget(deps: ServiceDeps, tenant: string, req: ForgetRequest) {
  const key = scopeKey(req.scope);
  if (isGlobal(key)) {
    throw invalidArgument("scope", "GLOBAL_SCOPE", "Forget needs a scope that names a namespace, agent, session or user");
  }
  if (req.unusedForDays < 0) throw invalidArgument("unused_for_days", "INVALID_COUNT", "unused_for_days must not be negative");
  const keepPinned = req.pinnedExempt ?? true;
  const memories = await deps.store.memories(tenant);
  if (req.unusedForDays === 0) {
    return { deleted: BigInt(await memories.delete(where.and(scopeCondition(key), keepPinned ? where.eq("pinned", false) : undefined))) };
  }
  // Uses live in `memory_use` (and in the tracker's buffer): the rows' own column is only the
  // baseline, so it preselects, and the recorded uses decide. A use buffered a moment ago counts.
  const cutoff = deps.clock.now().getTime() - req.unusedForDays * DAY_MS;
  await deps.access.flush(tenant);
  const stale = await memories.find(where.and(scopeCondition(key), where.eq("pinned", false), where.lt("last_accessed_at", cutoff)), { withoutVector: true });
  const unused = (await deps.access.current(tenant, stale, { fresh: true })).filter((m) => m.lastAccessedAt < cutoff).map((m) => m.id);
  let deleted = 0;
  for (let i = 0; i < unused.length; i += FORGET_CHUNK) {
    deleted += await memories.delete(where.and(scopeCondition(key), where.eq("pinned", false), where.in("id", unused.slice(i, i + FORGET_CHUNK))));
  }
  return { deleted: BigInt(deleted) };
}

/** History: raw transcript turns in scope, oldest first. */
export async function history(deps: ServiceDeps, tenant: string, req: HistoryRequest) {
  const key = scopeKey(req.scope);
  if (req.from < 0) throw invalidArgument("from", "INVALID_COUNT", "from must not be negative");
  const size = checkCount("size", req.size, 50, LIMITS.pageSize);
  const episodes = await deps.store.episodes(tenant);
  // Order and page over four columns; only the page's rows are loaded.
  const keys = await episodes.project(scopeCondition(key), ["id", "observed_at", "trace_number", "created_at"]);
  const n = (v: string | number | null) => Number(v ?? 0);
  keys.sort((a, b) => n(a.observed_at) - n(b.observed_at) || n(a.trace_number) - n(b.trace_number) || n(a.created_at) - n(b.created_at) || String(a.id).localeCompare(String(b.id)));
  const pageIds = keys.slice(req.from, req.from + size).map((k) => String(k.id));
  const byId = new Map((await episodes.get(pageIds)).map((e) => [e.id, e]));
  const rows = pageIds.map((id) => byId.get(id)).filter((e): e is EpisodeRecord => e !== undefined);
  return {
    total: BigInt(keys.length),
    turns: rows.map((e) => episodeToProto(tenant, e)),
  };
}
