import type { ServiceImpl } from "@connectrpc/connect";
import { Verdict } from "../../gen/agentmem/v1/common_pb.js";
import type { CheckRequest, DriftService } from "../../gen/agentmem/v1/drift_service_pb.js";
import type { DriftVerdict } from "../../core/drift/drift-score.js";
import { invalidArgument, tooLarge } from "../../core/errors.js";
import { checkLength, LIMITS } from "../../core/limits.js";
import { scopeKey } from "../../core/scope.js";
import { resolveTenant } from "../request-context.js";
import { ts } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { type CheckInput, checkDrift, clearAnchors, getAnchors } from "./check.js";

const VERDICTS: Record<DriftVerdict, Verdict> = {
  on_track: Verdict.ON_TRACK,
  nudge: Verdict.NUDGE,
  correct: Verdict.CORRECT,
  block: Verdict.BLOCK,
};

/** Validates a CheckRequest: at least one of goal, constraints or response. */
export function checkInput(req: CheckRequest): CheckInput {
  const key = scopeKey(req.scope);
  checkLength("goal", req.goal, LIMITS.queryChars);
  checkLength("response", req.response, LIMITS.contentChars);
  if (req.constraints.length > LIMITS.constraints) throw tooLarge("constraints", `at most ${LIMITS.constraints} constraints`, LIMITS.constraints);
  req.constraints.forEach((c, i) => {
    checkLength(`constraints[${i}]`, c, LIMITS.queryChars);
    if (c.trim() === "") throw invalidArgument(`constraints[${i}]`, "EMPTY_CONSTRAINT", "constraints must not be blank");
  });
  const goal = req.goal.trim();
  const response = req.response.trim();
  if (goal === "" && req.constraints.length === 0 && response === "") {
    throw invalidArgument("response", "DRIFT_INPUT_REQUIRED", "give at least one of goal, constraints or response");
  }
  return {
    key,
    goal: goal === "" ? undefined : goal,
    constraints: req.constraints.length === 0 ? undefined : req.constraints.map((c) => c.trim()),
    response: response === "" ? undefined : response,
  };
}

/** The DriftService handlers (proto ↔ domain). */
export function createDriftService(deps: ServiceDeps): ServiceImpl<typeof DriftService> {
  return {
    async check(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const { score, corrective } = await checkDrift(deps, tenant, checkInput(req));
      if (!score) return {};
      return {
        score: score.score,
        verdict: VERDICTS[score.verdict],
        needsIntervention: score.needsIntervention,
        components: { goalDistance: score.goalDistance, centroidDistance: score.centroidDistance, novelty: score.novelty },
        nearestAnchor: score.nearestAnchor,
        corrective,
      };
    },

    async getAnchors(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const row = await getAnchors(deps, tenant, scopeKey(req.scope));
      if (!row) return {};
      return { goal: row.goal, constraints: row.constraints, acceptedTurns: BigInt(row.acceptedTurns), updatedAt: ts(row.updatedAt) };
    },

    async clearAnchors(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      return { cleared: await clearAnchors(deps, tenant, scopeKey(req.scope)) };
    },
  };
}
