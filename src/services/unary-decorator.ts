import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";

/** A unary handler as a router wrapper sees it: untyped request, the call's context. */
export type UnaryHandler = (req: unknown, ctx: HandlerContext) => unknown;

/** Returns the handler to register for a unary method, or undefined to keep the service's own. */
export type UnaryDecorator = (service: DescService, method: DescMethod, handler: UnaryHandler) => UnaryHandler | undefined;

/**
 * A router that registers every service with its unary handlers passed through `decorate`
 * (streaming methods and single `rpc` registrations are left alone). The usage attribution and
 * the erase barrier are such decorators.
 */
export function decorateUnary(router: ConnectRouter, decorate: UnaryDecorator): ConnectRouter {
  return {
    handlers: router.handlers,
    service(service, implementation, options) {
      const impl: Record<string, unknown> = { ...implementation };
      for (const method of service.methods) {
        const fn = impl[method.localName];
        if (method.methodKind !== "unary" || typeof fn !== "function") continue;
        const handler: UnaryHandler = (req, ctx) => (fn as UnaryHandler).call(implementation, req, ctx);
        impl[method.localName] = decorate(service, method, handler) ?? fn;
      }
      router.service(service, impl as typeof implementation, options);
      return this;
    },
    rpc(method, impl, options) {
      router.rpc(method, impl, options);
      return this;
    },
  };
}
