import { derivedId } from "../../core/ids.js";
import { formatIsoDay } from "../../core/extract/dates.js";
import { profileMessages } from "../../core/extract/extractor-prompt.js";
import { capWords, composeProfile, PROFILE_WORDS } from "../../core/extract/profile-text.js";
import type { ProfileRecord } from "../../core/profile-record.js";
import type { ScopeKey } from "../../core/records.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import type { ExtractionUsage } from "./extractor.js";
import { factScopeCondition, openRows } from "./fact-rows.js";

/** Facts the profile writer reads, most important first. */
const PROFILE_SOURCE_FACTS = 40;

/** The profile row id of an end-user (per tenant, namespace, agent and user). */
export function profileId(tenant: string, key: ScopeKey): string {
  return derivedId("pr", tenant, key.namespace, key.agent, key.user);
}

/** The session a write belongs to for "at most once per session": the session, else the UTC day. */
export function sessionKeyOf(key: ScopeKey, observedAt: number): string {
  return key.session !== "" ? `session:${key.session}` : `day:${formatIsoDay(observedAt)}`;
}

/** The end-user's profile, if one was written. */
export async function loadProfile(deps: ServiceDeps, tenant: string, key: ScopeKey): Promise<ProfileRecord | undefined> {
  const [row] = await (await deps.store.profiles(tenant)).get([profileId(tenant, key)]);
  return row;
}

/**
 * Rewrites the end-user's ~120-word profile from their open facts, at most once per session
 * (the first write of a session that added facts). With a chat model the model writes it (one
 * call, tokens added to `usage`); without one, or when the model fails, the most important facts
 * are joined. A failure never fails the write that triggered it.
 */
export async function refreshProfile(
  deps: ServiceDeps,
  tenant: string,
  key: ScopeKey,
  observedAt: number,
  speaker: string,
  usage: ExtractionUsage,
): Promise<void> {
  const profiles = await deps.store.profiles(tenant);
  const id = profileId(tenant, key);
  const sessionKey = sessionKeyOf(key, observedAt);
  const [existing] = await profiles.get([id]);
  if (existing?.sessionKey === sessionKey) return;
  const memories = await deps.store.memories(tenant);
  const facts = await memories.find(where.and(factScopeCondition(key), openRows), { withoutVector: true });
  if (facts.length === 0) return;
  const ranked = [...facts].sort((a, b) => b.importance - a.importance || b.validFrom - a.validFrom).slice(0, PROFILE_SOURCE_FACTS);
  let text = composeProfile(ranked);
  if (deps.chat.available) {
    try {
      usage.calls++;
      const answer = await deps.chat.complete({
        messages: profileMessages(speaker, existing?.text ?? "", ranked.map((f) => f.text)),
        tenant,
        temperature: 0,
        maxTokens: 300,
      });
      usage.promptTokens += answer.promptTokens;
      usage.completionTokens += answer.completionTokens;
      if (answer.content.trim() !== "") text = capWords(answer.content, PROFILE_WORDS);
    } catch (cause) {
      deps.logger.warn({ tenant, err: cause instanceof Error ? cause.message : String(cause) }, "profile model call failed; keeping the composed profile");
    }
  }
  await profiles.upsert([
    { id, namespace: key.namespace, agent: key.agent, session: "", user: key.user, text, sessionKey, updatedAt: deps.clock.now().getTime(), factCount: facts.length },
  ]);
}
