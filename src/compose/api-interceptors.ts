import { createRouterTransport, type Interceptor, type Transport } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { App } from "../app.js";
import type { Config } from "../config.js";
import { createAuditInterceptor } from "../server/audit-interceptor.js";
import { createAuthInterceptor } from "../server/auth.js";
import { createErrorInterceptor } from "../server/error-interceptor.js";

/**
 * The interceptors every API call passes, outermost first: error translation and logging, audit,
 * then auth and roles. The HTTP adapter and the in-process transports (MCP, tests, benches) share
 * this chain, so a call is checked the same way whichever door it came through.
 */
export function createApiInterceptors(config: Config, app: App, logger: Logger): Interceptor[] {
  return [createErrorInterceptor(logger), createAuditInterceptor(app.deps.audit, logger), createAuthInterceptor(config.apiKeys)];
}

/**
 * A transport that calls the app's routes in process through `interceptors` (normally
 * {@link createApiInterceptors}) with the server's body limit. `clientInterceptors` run on the
 * caller's side (e.g. to send `Authorization`); default none.
 */
export function createInProcessTransport(config: Config, app: App, interceptors: Interceptor[], clientInterceptors: Interceptor[] = []): Transport {
  return createRouterTransport((router) => app.routes(router), {
    router: { interceptors, readMaxBytes: config.maxBodyBytes },
    transport: { interceptors: clientInterceptors },
  });
}
