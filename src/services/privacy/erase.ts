import type { ServiceDeps } from "../deps.js";

/**
 * Right to erasure: deletes every row about the end-user from every personal table of the
 * tenant (episodes, memories, relations, third parties, anchors, profiles and any table added
 * later with a `user` column) so the bytes leave the disk. Other end-users' rows are rewritten
 * unchanged. Idempotent. Returns rows deleted per table kind.
 */
export async function eraseEndUser(deps: ServiceDeps, tenant: string, user: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  // Before the tables are emptied: a buffered mark written afterwards would put the end-user back.
  deps.access.forgetUser(tenant, user, deps.clock.now().getTime());
  for (const table of await deps.store.personalTables(tenant)) counts[table.kind] = await table.erase(user);
  return counts;
}
