import type { AnchorRecord } from "../../core/drift/anchor-record.js";
import { derivedId } from "../../core/ids.js";
import type { ScopeKey } from "../../core/records.js";
import type { PatchableCollection } from "../../ports/collection.js";

/** The id of a scope's anchor row: one row per (tenant, exact scope). */
export function anchorId(tenant: string, key: ScopeKey): string {
  return derivedId("anc", tenant, key.namespace, key.agent, key.session, key.user);
}

/** A scope with no anchors yet. */
export function emptyAnchors(id: string, key: ScopeKey, model: string, now: number): AnchorRecord {
  return {
    ...key,
    id,
    goal: "",
    goalVector: new Float32Array(0),
    constraints: [],
    constraintVectors: [],
    centroid: new Float32Array(0),
    acceptedTurns: 0,
    embedModel: model,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Applies `change` to the stored row (or to `fresh` when there is none) and writes it. The change
 * runs inside the table's write queue, so concurrent checks of one scope never lose a centroid
 * update to each other.
 */
export async function updateAnchors(
  anchors: PatchableCollection<AnchorRecord>,
  fresh: AnchorRecord,
  change: (row: AnchorRecord) => AnchorRecord,
): Promise<void> {
  const changed = await anchors.patch([fresh.id], change);
  if (changed.length === 0) await anchors.insertNew([change(fresh)]);
}
