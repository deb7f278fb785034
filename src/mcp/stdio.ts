import type { Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { pino } from "pino";
import type { App } from "../app.js";
import type { ClientConfig, Config, McpConfig } from "../config.js";
import { createMcpBackend } from "./backend.js";
import { createMcpServer } from "./mcp-server.js";

/** Where the stdio server's tools go: a server (`--url`) or the embedded store. */
export type McpTarget = { kind: "remote"; client: ClientConfig } | { kind: "embedded"; config: Config; apiKey?: string };

/** A running stdio MCP server. */
export interface McpStdioServer {
  /** Resolves when the client closes stdin (or {@link close} ran) and everything is flushed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves MCP on stdin/stdout. stdout carries protocol messages only: logs go to stderr. The
 * embedded store is opened through the composition root, and the tools reach it through the same
 * interceptors as the network API.
 */
export async function serveMcpStdio(target: McpTarget, scope: McpConfig): Promise<McpStdioServer> {
  let app: App | undefined;
  let transport: Transport;
  let authorization: string | undefined;
  if (target.kind === "remote") {
    transport = createConnectTransport({ baseUrl: target.client.url, httpVersion: "1.1" });
    authorization = target.client.apiKey ? `Bearer ${target.client.apiKey}` : undefined;
  } else {
    const { createApp } = await import("../app.js");
    const { createApiInterceptors, createInProcessTransport } = await import("../compose/api-interceptors.js");
    const logger = pino({ level: target.config.logLevel, base: { service: "agentmem-mcp" } }, pino.destination(2));
    const opened = (app = await createApp(target.config, { logger }));
    transport = createInProcessTransport(target.config, opened, createApiInterceptors(target.config, opened, logger));
    authorization = target.apiKey ? `Bearer ${target.apiKey}` : undefined;
  }
  const server = createMcpServer(createMcpBackend(transport, authorization), { ...scope, canErase: true });
  const stdio = new StdioServerTransport();
  let finish: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (finish = resolve));
  stdio.onclose = () => finish();
  process.stdin.once("end", () => finish());
  await server.connect(stdio);
  const closed = ended.then(async () => {
    await server.close();
    await app?.close();
  });
  return {
    closed,
    async close() {
      finish();
      await closed;
    },
  };
}
