import { invalidArgument } from "../../core/errors.js";
import { latestRevision, type RelationRecord, revisionId } from "../../core/relational/records.js";
import { newRelation, settle } from "../../core/relational/state.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import type { KeyedLock } from "./keyed-lock.js";

/**
 * A change appends the end-user's next revision (a plain append: a merge of one row into the
 * table cost 17–22 ms a turn against ~5 ms, 2026-12-07); every this many revisions the older
 * ones are deleted, so an end-user keeps at most this many rows.
 */
export const PRUNE_REVISIONS = 32;

/** The stored relation of an end-user (its latest revision), or undefined if never seen; read among the user's rows, so from memory once held. */
export async function readRelation(deps: ServiceDeps, tenant: string, user: string): Promise<RelationRecord | undefined> {
  return latestRevision(await (await deps.store.relations(tenant)).forUser(user).find(where.all(), { withoutVector: true }));
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
      const mine = relations.forUser(user);
      const row = latestRevision(await mine.find(where.all(), { withoutVector: true })) ?? newRelation(user);
      const revision = row.revision + 1;
      const next = { ...change(row), user, revision, id: revisionId(user, revision) };
      // Revisions are numbered under this lock, so the id is new: appended without a lookup.
      const written = relations.append([next]);
      resolve({ relation: next, written });
      await written;
      if (revision % PRUNE_REVISIONS === 0) {
        // Still under the lock, so no newer revision lands meanwhile; the turn does not wait for it.
        await mine.delete(where.ne("id", next.id)).catch((error: unknown) => deps.logger.warn({ tenant, err: String(error) }, "relation: older revisions not pruned"));
      }
    });
    held.catch(reject);
  });
}
