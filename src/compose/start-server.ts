import { connectNodeAdapter } from "@connectrpc/connect-node";
import { type App, type AppOverrides, createApp } from "../app.js";
import type { Config } from "../config.js";
import { createMcpHttpHandler } from "../mcp/http-endpoint.js";
import { createAuthenticator } from "../server/auth.js";
import { refuseOversizedBodies } from "../server/body-cap.js";
import { createBusyInterceptor } from "../server/busy-interceptor.js";
import { createHttpRoutes } from "../server/http-routes.js";
import { createListener } from "../server/listener.js";
import { loopbackOnly } from "../server/loopback-only.js";
import { createMetrics, type Metrics } from "../server/metrics.js";
import { createApiInterceptors, createInProcessTransport } from "./api-interceptors.js";

/** A running server. */
export interface RunningServer {
  readonly app: App;
  readonly port: number;
  readonly url: string;
  /** The Prometheus registry behind `GET /metrics`. */
  readonly metrics: Metrics;
  /** Stops accepting, finishes in-flight requests, flushes queued writes. */
  close(): Promise<void>;
}

/** Builds the app and serves it on one port (Connect, gRPC, gRPC-Web; HTTP/1.1 and h2c). */
export async function startServer(config: Config, overrides: AppOverrides = {}): Promise<RunningServer> {
  const app = await createApp(config, overrides);
  const logger = app.deps.logger;
  const metrics = createMetrics({
    store: app.store,
    watchdog: app.watchdog,
    maintenance: app.maintenance,
    storageStatsMaxAgeMs: config.metrics.storageStatsMaxAgeMs,
  });
  app.maintenance.onRun((task, outcome) => metrics.maintenanceRuns.inc({ task, outcome }));
  app.deps.usage.onRecord((d) => {
    metrics.modelTokens.inc({ kind: "embedding" }, d.embeddingTokens);
    metrics.modelTokens.inc({ kind: "chat_prompt" }, d.llmPromptTokens);
    metrics.modelTokens.inc({ kind: "chat_completion" }, d.llmCompletionTokens);
  });
  const interceptors = [metrics.interceptor, createBusyInterceptor(app.store), ...createApiInterceptors(config, app, logger)];
  const api = connectNodeAdapter({
    routes: (router) => app.routes(router),
    interceptors,
    readMaxBytes: config.maxBodyBytes,
    // Compress only large responses: a recall's few KB cost more to gzip and gunzip than to send.
    compressMinBytes: 64 * 1024,
    jsonOptions: { ignoreUnknownFields: false },
  });
  // MCP tools call the same routes through the same interceptors, in process.
  const mcp = createMcpHttpHandler({
    transport: createInProcessTransport(config, app, interceptors),
    authenticate: createAuthenticator(config.apiKeys),
    maxBodyBytes: config.maxBodyBytes,
    devMode: config.apiKeys.length === 0,
    logger,
  });
  const routes = createHttpRoutes({ api: refuseOversizedBodies(api, config.maxBodyBytes), metrics, mcp, metricsKey: config.metrics.key });
  // Without keys every caller is admin: only loopback names may reach it (no DNS rebinding).
  const handler = config.apiKeys.length === 0 ? loopbackOnly(routes) : routes;
  if (config.storage.warmUpMs > 0) {
    const warm = await app.store.warmUp(config.storage.warmUpMs);
    if (warm.tables > 0) logger.info({ tables: warm.tables, millis: Math.round(warm.millis) }, "tables warmed");
  }
  const listener = createListener({ handler, logger, limits: config.connections });
  const { port } = await listener.listen(config.host, config.port);
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  logger.info(
    { host: config.host, port, embedder: app.deps.embedder.mode, llm: app.deps.chat.mode, auth: config.apiKeys.length > 0 ? "api-keys" : "dev" },
    "SERVING",
  );
  return {
    app,
    port,
    url: `http://${host}:${port}`,
    metrics,
    async close() {
      app.stopServing();
      await listener.close();
      await app.close();
      logger.info("stopped");
    },
  };
}
