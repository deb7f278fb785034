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
  /**
   * The row id: `user#revision` (`revisionId`); the end-user id alone for a row written before
   * revisions (revision 0). Each change appends a row, and the highest revision is the state.
   */
  id: string;
  user: string;
  /** How many times this end-user's relation has been written (0: never, or before revisions). */
  revision: number;
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

/** The row id of an end-user's relation at `revision` (revision 0 is the end-user id alone). */
export function revisionId(user: string, revision: number): string {
  return revision === 0 ? user : `${user}#${revision}`;
}

/** The current relation among an end-user's stored rows: the highest revision (undefined if none). */
export function latestRevision(rows: readonly RelationRecord[]): RelationRecord | undefined {
  let best: RelationRecord | undefined;
  for (const r of rows) if (best === undefined || r.revision > best.revision || (r.revision === best.revision && (r.updatedAt ?? 0) > (best.updatedAt ?? 0))) best = r;
  return best;
}
