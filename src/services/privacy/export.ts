import type { JsonObject } from "@bufbuild/protobuf";
import { where } from "../../core/condition.js";
import { settle } from "../../core/relational/state.js";
import type { ExportedTable } from "../../gen/agentmem/v1/privacy_service_pb.js";
import { episodeToProto, memoryToProto, scopeToProto, ts } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { readRelation } from "../relational/relation-rows.js";

/** Every table's rows about the end-user, kind by kind (vectors left out). */
async function tablesOf(deps: ServiceDeps, tenant: string, user: string): Promise<Omit<ExportedTable, "$typeName">[]> {
  const out: Omit<ExportedTable, "$typeName">[] = [];
  for (const table of await deps.store.personalTables(tenant)) {
    const rows = await table.rowsOf(user);
    if (rows.length > 0) out.push({ kind: table.kind, rows: rows as JsonObject[] });
  }
  return out;
}

/**
 * Everything stored about one end-user: the typed records people read (memories oldest first,
 * the transcript in order, relational state, third parties, drift anchors, profile) and every
 * stored row of every personal table for re-import.
 */
export async function exportEndUser(deps: ServiceDeps, tenant: string, user: string) {
  const mine = where.eq("user", user);
  const [memories, episodes, relation, parties, anchors, profiles, tables] = await Promise.all([
    deps.store.memories(tenant).then((c) => c.forUser(user).find(where.all(), { withoutVector: true })),
    deps.store.episodes(tenant).then((c) => c.forUser(user).find(where.all(), { withoutVector: true })),
    readRelation(deps, tenant, user),
    deps.store.thirdParties(tenant).then((c) => c.find(mine)),
    deps.store.anchors(tenant).then((c) => c.find(mine)),
    deps.store.profiles(tenant).then((c) => c.find(mine)),
    tablesOf(deps, tenant, user),
  ]);
  memories.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  episodes.sort((a, b) => a.observedAt - b.observedAt || a.traceNumber - b.traceNumber || a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  profiles.sort((a, b) => b.updatedAt - a.updatedAt);
  const now = deps.clock.now().getTime();
  const state = relation ? settle(relation, now) : undefined;
  return {
    externalId: user,
    exportedAt: ts(now),
    memories: (await deps.access.current(tenant, memories)).map((m) => memoryToProto(tenant, m)),
    episodes: episodes.map((e) => episodeToProto(tenant, e)),
    relation: state && {
      user: { trust: state.trust, sentiment: state.sentiment, grudge: state.grudge, familiarity: state.familiarity },
      interactionCount: BigInt(Math.round(state.interactionCount)),
      knownSince: ts(state.knownSince),
      lastSeen: ts(state.lastSeen),
    },
    thirdParties: parties.map((t) => ({
      person: t.person,
      relation: t.relation,
      sentiment: t.sentiment,
      mentions: BigInt(Math.round(t.mentions)),
      lastMentioned: ts(t.lastMentioned),
    })),
    anchors: anchors.map((a) => ({ scope: scopeToProto(tenant, a), goal: a.goal, constraints: a.constraints, acceptedTurns: BigInt(Math.round(a.acceptedTurns)) })),
    profile: profiles[0]?.text ?? "",
    tables,
  };
}
