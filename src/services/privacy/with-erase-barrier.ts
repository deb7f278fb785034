import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { requiredRole } from "../../server/method-roles.js";
import { DEV_TENANT, principalKey } from "../../server/principal.js";
import type { EraseBarrier } from "./erase-barrier.js";

interface ScopedMessage {
  scope?: { tenant?: string; user?: string };
  items?: { scope?: { tenant?: string; user?: string } }[];
}

/** The (tenant, end-user) pairs a write request names, tenants resolved like `resolveTenant` (a mismatch fails later, in the handler). */
function targetsOf(req: unknown, ctx: HandlerContext): { tenant: string; user: string }[] {
  const pinned = ctx.values.get(principalKey).tenant;
  const m = req as ScopedMessage;
  const targets: { tenant: string; user: string }[] = [];
  for (const scope of [m.scope, ...(m.items ?? []).map((i) => i.scope)]) {
    if (scope?.user) targets.push({ tenant: pinned ?? (scope.tenant || DEV_TENANT), user: scope.user });
  }
  return targets;
}

type Handler = (req: unknown, ctx: HandlerContext) => Promise<unknown>;

function fenceService<S extends DescService>(service: S, impl: object, barrier: EraseBarrier): object {
  const out: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    const fn = out[method.localName];
    if (method.methodKind !== "unary" || typeof fn !== "function") continue;
    if (requiredRole(`${service.typeName}/${method.name}`) !== "write") continue;
    const handler = fn as Handler;
    out[method.localName] = (req: unknown, ctx: HandlerContext) => {
      const targets = targetsOf(req, ctx);
      return targets.length === 0 ? handler.call(impl, req, ctx) : barrier.write(targets, () => handler.call(impl, req, ctx));
    };
  }
  return out;
}

/**
 * A router that runs every unary write-role handler under `barrier.write` for the end-users its
 * request names (`scope.user`, `items[].scope.user`), so a write that starts while one of them is
 * being erased is refused and one that began before cannot land after (see `EraseBarrier`).
 * New services inherit this through their methods' role in `method-roles.ts`.
 */
export function withEraseBarrier(router: ConnectRouter, barrier: EraseBarrier): ConnectRouter {
  return {
    handlers: router.handlers,
    service(service, implementation, options) {
      router.service(service, fenceService(service, implementation, barrier), options);
      return this;
    },
    rpc(method, impl, options) {
      router.rpc(method, impl, options);
      return this;
    },
  };
}
