import { DAY_MS } from "../../core/extract/dates.js";
import type { ExtractorContext, Strategy } from "../../core/extract/extractor-prompt.js";
import type { ProposedFact } from "../../core/extract/proposed-fact.js";
import { contentHash, derivedId, memoryId } from "../../core/ids.js";
import { cosine } from "../../core/ranking.js";
import type { EpisodeRecord, MemoryRecord, ScopeKey } from "../../core/records.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import type { Reads } from "../user-reads.js";
import { createExtractor, type ExtractionUsage } from "./extractor.js";
import { exactScopeCondition, factScopeCondition, inFactScope, openRows } from "./fact-rows.js";
import { loadProfile, refreshProfile } from "./profiles.js";

/** One message to add. */
export interface AddMessage {
  role: string;
  name: string;
  content: string;
}

/** A validated Add (also used by Remember with `infer=true`). */
export interface AddInput {
  key: ScopeKey;
  messages: AddMessage[];
  /** Epoch ms; already defaulted to now. */
  observedAt: number;
  strategies: Strategy[];
  /** Carried onto the stored turns and facts (Remember's fields). */
  extras?: { tags: Record<string, string>; pinned: boolean; channel: string; parentId: string; traceNumber: number };
}

/** What an Add did. */
export interface AddResult {
  added: MemoryRecord[];
  superseded: MemoryRecord[];
  skippedDuplicates: number;
  /** "" on success; else why extraction failed (the raw turns are stored all the same). */
  extractionError: string;
  usage: ExtractionUsage;
  turnIds: string[];
}

/** Stored facts shown to the extractor. */
export const SIMILAR_FACTS = 10;
/** Cosine at or above which a new fact duplicates a stored one. */
export const DUPLICATE_COSINE = 0.95;
const RECENT_TURNS = 6;
// Words that find the stored facts holding a slot (home, work, job, relationship, name) for the offline supersede rule.
const SLOT_WORDS = "live lives living based moved relocated work works working job employed joined nurse engineer married engaged divorced single dating partner name called";
const SLOT_CANDIDATES = 50;

async function recentTurns(episodes: Reads<EpisodeRecord>, key: ScopeKey, observedAt: number, exclude: ReadonlySet<string>) {
  const rows = await episodes.find(
    where.and(exactScopeCondition(key), where.lte("observed_at", observedAt), where.gte("observed_at", observedAt - 7 * DAY_MS)),
    { withoutVector: true },
  );
  return rows
    .filter((r) => !exclude.has(r.id))
    .sort((a, b) => a.observedAt - b.observedAt || a.traceNumber - b.traceNumber)
    .slice(-RECENT_TURNS);
}

/**
 * The hanumem write path: save the raw turns; fetch the 10 most similar open facts; one extractor
 * call; drop duplicates (normalised-text hash, then cosine ≥ 0.95); insert the new facts and close
 * every superseded row (valid_to = observation time, superseded_by) in ONE commit; then refresh the
 * profile at most once per session. Nothing is deleted. When extraction fails the raw turns stay,
 * `extractionError` says why, and no fact row is touched.
 */
export async function addMessages(deps: ServiceDeps, tenant: string, input: AddInput): Promise<AddResult> {
  const { key, messages, observedAt } = input;
  const now = deps.clock.now().getTime();
  const joined = messages.map((m) => m.content).join("\n");
  const vectors = await deps.embedder.embed(messages.length > 1 ? [...messages.map((m) => m.content), joined] : [joined]);
  const probe = vectors[vectors.length - 1];
  const [memories, episodes] = await Promise.all([deps.store.memories(tenant), deps.store.episodes(tenant)]);
  const extras = input.extras;
  const turns: EpisodeRecord[] = messages.map((m, i) => ({
    ...key,
    id: derivedId("ep", tenant, key.namespace, key.agent, key.session, key.user, m.role, m.content, observedAt, (extras?.traceNumber ?? 0) + i),
    role: m.role,
    name: m.name,
    content: m.content,
    observedAt,
    traceNumber: (extras?.traceNumber ?? 0) + i,
    parentId: extras?.parentId ?? "",
    channel: extras?.channel ?? "",
    vector: vectors[i],
    createdAt: now,
    memoryId: "",
  }));
  // Raw turns first: whatever happens next, nothing said is lost.
  await episodes.insertNew(turns);
  const turnIds = turns.map((t) => t.id);

  const extractor = createExtractor(deps.chat, deps.embedder);
  const open = where.and(factScopeCondition(key), openRows);
  // Facts and turns are read among the end-user's rows (a cache layer answers from memory).
  const mine = memories.forUser(key.user);
  const [neighbours, profile, recent, slotRows] = await Promise.all([
    mine.nearest(probe, open, SIMILAR_FACTS),
    loadProfile(deps, tenant, key),
    recentTurns(episodes.forUser(key.user), key, observedAt, new Set(turnIds)),
    extractor.mode === "offline" ? mine.match(SLOT_WORDS, open, SLOT_CANDIDATES) : Promise.resolve([]),
  ]);
  const shown = new Map<string, MemoryRecord>();
  for (const { row } of [...neighbours, ...slotRows]) if (row.validTo === null && inFactScope(key, row)) shown.set(row.id, row);
  const context: ExtractorContext = {
    observedAt,
    profile: profile?.text ?? "",
    recentTurns: recent,
    storedFacts: [...shown.values()].map((r) => ({ id: r.id, text: r.text, validFrom: r.validFrom, eventDate: r.eventDate, vector: r.vector })),
    messages: turns.map((t) => ({ id: t.id, role: t.role, name: t.name, content: t.content })),
    strategies: input.strategies,
  };
  const outcome = await extractor.extract(tenant, context);
  const result: AddResult = { added: [], superseded: [], skippedDuplicates: 0, extractionError: "", usage: outcome.usage, turnIds };
  if (!outcome.ok) {
    deps.logger.warn({ tenant, turns: turns.length, calls: outcome.usage.calls, err: outcome.detail }, "fact extraction failed; raw turns kept");
    return { ...result, extractionError: outcome.error };
  }

  const facts = outcome.facts.map((f) => ({
    ...f,
    // Only ids shown to the extractor may be closed: never another end-user's or an unknown row.
    supersedes: f.supersedes.filter((id) => shown.has(id)),
    sources: f.sources.filter((id) => turnIds.includes(id)),
  }));
  const { fresh, duplicates } = await dropDuplicates(deps, mine, key, facts, [...shown.values()]);
  result.skippedDuplicates = duplicates.length;

  const candidateIds = fresh.map(({ fact }) => memoryId(tenant, key, fact.text));
  const taken = new Set((await memories.get(candidateIds)).map((r) => r.id));
  const newRows: MemoryRecord[] = fresh.map(({ fact, vector }, i) => {
    // A closed row may hold this text's content address already: a new belief gets its own id.
    const id = taken.has(candidateIds[i]) ? memoryId(tenant, key, `${fact.text}\u0000${observedAt}`) : candidateIds[i];
    const source = turns.find((t) => fact.sources.includes(t.id)) ?? turns[0];
    return {
      ...key,
      id,
      text: fact.text,
      factType: fact.factType,
      category: fact.category,
      importance: Math.min(10, Math.max(1, Math.round(fact.importance))),
      entities: fact.entities,
      tags: { ...extras?.tags },
      pinned: extras?.pinned ?? false,
      contentHash: contentHash(fact.text),
      vector,
      sourceIds: fact.sources.length > 0 ? fact.sources : turnIds,
      parentId: extras?.parentId ?? "",
      createdAt: now,
      validFrom: observedAt,
      validTo: null,
      supersededBy: "",
      eventDate: fact.eventDate,
      lastAccessedAt: now,
      accessCount: 0,
      channel: extras?.channel ?? "",
      emotions: [],
      intent: "",
      embedModel: deps.embedder.model,
      role: source.role,
      name: source.name,
      traceNumber: 0,
    };
  });

  // Each superseded row points at the first new fact (or, for a duplicate, the stored twin) that replaced it.
  const closeWith = new Map<string, string>();
  fresh.forEach(({ fact }, i) => fact.supersedes.forEach((id) => closeWith.has(id) || closeWith.set(id, newRows[i].id)));
  for (const d of duplicates) {
    for (const id of d.fact.supersedes) if (d.twin !== "" && id !== d.twin && !closeWith.has(id)) closeWith.set(id, d.twin);
  }
  result.superseded = await memories.patch(
    [...closeWith.keys()],
    (row) =>
      row.validTo === null && inFactScope(key, row) && row.validFrom <= observedAt
        ? { ...row, validTo: observedAt, supersededBy: closeWith.get(row.id) ?? "" }
        : undefined,
    newRows,
  );
  result.added = newRows;

  if (newRows.length > 0) {
    const speaker = turns.find((t) => t.role === "user" && t.name !== "")?.name ?? "";
    try {
      await refreshProfile(deps, tenant, key, observedAt, speaker, result.usage);
    } catch (cause) {
      deps.logger.warn({ tenant, err: cause instanceof Error ? cause.message : String(cause) }, "profile refresh failed");
    }
  }
  deps.logger.debug({ tenant, ...result.usage, added: newRows.length, superseded: result.superseded.length }, "add");
  return result;
}

/** A duplicate fact and the stored row it repeats ("" when it repeats another new fact). */
interface Duplicate {
  fact: ProposedFact;
  twin: string;
}

/** Drops facts whose normalised text is stored or repeated, then those ≥ 0.95 cosine to a stored or earlier new fact. */
async function dropDuplicates(
  deps: ServiceDeps,
  memories: Reads<MemoryRecord>,
  key: ScopeKey,
  facts: readonly ProposedFact[],
  shown: readonly MemoryRecord[],
): Promise<{ fresh: { fact: ProposedFact; vector: Float32Array }[]; duplicates: Duplicate[] }> {
  const duplicates: Duplicate[] = [];
  const hashes = [...new Set(facts.map((f) => contentHash(f.text)))];
  const open = where.and(factScopeCondition(key), openRows);
  const stored = hashes.length === 0 ? [] : await memories.find(where.and(open, where.in("content_hash", hashes)), { withoutVector: true });
  const storedByHash = new Map(stored.map((r) => [r.contentHash, r.id]));
  const seen = new Set<string>();
  const byText: ProposedFact[] = [];
  for (const f of facts) {
    const h = contentHash(f.text);
    if (storedByHash.has(h) || seen.has(h)) duplicates.push({ fact: f, twin: storedByHash.get(h) ?? "" });
    else byText.push(f);
    seen.add(h);
  }
  if (byText.length === 0) return { fresh: [], duplicates };
  const vectors = await deps.embedder.embed(byText.map((f) => f.text));
  const nearest = await Promise.all(vectors.map((v) => memories.nearest(v, open, 1)));
  const fresh: { fact: ProposedFact; vector: Float32Array }[] = [];
  byText.forEach((fact, i) => {
    const v = vectors[i];
    let twin = "";
    let best = -1;
    for (const { row, score } of nearest[i]) if (score > best) [best, twin] = [score, row.id];
    for (const row of shown) {
      const s = cosine(v, row.vector);
      if (s > best) [best, twin] = [s, row.id];
    }
    for (const kept of fresh) {
      const s = cosine(v, kept.vector);
      if (s > best) [best, twin] = [s, ""];
    }
    if (best >= DUPLICATE_COSINE) duplicates.push({ fact, twin });
    else fresh.push({ fact, vector: v });
  });
  return { fresh, duplicates };
}
