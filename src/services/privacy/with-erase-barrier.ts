import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { requiredRole } from "../method-roles.js";
import { scopesOf, tenantOf } from "../request-context.js";
import type { EraseBarrier } from "./erase-barrier.js";

/** The (tenant, end-user) pairs a write request names, tenants resolved like `resolveTenant` (a mismatch fails later, in the handler). */
function targetsOf(req: unknown, ctx: HandlerContext): { tenant: string; user: string }[] {
  return scopesOf(req).flatMap((scope) => (scope.user ? [{ tenant: tenantOf(ctx, scope), user: scope.user }] : []));
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
