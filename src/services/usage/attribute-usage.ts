import type { ConnectRouter } from "@connectrpc/connect";
import { scopesOf, tenantOf } from "../request-context.js";
import { decorateUnary } from "../unary-decorator.js";
import type { UsageMeter } from "./usage-meter.js";

/**
 * A router that runs every unary handler inside `meter.attribute(tenant, …)`, so the embedding
 * calls a request makes are billed to its tenant without every handler passing the tenant down.
 */
export function withUsageAttribution(router: ConnectRouter, meter: UsageMeter): ConnectRouter {
  return decorateUnary(router, (_service, _method, handler) => (req, ctx) => meter.attribute(tenantOf(ctx, scopesOf(req)[0]), () => handler(req, ctx)));
}
