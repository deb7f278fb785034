import type { Mention } from "./mentions.js";
import type { ThirdPartyRecord } from "./records.js";
import { derivedId } from "../ids.js";

/** The row id of a person for an end-user: stable over case and spacing of the name. */
export function thirdPartyId(user: string, person: string): string {
  return derivedId("tp", user, person.trim().replace(/\s+/g, " ").toLowerCase());
}

/** A row for a person not seen before. */
export function newThirdParty(user: string, person: string, relation: string, at: number): ThirdPartyRecord {
  return { id: thirdPartyId(user, person), user, person, relation, sentiment: 0, mentions: 0, lastMentioned: null, createdAt: at };
}

/**
 * One more mention: the running mean of valence over mentions, the relation filled in if it was
 * unknown, and the latest mention time.
 */
export function addMention(row: ThirdPartyRecord, mention: Mention, at: number): ThirdPartyRecord {
  const mentions = row.mentions + 1;
  const sentiment = Math.round(((row.sentiment * row.mentions + mention.valence) / mentions) * 1e6) / 1e6;
  return {
    ...row,
    relation: row.relation || mention.relation,
    sentiment,
    mentions,
    lastMentioned: Math.max(row.lastMentioned ?? at, at),
  };
}
