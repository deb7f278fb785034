import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { requiredRole } from "../method-roles.js";
import { scopesOf, tenantOf } from "../request-context.js";
import { decorateUnary } from "../unary-decorator.js";
import type { EraseBarrier } from "./erase-barrier.js";

/** The (tenant, end-user) pairs a write request names, tenants resolved like `resolveTenant` (a mismatch fails later, in the handler). */
function targetsOf(req: unknown, ctx: HandlerContext): { tenant: string; user: string }[] {
  return scopesOf(req).flatMap((scope) => (scope.user ? [{ tenant: tenantOf(ctx, scope), user: scope.user }] : []));
}

/**
 * A router that runs every unary write-role handler under `barrier.write` for the end-users its
 * request names (`scope.user`, `items[].scope.user`), so a write that starts while one of them is
 * being erased is refused and one that began before cannot land after (see `EraseBarrier`).
 * New services inherit this through their methods' role in `method-roles.ts`.
 */
export function withEraseBarrier(router: ConnectRouter, barrier: EraseBarrier): ConnectRouter {
  return decorateUnary(router, (service, method, handler) => {
    if (requiredRole(`${service.typeName}/${method.name}`) !== "write") return undefined;
    return (req, ctx) => {
      const targets = targetsOf(req, ctx);
      return targets.length === 0 ? handler(req, ctx) : barrier.write(targets, () => handler(req, ctx) as Promise<unknown>);
    };
  });
}
