/** A retention tier as stored. */
export type PlanName = "community" | "clinic" | "enterprise";

/** The plan a tenant has until it sets one. */
export const DEFAULT_PLAN: PlanName = "enterprise";

/** Messages kept per end-user by plan (0 = unlimited), from the Humane design card. */
export const PLAN_CAPS: Readonly<Record<PlanName, number>> = { community: 500, clinic: 5_000, enterprise: 0 };

/** A tenant's stored retention setting (one row, id `plan`). */
export interface RetentionRecord {
  id: string;
  plan: PlanName;
  /** Epoch ms of the last change. */
  updatedAt: number;
  /** Key id that set it. */
  actor: string;
}
