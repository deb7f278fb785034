import type { ScopeKey } from "./records.js";

/**
 * The ~120-word profile of one end-user (per namespace, agent and user; `session` is always "":
 * the profile outlives sessions). Times are epoch ms.
 */
export interface ProfileRecord extends ScopeKey {
  /** Derived from the tenant, namespace, agent and user. */
  id: string;
  text: string;
  /** The session key that last rewrote it (the session, or `day:YYYY-MM-DD` without one). */
  sessionKey: string;
  updatedAt: number;
  /** How many open facts it was written from. */
  factCount: number;
}
