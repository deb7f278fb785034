import { create } from "@bufbuild/protobuf";
import { type Timestamp, timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { FactType, MatchStrength, type Memory, MemorySchema, ScopeSchema } from "../gen/agentmem/v1/common_pb.js";
import { invalidArgument } from "../core/errors.js";
import type { Strength } from "../core/match-strength.js";
import type { EpisodeRecord, FactTypeName, MemoryRecord, ScopeKey } from "../core/records.js";
import { type Turn, TurnSchema } from "../gen/agentmem/v1/memory_service_pb.js";

const FACT_TYPES: Record<FactTypeName, FactType> = {
  semantic: FactType.SEMANTIC,
  preference: FactType.PREFERENCE,
  summary: FactType.SUMMARY,
  entity: FactType.ENTITY,
  anchor: FactType.ANCHOR,
  event: FactType.EVENT,
};

/** Stored fact type → wire enum. */
export function factTypeToProto(name: FactTypeName): FactType {
  return FACT_TYPES[name] ?? FactType.SEMANTIC;
}

/** Wire enum → stored fact type (UNSPECIFIED → `fallback`); unknown values are INVALID_ARGUMENT. */
export function factTypeFromProto(value: FactType, field: string, fallback: FactTypeName = "semantic"): FactTypeName {
  if (value === FactType.UNSPECIFIED) return fallback;
  const found = (Object.keys(FACT_TYPES) as FactTypeName[]).find((k) => FACT_TYPES[k] === value);
  if (!found) throw invalidArgument(field, "INVALID_ENUM", `${field} has an unknown fact type ${value}`);
  return found;
}

/** Strength label → wire enum. */
export function strengthToProto(s: Strength): MatchStrength {
  return s === "strong" ? MatchStrength.STRONG : s === "moderate" ? MatchStrength.MODERATE : MatchStrength.WEAK;
}

/** Epoch ms → Timestamp (undefined for null). */
export function ts(ms: number | null | undefined): Timestamp | undefined {
  return ms == null || !Number.isFinite(ms) ? undefined : timestampFromMs(Math.round(ms));
}

/** Timestamp → epoch ms, validated (undefined when unset). */
export function msOf(t: Timestamp | undefined, field: string): number | undefined {
  if (!t) return undefined;
  if (!Number.isInteger(t.nanos) || t.nanos < 0 || t.nanos > 999_999_999) {
    throw invalidArgument(field, "INVALID_TIMESTAMP", `${field}.nanos must be within [0, 999999999]`);
  }
  const ms = timestampDate(t).getTime();
  // Year 1 to 9999, as RFC 3339 allows.
  if (!Number.isFinite(ms) || ms < -62135596800000 || ms > 253402300799999) {
    throw invalidArgument(field, "INVALID_TIMESTAMP", `${field} is out of range`);
  }
  return ms;
}

/** A stored row → wire Memory. */
export function memoryToProto(tenant: string, m: MemoryRecord): Memory {
  return create(MemorySchema, {
    id: m.id,
    scope: scopeToProto(tenant, m),
    text: m.text,
    factType: factTypeToProto(m.factType),
    category: m.category,
    importance: m.importance,
    entities: m.entities,
    tags: m.tags,
    pinned: m.pinned,
    createdAt: ts(m.createdAt),
    validFrom: ts(m.validFrom),
    validTo: ts(m.validTo),
    eventDate: ts(m.eventDate),
    supersededBy: m.supersededBy,
    sourceIds: m.sourceIds,
    lastAccessedAt: ts(m.lastAccessedAt),
    accessCount: BigInt(Math.round(m.accessCount)),
    channel: m.channel,
    emotions: m.emotions,
    intent: m.intent,
  });
}

/** A transcript row → wire Turn (History, Export). */
export function episodeToProto(tenant: string, e: EpisodeRecord): Turn {
  return create(TurnSchema, {
    id: e.id,
    scope: scopeToProto(tenant, e),
    role: e.role,
    name: e.name,
    content: e.content,
    observedAt: ts(e.observedAt),
    traceNumber: BigInt(Math.round(e.traceNumber)),
    parentId: e.parentId,
    channel: e.channel,
  });
}

/** Scope columns → wire Scope. */
export function scopeToProto(tenant: string, k: ScopeKey) {
  return create(ScopeSchema, { tenant, namespace: k.namespace, agent: k.agent, session: k.session, user: k.user });
}
