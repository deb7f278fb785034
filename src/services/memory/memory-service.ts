import type { ServiceImpl } from "@connectrpc/connect";
import { MemoryService } from "../../gen/agentmem/v1/memory_service_pb.js";
import { invalidArgument, tooLarge } from "../../core/errors.js";
import { LIMITS } from "../../core/limits.js";
import { matchStrength } from "../../core/match-strength.js";
import { resolveTenant } from "../request-context.js";
import { factTypeToProto, memoryToProto, strengthToProto, ts } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { withUnimplemented } from "../unimplemented.js";
import { createFactHandlers, rememberInferred } from "./fact-handlers.js";
import { forget, getMemory, history, listMemories, memoryHistory } from "./queries.js";
import { recall } from "./recall.js";
import { rollup } from "./rollup.js";
import { usageReport } from "./usage-report.js";
import { rememberAll } from "./remember.js";
import { placeInBatch } from "./batch-order.js";
import { recallInput, rememberInput } from "./requests.js";

/** The MemoryService handlers (proto ↔ domain). */
export function createMemoryService(deps: ServiceDeps): ServiceImpl<typeof MemoryService> {
  return withUnimplemented(MemoryService, {
    ...createFactHandlers(deps),

    async remember(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const input = rememberInput(req, deps.clock.now().getTime());
      if (req.infer) return rememberInferred(deps, tenant, req, input);
      const [memoryId] = await rememberAll(deps, tenant, [input]);
      return { memoryId };
    },

    async rememberBatch(req, ctx) {
      if (req.items.length === 0) throw invalidArgument("items", "ITEMS_REQUIRED", "items must hold at least one item");
      if (req.items.length > LIMITS.batchItems) throw tooLarge("items", `at most ${LIMITS.batchItems} items per batch`, LIMITS.batchItems);
      const now = deps.clock.now().getTime();
      const tenants = new Set(req.items.map((i) => resolveTenant(ctx, i.scope?.tenant ?? "")));
      if (tenants.size > 1) throw invalidArgument("items", "MIXED_TENANTS", "all items of a batch must belong to one tenant");
      const inputs = req.items.map((item, i) => {
        if (item.infer) throw invalidArgument(`items[${i}].infer`, "INFER_NOT_IN_BATCH", "infer is not supported in RememberBatch");
        return rememberInput(item, now, `items[${i}].`);
      });
      return { memoryIds: await rememberAll(deps, [...tenants][0], placeInBatch(inputs)) };
    },

    async recall(req, ctx) {
      const started = performance.now();
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const hits = await recall(deps, tenant, recallInput(req));
      return {
        tookMillis: BigInt(Math.round(performance.now() - started)),
        count: hits.length,
        hits: hits.map((h) => ({
          id: h.memory.id,
          memory: h.memory.text,
          factType: factTypeToProto(h.memory.factType),
          score: h.fused,
          tags: h.memory.tags,
          components: {
            lexical: h.lexical,
            vector: h.vector,
            names: h.names,
            base: h.base,
            decay: h.decay,
            salience: h.salience,
            fused: h.fused,
            similarity: h.similarity,
            context: h.context,
            time: h.time,
          },
          strength: strengthToProto(matchStrength(h.similarity, h.bm25 > 0)),
          createdAt: ts(h.memory.createdAt),
          validFrom: ts(h.memory.validFrom),
          validTo: ts(h.memory.validTo),
          eventDate: ts(h.memory.eventDate),
          history: h.history.map((m) => memoryToProto(tenant, m)),
          kind: "memory",
        })),
      };
    },

    getMemory: (req, ctx) => getMemory(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),
    listMemories: (req, ctx) => listMemories(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),
    memoryHistory: (req, ctx) => memoryHistory(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),
    forget: (req, ctx) => forget(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),
    history: (req, ctx) => history(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),
    rollup: (req, ctx) => rollup(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),
    usage: (req, ctx) => usageReport(deps, resolveTenant(ctx, req.scope?.tenant ?? ""), req),

    async stats() {
      const e = deps.embedder;
      return {
        embedding: { mode: e.mode, dimension: e.dimension, semantic: e.semantic, multimodal: e.multimodal, model: e.model },
        llm: { mode: deps.chat.mode, model: deps.chat.available ? deps.chat.model : "" },
      };
    },
  });
}
