import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { scopesOf, tenantOf } from "../request-context.js";
import type { UsageMeter } from "./usage-meter.js";

type Handler = (req: unknown, ctx: HandlerContext) => unknown;

function attributeService<S extends DescService>(service: S, impl: object, meter: UsageMeter): object {
  const out: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    const fn = out[method.localName];
    if (method.methodKind !== "unary" || typeof fn !== "function") continue;
    const handler = fn as Handler;
    out[method.localName] = (req: unknown, ctx: HandlerContext) => meter.attribute(tenantOf(ctx, scopesOf(req)[0]), () => handler.call(impl, req, ctx));
  }
  return out;
}

/**
 * A router that runs every unary handler inside `meter.attribute(tenant, …)`, so the embedding
 * calls a request makes are billed to its tenant without every handler passing the tenant down.
 */
export function withUsageAttribution(router: ConnectRouter, meter: UsageMeter): ConnectRouter {
  return {
    handlers: router.handlers,
    service(service, implementation, options) {
      router.service(service, attributeService(service, implementation, meter), options);
      return this;
    },
    rpc(method, impl, options) {
      router.rpc(method, impl, options);
      return this;
    },
  };
}
