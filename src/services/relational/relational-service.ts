import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { RelationalService, type UserState, UserStateSchema } from "../../gen/agentmem/v1/relational_service_pb.js";
import { matchStrength } from "../../core/match-strength.js";
import { applyEvent } from "../../core/relational/dynamics.js";
import type { RelationalScalars } from "../../core/relational/records.js";
import { resolveTenant } from "../request-context.js";
import { strengthToProto, ts } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { KeyedLock } from "./keyed-lock.js";
import { processTurn } from "./process.js";
import { effectiveAt, relationAt, updateRelation } from "./relation-rows.js";
import { eventInput, pageSizeOf, processInput, thirdPartyInput, userOf } from "./requests.js";
import { listThirdParties, thirdPartyToProto, upsertThirdParty } from "./third-parties.js";

/** The four scalars → wire UserState. */
export function userStateToProto(s: RelationalScalars): UserState {
  return create(UserStateSchema, { trust: s.trust, sentiment: s.sentiment, grudge: s.grudge, familiarity: s.familiarity });
}

/** The RelationalService handlers (proto ↔ domain). */
export function createRelationalService(deps: ServiceDeps): ServiceImpl<typeof RelationalService> {
  const lock = new KeyedLock();
  return {
    async process(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const started = performance.now();
      const r = await processTurn(deps, lock, tenant, processInput(req));
      deps.logger.debug(
        { tenant, intent: r.detection.intent, relevant: r.relevant.length, ms: Math.round(performance.now() - started) },
        "process",
      );
      return {
        response: r.reply,
        memory: {
          relevantMemories: r.relevant.map((m) => ({
            text: m.memory.text,
            similarity: m.similarity,
            timestamp: ts(m.memory.validFrom),
            strength: strengthToProto(matchStrength(m.similarity, false)),
          })),
          totalStored: BigInt(r.totalStored),
          interactionCount: BigInt(r.relation.interactionCount),
          knownSince: ts(r.relation.knownSince),
          lastSeen: ts(r.relation.lastSeen),
        },
        user: userStateToProto(r.relation),
        context: {
          toneGrudgeModifier: r.tone,
          relationBias: r.relationBias,
          detectedEmotions: r.detection.emotions,
          intent: r.detection.intent,
          systemPrompt: r.systemPrompt,
          crisis: r.detection.crisis,
          shouting: r.detection.shouting,
        },
      };
    },

    async getState(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const row = await relationAt(deps, tenant, userOf(req), deps.clock.now().getTime());
      return {
        user: userStateToProto(row),
        interactionCount: BigInt(row.interactionCount),
        knownSince: ts(row.knownSince),
        lastSeen: ts(row.lastSeen),
      };
    },

    async recordEvent(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const input = eventInput(req);
      const now = deps.clock.now().getTime();
      const row = await updateRelation(deps, lock, tenant, input.user, (r) => applyEvent(r, input.event, effectiveAt(r, input.at, now)));
      return { user: userStateToProto(row) };
    },

    async listThirdParties(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      return listThirdParties(deps, tenant, userOf(req), pageSizeOf(req), req.pageToken);
    },

    async upsertThirdParty(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      return { thirdParty: thirdPartyToProto(await upsertThirdParty(deps, tenant, thirdPartyInput(req))) };
    },
  };
}
