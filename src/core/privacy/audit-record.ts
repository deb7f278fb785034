import type { ScopeKey } from "../records.js";

/**
 * One audited call, appended to the tenant's `audit` table and never changed. It names who did
 * what to which scope and how it ended; it never holds memory content or an API key.
 */
export interface AuditRecord {
  /** Sortable id: zero-padded time, then random hex. */
  id: string;
  /** Epoch ms. */
  at: number;
  /** The API key id (a hash prefix, never the key), or "dev". */
  actor: string;
  /** The RPC, e.g. `agentmem.v1.PrivacyService/Erase`. */
  operation: string;
  /** The scope the request named (empty fields = not named). */
  scope: ScopeKey;
  /** "OK" or the error code (e.g. `INVALID_ARGUMENT`). */
  outcome: string;
  /** What the call did, in numbers (rows deleted per table, items stored, …). */
  counts: Record<string, number>;
}
