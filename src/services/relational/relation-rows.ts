import { invalidArgument } from "../../core/errors.js";
import type { RelationRecord } from "../../core/relational/records.js";
import { newRelation, settle } from "../../core/relational/state.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import type { KeyedLock } from "./keyed-lock.js";

/** The one relation row of an end-user (its id is the user): pinned to the user, so it is read from memory once held. */
const relationOf = (user: string) => where.and(where.eq("user", user), where.eq("id", user));

/** The stored relation of an end-user, or undefined if never seen. */
export async function readRelation(deps: ServiceDeps, tenant: string, user: string): Promise<RelationRecord | undefined> {
  const [row] = await (await deps.store.relations(tenant)).find(relationOf(user), { withoutVector: true });
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
 * Changes an end-user's relation atomically within this server: the read, `change` (which may throw
 * to refuse, writing nothing) and the write of one end-user run one at a time under `lock`, so
 * concurrent turns of that user lose no update; different users' writes share commits.
 */
export async function updateRelation(
  deps: ServiceDeps,
  lock: KeyedLock,
  tenant: string,
  user: string,
  change: (row: RelationRecord) => RelationRecord,
): Promise<RelationRecord> {
  const { relation, written } = await changeRelation(deps, lock, tenant, user, change);
  await written;
  return relation;
}

/**
 * `updateRelation` that hands back the changed relation as soon as it is computed, with its write
 * still in flight (`written`), so a caller can commit other tables alongside it instead of after
 * it. The lock is held until the write has landed; a refusal by `change` rejects the outer promise.
 */
export async function changeRelation(
  deps: ServiceDeps,
  lock: KeyedLock,
  tenant: string,
  user: string,
  change: (row: RelationRecord) => RelationRecord,
): Promise<{ relation: RelationRecord; written: Promise<void> }> {
  const relations = await deps.store.relations(tenant);
  return new Promise((resolve, reject) => {
    const held = lock.run(`${tenant}\u0000${user}`, async () => {
      const [row] = await relations.find(relationOf(user), { withoutVector: true });
      const next = change(row ?? newRelation(user));
      const written = relations.upsert([next]);
      resolve({ relation: next, written });
      await written;
    });
    held.catch(reject);
  });
}
