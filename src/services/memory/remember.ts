import type { EpisodeRecord, FactTypeName, MemoryRecord, ScopeKey } from "../../core/records.js";
import { derivedId, memoryIdentity } from "../../core/ids.js";
import { where } from "../../core/condition.js";
import { spokenLine } from "../../core/names.js";
import type { Collection } from "../../ports/collection.js";
import type { ServiceDeps } from "../deps.js";

/** One validated turn to remember. */
export interface RememberInput {
  key: ScopeKey;
  content: string;
  role: string;
  name: string;
  factType: FactTypeName;
  pinned: boolean;
  tags: Record<string, string>;
  parentId: string;
  traceNumber: number;
  /** Epoch ms; already defaulted to now. */
  observedAt: number;
  channel: string;
  importance?: number;
  emotions?: string[];
  intent?: string;
}

/** The id of the transcript turn a turn is stored as (the same formula as Add's raw turns). */
export function episodeId(tenant: string, item: Pick<RememberInput, "key" | "role" | "content" | "observedAt" | "traceNumber">): string {
  const { namespace, agent, session, user } = item.key;
  return derivedId("ep", tenant, namespace, agent, session, user, item.role, item.content, item.observedAt, item.traceNumber);
}

/**
 * The stored memories among `ids`. For an end-user whose rows are not held, the engine is first
 * asked which ids exist: that answered in ~8 ms where a lookup of whole rows took ~35 ms even when
 * none matched (every projected column read in every fragment; a 12.5k-row shard with 35
 * fragments, 2026-12-07), and new content, the usual case, matches none.
 */
async function storedMemories(memories: Collection<MemoryRecord>, user: string | undefined, ids: readonly string[]): Promise<MemoryRecord[]> {
  if (user === undefined) return memories.find(where.in("id", ids), { withoutVector: true });
  const reads = memories.forUser(user);
  if (!reads.inMemory()) {
    const found = (await reads.project(where.in("id", ids), ["id"])).map((r) => String(r.id));
    if (found.length === 0) return [];
    return reads.find(where.in("id", found), { withoutVector: true });
  }
  return reads.find(where.in("id", ids), { withoutVector: true });
}

/** How `rememberAll` may write. */
export interface RememberOptions {
  /**
   * The turns' episode ids are new by construction (a Process turn: its trace number is the
   * end-user's interaction count, which grows under the relation's lock), so their rows are
   * appended without asking which ids are stored: for an end-user not held that question is an
   * engine lookup (13 ms p50 per turn at 100k, 2026-12-07).
   */
  newTurns?: boolean;
}

/**
 * Stores turns: each becomes a raw episode and a content-addressed long-term memory (the same
 * text in the same scope updates its row, keeping when it was created and how often it was used).
 * All items share one embedding call and one commit per table.
 */
export async function rememberAll(deps: ServiceDeps, tenant: string, items: readonly RememberInput[], options: RememberOptions = {}): Promise<string[]> {
  if (items.length === 0) return [];
  const vectors = await deps.embedder.embed(items.map((i) => spokenLine(i.name, i.content)));
  const now = deps.clock.now().getTime();
  const identities = items.map((i) => memoryIdentity(tenant, i.key, i.content));
  const ids = identities.map((i) => i.id);
  const memories = await deps.store.memories(tenant);
  const episodes = await deps.store.episodes(tenant);
  // Ids embed the scope, so naming the end-user when all items share one loses no match and lets
  // the store answer from that user's rows in memory instead of scanning the table.
  const users = new Set(items.map((i) => i.key.user));
  const existing = new Map((await storedMemories(memories, users.size === 1 ? [...users][0] : undefined, ids)).map((m) => [m.id, m]));
  // Rows are built field by field: spreading the scope key first and adding ~25 properties after
  // it cost ~40 µs a row (V8 grows the cloned object one slow transition at a time), 40× more.
  const memoryRows: MemoryRecord[] = items.map((item, i) => {
    const before = existing.get(ids[i]);
    const { namespace, agent, session, user } = item.key;
    return {
      namespace,
      agent,
      session,
      user,
      id: ids[i],
      text: item.content,
      factType: item.factType,
      category: before?.category ?? "",
      importance: item.importance ?? before?.importance ?? (item.pinned ? 8 : 5),
      entities: before?.entities ?? [],
      tags: before === undefined ? { ...item.tags } : { ...before.tags, ...item.tags },
      pinned: item.pinned || (before?.pinned ?? false),
      contentHash: identities[i].contentHash,
      vector: vectors[i],
      sourceIds: [],
      parentId: item.parentId,
      createdAt: before?.createdAt ?? now,
      validFrom: before?.validFrom ?? item.observedAt,
      validTo: before?.validTo ?? null,
      supersededBy: before?.supersededBy ?? "",
      eventDate: before?.eventDate ?? null,
      lastAccessedAt: Math.max(before?.lastAccessedAt ?? 0, now),
      accessCount: before?.accessCount ?? 0,
      channel: item.channel,
      emotions: item.emotions ?? [],
      intent: item.intent ?? "",
      embedModel: deps.embedder.model,
      role: item.role,
      name: item.name,
      // The turn's position, so its neighbours are found among the memory rows (see neighbours.ts).
      traceNumber: item.traceNumber,
    };
  });
  const episodeRows: EpisodeRecord[] = items.map((item, i) => ({
    namespace: item.key.namespace,
    agent: item.key.agent,
    session: item.key.session,
    user: item.key.user,
    id: episodeId(tenant, item),
    role: item.role,
    name: item.name,
    content: item.content,
    observedAt: item.observedAt,
    traceNumber: item.traceNumber,
    parentId: item.parentId,
    channel: item.channel,
    vector: vectors[i],
    createdAt: now,
    memoryId: ids[i],
  }));
  memoryRows.forEach((m, i) => (m.sourceIds = [episodeRows[i].id]));
  await Promise.all([options.newTurns ? episodes.append(episodeRows) : episodes.insertNew(episodeRows), memories.upsert(memoryRows)]);
  // Every stored interaction is followed by the tenant's retention cap (a no-op when unlimited).
  await deps.retention.enforce(tenant, items.map((i) => i.key));
  return ids;
}
