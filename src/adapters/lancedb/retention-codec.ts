import type { Schema } from "apache-arrow";
import type { PlanName, RetentionRecord } from "../../core/privacy/retention-plan.js";
import { arrow, col } from "./arrow.js";
import type { Codec } from "./lance-collection.js";

/** The `retention` table schema: the tenant's plan (one row). */
export function retentionSchema(): Schema {
  return new arrow.Schema([col.text("id"), col.text("plan"), col.float("updated_at"), col.text("actor")]);
}

/** Maps `RetentionRecord` ↔ row. */
export const retentionCodec: Codec<RetentionRecord> = {
  columns: retentionSchema().fields.map((f) => f.name),
  toRow: (r) => ({ id: r.id, plan: r.plan, updated_at: r.updatedAt, actor: r.actor }),
  fromRow: (r) => ({ id: String(r.id), plan: String(r.plan) as PlanName, updatedAt: Number(r.updated_at), actor: String(r.actor ?? "") }),
};
