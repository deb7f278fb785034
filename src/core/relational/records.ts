/** The four relational scalars of an end-user, each in [0,1] (Humane's Table 14). */
export interface RelationalScalars {
  trust: number;
  sentiment: number;
  grudge: number;
  familiarity: number;
}

/**
 * One `relations` row: how the agent stands with one end-user of a tenant. Times are epoch ms;
 * `updatedAt` is when the scalars were last brought up to date (lazy decay runs from there).
 */
export interface RelationRecord extends RelationalScalars {
  /** The end-user id (one row per tenant and user). */
  id: string;
  user: string;
  updatedAt: number | null;
  interactionCount: number;
  /** First interaction; null before any. */
  knownSince: number | null;
  /** Latest interaction; null before any. */
  lastSeen: number | null;
}

/** One `third_parties` row: what an end-user thinks of someone they mention. */
export interface ThirdPartyRecord {
  /** A hash of user and the person's normalised name. */
  id: string;
  user: string;
  /** The person's name or role ("Tom", "mother"). */
  person: string;
  /** Their relation to the end-user ("boss", "mother"), "" if unknown. */
  relation: string;
  /** Running mean of the valence of the messages that mention them, in [-1,1]. */
  sentiment: number;
  mentions: number;
  lastMentioned: number | null;
  createdAt: number;
}
