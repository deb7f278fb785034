import { connectNodeAdapter } from "@connectrpc/connect-node";
import { type App, type AppOverrides, createApp } from "../app.js";
import type { Config } from "../config.js";
import { createAuditInterceptor } from "./audit-interceptor.js";
import { createAuthInterceptor } from "./auth.js";
import { createErrorInterceptor } from "./error-interceptor.js";
import { createHttpRoutes } from "./http-routes.js";
import { createListener } from "./listener.js";
import { createBusyInterceptor } from "./busy-interceptor.js";
import { createMetrics, type Metrics } from "./metrics.js";

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
  const metrics = createMetrics({ store: app.store, watchdog: app.watchdog });
  app.maintenance.onRun((task, outcome) => metrics.maintenanceRuns.inc({ task, outcome }));
  app.deps.usage.onRecord((d) => {
    metrics.modelTokens.inc({ kind: "embedding" }, d.embeddingTokens);
    metrics.modelTokens.inc({ kind: "chat_prompt" }, d.llmPromptTokens);
    metrics.modelTokens.inc({ kind: "chat_completion" }, d.llmCompletionTokens);
  });
  const api = connectNodeAdapter({
    routes: (router) => app.routes(router),
    interceptors: [metrics.interceptor, createBusyInterceptor(app.store), createErrorInterceptor(logger), createAuditInterceptor(app.deps.audit, logger), createAuthInterceptor(config.apiKeys)],
    readMaxBytes: config.maxBodyBytes,
    // Compress only large responses: a recall's few KB cost more to gzip and gunzip than to send.
    compressMinBytes: 64 * 1024,
    jsonOptions: { ignoreUnknownFields: false },
  });
  const handler = createHttpRoutes({ api, metrics });
  const listener = createListener({ handler, logger });
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
