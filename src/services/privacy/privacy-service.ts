import type { ServiceImpl } from "@connectrpc/connect";
import { checkCount, LIMITS } from "../../core/limits.js";
import { PLAN_CAPS } from "../../core/privacy/retention-plan.js";
import { PrivacyService } from "../../gen/agentmem/v1/privacy_service_pb.js";
import { auditIdOf, noteAudit, principalOf, resolveTenant } from "../request-context.js";
import { scopeToProto, ts } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { eraseEndUser } from "./erase.js";
import { exportEndUser } from "./export.js";
import { externalIdOf, planFromProto, planToProto } from "./requests.js";

const NO_SCOPE = { namespace: "", agent: "", session: "", user: "" };

/** The PrivacyService handlers (all admin): erasure, export, audit trail, retention. */
export function createPrivacyService(deps: ServiceDeps): ServiceImpl<typeof PrivacyService> {
  return {
    async erase(req, ctx) {
      const tenant = resolveTenant(ctx, req.tenant);
      const user = externalIdOf(req.externalId);
      noteAudit(ctx, {}, { ...NO_SCOPE, user });
      const counts = await deps.barrier.erase(tenant, user, () => eraseEndUser(deps, tenant, user));
      noteAudit(ctx, counts);
      deps.logger.info({ tenant, tables: Object.keys(counts).length, rows: Object.values(counts).reduce((a, b) => a + b, 0) }, "end-user erased");
      const n = (kind: string) => BigInt(counts[kind] ?? 0);
      return {
        episodes: n("episodes"),
        memories: n("memories"),
        relations: n("relations"),
        thirdParties: n("third_parties"),
        anchors: n("anchors"),
        profiles: n("profiles"),
        auditId: auditIdOf(ctx),
      };
    },

    async export(req, ctx) {
      const tenant = resolveTenant(ctx, req.tenant);
      const user = externalIdOf(req.externalId);
      noteAudit(ctx, {}, { ...NO_SCOPE, user });
      return exportEndUser(deps, tenant, user);
    },

    async listAudit(req, ctx) {
      const tenant = resolveTenant(ctx, "");
      const size = checkCount("page_size", req.pageSize, 50, LIMITS.pageSize);
      const page = await deps.audit.page(tenant, size, req.pageToken);
      return {
        records: page.records.map((r) => ({
          id: r.id,
          at: ts(r.at),
          actor: r.actor,
          operation: r.operation,
          scope: scopeToProto(tenant, r.scope),
          outcome: r.outcome,
          counts: Object.fromEntries(Object.entries(r.counts).map(([k, v]) => [k, BigInt(Math.round(v))])),
        })),
        nextPageToken: page.nextPageToken,
      };
    },

    async setRetention(req, ctx) {
      const tenant = resolveTenant(ctx, "");
      const plan = planFromProto(req.plan);
      await deps.retention.setPlan(tenant, plan, principalOf(ctx).keyId);
      return { plan: planToProto(plan) };
    },

    async getRetention(_req, ctx) {
      const tenant = resolveTenant(ctx, "");
      const plan = await deps.retention.plan(tenant);
      return { plan: planToProto(plan), maxMessages: BigInt(PLAN_CAPS[plan]) };
    },

    async sweep(_req, ctx) {
      const tenant = resolveTenant(ctx, "");
      const trimmed = await deps.retention.sweep(tenant);
      return { episodes: BigInt(trimmed.episodes), memories: BigInt(trimmed.memories), usersTrimmed: BigInt(trimmed.usersTrimmed) };
    },
  };
}
