import type { Schema } from "apache-arrow";
import type { AnchorRecord } from "../../core/drift/anchor-record.js";
import { arrow, col, toStrings, toVector } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

// Variable-length float lists rather than fixed-size vectors: a scope may have no goal or no
// centroid yet, and the anchors re-embed themselves when the embedding model changes.
const floats = (name: string) => new arrow.Field(name, new arrow.List(new arrow.Field("item", new arrow.Float32(), true)), false);

/** The `anchors` table schema (drift anchors, one row per scope). */
export function anchorSchema(): Schema {
  return new arrow.Schema([
    col.text("id"),
    col.text("namespace"),
    col.text("agent"),
    col.text("session"),
    col.text("user"),
    col.text("goal"),
    floats("goal_vector"),
    col.texts("constraints"),
    floats("constraint_vectors"),
    floats("centroid"),
    col.float("accepted_turns"),
    col.text("embed_model"),
    col.float("created_at"),
    col.float("updated_at"),
  ]);
}

/** Maps `AnchorRecord` ↔ row; constraint vectors are stored end to end in one list. */
export const anchorCodec: Codec<AnchorRecord> = {
  columns: anchorSchema().fields.map((f) => f.name),
  toRow: (a) => ({
    id: a.id,
    namespace: a.namespace,
    agent: a.agent,
    session: a.session,
    user: a.user,
    goal: a.goal,
    goal_vector: Array.from(a.goalVector),
    constraints: a.constraints,
    constraint_vectors: a.constraintVectors.flatMap((v) => Array.from(v)),
    centroid: Array.from(a.centroid),
    accepted_turns: a.acceptedTurns,
    embed_model: a.embedModel,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  }),
  fromRow: (r) => {
    const constraints = toStrings(r.constraints);
    const flat = toVector(r.constraint_vectors);
    const width = constraints.length > 0 ? flat.length / constraints.length : 0;
    return {
      id: String(r.id),
      namespace: String(r.namespace),
      agent: String(r.agent),
      session: String(r.session),
      user: String(r.user),
      goal: String(r.goal ?? ""),
      goalVector: toVector(r.goal_vector),
      constraints,
      constraintVectors: constraints.map((_, i) => flat.slice(i * width, (i + 1) * width)),
      centroid: toVector(r.centroid),
      acceptedTurns: Number(r.accepted_turns ?? 0),
      embedModel: String(r.embed_model ?? ""),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    };
  },
};
