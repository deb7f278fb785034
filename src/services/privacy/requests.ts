import { invalidArgument } from "../../core/errors.js";
import type { PlanName } from "../../core/privacy/retention-plan.js";
import { checkScopeValue } from "../../core/scope.js";
import { Plan } from "../../gen/agentmem/v1/common_pb.js";

const PLANS: ReadonlyMap<Plan, PlanName> = new Map([
  [Plan.COMMUNITY, "community"],
  [Plan.CLINIC, "clinic"],
  [Plan.ENTERPRISE, "enterprise"],
]);

/** Validates `external_id`: the end-user (Scope.user) an erasure or export is about. */
export function externalIdOf(value: string): string {
  if (value === "") throw invalidArgument("external_id", "EXTERNAL_ID_REQUIRED", "external_id (the end-user, Scope.user) is required");
  checkScopeValue("external_id", value, true);
  return value;
}

/** Wire plan → stored plan; UNSPECIFIED and unknown values are INVALID_ARGUMENT. */
export function planFromProto(plan: Plan): PlanName {
  const name = PLANS.get(plan);
  if (!name) throw invalidArgument("plan", "INVALID_PLAN", "plan must be PLAN_COMMUNITY, PLAN_CLINIC or PLAN_ENTERPRISE");
  return name;
}

/** Stored plan → wire plan. */
export function planToProto(name: PlanName): Plan {
  for (const [plan, n] of PLANS) if (n === name) return plan;
  return Plan.ENTERPRISE;
}
