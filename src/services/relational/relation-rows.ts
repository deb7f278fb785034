import { AgentMemError, invalidArgument } from "../../core/errors.js";
import type { RelationRecord } from "../../core/relational/records.js";
import { newRelation, settle } from "../../core/relational/state.js";
import type { ServiceDeps } from "../deps.js";

/** The stored relation of an end-user, or undefined if never seen. */
export async function readRelation(deps: ServiceDeps, tenant: string, user: string): Promise<RelationRecord | undefined> {
  const [row] = await (await deps.store.relations(tenant)).get([user]);
  return row;
}

/** The relation as it stands at `at` (lazy decay applied, nothing written); defaults if unseen. */
export async function relationAt(deps: ServiceDeps, tenant: string, user: string, at: number): Promise<RelationRecord> {
  return settle((await readRelation(deps, tenant, user)) ?? newRelation(user), at);
}

/** `at` or, when the request gave none, now, but never before the user was last seen. */
export function effectiveAt(row: RelationRecord, requested: number | undefined, now: number): number {
  if (requested !== undefined) {
    if (row.lastSeen !== null && requested < row.lastSeen) {
      throw invalidArgument(
        "at",
        "AT_BEFORE_LAST_SEEN",
        `at ${new Date(requested).toISOString()} is before this end-user's last_seen ${new Date(row.lastSeen).toISOString()}; history replays forward only`,
      );
    }
    return requested;
  }
  return Math.max(now, row.lastSeen ?? now);
}

/**
 * Changes an end-user's relation atomically: creates the starting row if missing, then runs
 * `change` inside the table's write queue, so concurrent updates of one user are serialised and
 * none is lost. `change` may throw to refuse (nothing is written then).
 */
export async function updateRelation(
  deps: ServiceDeps,
  tenant: string,
  user: string,
  change: (row: RelationRecord) => RelationRecord,
): Promise<RelationRecord> {
  const relations = await deps.store.relations(tenant);
  for (let attempt = 0; attempt < 3; attempt++) {
    if ((await relations.get([user])).length === 0) await relations.insertNew([newRelation(user)]);
    const [updated] = await relations.patch([user], change);
    // Missing only if an erasure removed the row between the insert and the patch: start again.
    if (updated) return updated;
  }
  throw new AgentMemError("UNAVAILABLE", "RELATION_BUSY", "the end-user's relation could not be updated; retry");
}
