import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MemoryService, RememberRequest, RememberResponseSchema } from "../../gen/agentmem/v1/memory_service_pb.js";
import type { Strategy } from "../../core/extract/extractor-prompt.js";
import { resolveTenant } from "../request-context.js";
import { memoryToProto } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { addMessages } from "./add.js";
import { factHitToProto } from "./fact-hits.js";
import { addInput, promptBlockInput, searchInput } from "./fact-requests.js";
import { promptBlock } from "./prompt-block.js";
import type { RememberInput } from "./remember.js";
import { searchFacts } from "./search.js";

type FactHandlers = Pick<ServiceImpl<typeof MemoryService>, "add" | "search" | "promptBlock">;

/** The hanumem handlers of MemoryService: Add (write path), Search (read path), PromptBlock. */
export function createFactHandlers(deps: ServiceDeps): FactHandlers {
  return {
    async add(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const input = addInput(req, deps.clock.now().getTime());
      const result = await addMessages(deps, tenant, input);
      await deps.retention.enforce(tenant, [input.key]);
      return {
        added: result.added.map((m) => memoryToProto(tenant, m)),
        superseded: result.superseded.map((m) => memoryToProto(tenant, m)),
        skippedDuplicates: result.skippedDuplicates,
        extractionError: result.extractionError,
      };
    },

    async search(req, ctx) {
      const started = performance.now();
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const hits = await searchFacts(deps, tenant, searchInput(req));
      return { tookMillis: BigInt(Math.round(performance.now() - started)), hits: hits.map((h) => factHitToProto(tenant, h)) };
    },

    async promptBlock(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      return promptBlock(deps, tenant, promptBlockInput(req));
    },
  };
}

/**
 * Remember with `infer=true`: the turn goes through the Add write path (raw turn kept, extractor
 * run, strategies filter the facts). `memory_id` stays empty; the facts come back in `facts`.
 */
export async function rememberInferred(
  deps: ServiceDeps,
  tenant: string,
  req: RememberRequest,
  input: RememberInput,
): Promise<MessageInitShape<typeof RememberResponseSchema>> {
  const result = await addMessages(deps, tenant, {
    key: input.key,
    messages: [{ role: input.role, name: input.name.trim(), content: input.content }],
    observedAt: input.observedAt,
    strategies: req.strategies as Strategy[],
    extras: { tags: input.tags, pinned: input.pinned, channel: input.channel, parentId: input.parentId, traceNumber: input.traceNumber },
  });
  await deps.retention.enforce(tenant, [input.key]);
  return { memoryId: "", facts: result.added.map((m) => memoryToProto(tenant, m)), extractionError: result.extractionError };
}
