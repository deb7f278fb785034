import type { Interceptor } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { App } from "../app.js";
import type { Config } from "../config.js";
import { createAuditInterceptor } from "./audit-interceptor.js";
import { createAuthInterceptor } from "./auth.js";
import { createErrorInterceptor } from "./error-interceptor.js";

/**
 * The interceptors every API call passes, outermost first: error translation and logging, audit,
 * then auth and roles. The HTTP adapter and the in-process transport behind MCP share this chain,
 * so a call is checked the same way whichever door it came through.
 */
export function createApiInterceptors(config: Config, app: App, logger: Logger): Interceptor[] {
  return [createErrorInterceptor(logger), createAuditInterceptor(app.deps.audit, logger), createAuthInterceptor(config.apiKeys)];
}
