import type { IncomingHttpHeaders } from "node:http";
import type { Transport } from "@connectrpc/connect";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Logger } from "pino";
import type { Authenticator } from "../server/auth.js";
import type { DualHandler } from "../server/listener.js";
import { createMcpBackend } from "./backend.js";
import type { McpBinding } from "./binding.js";
import { createMcpServer } from "./mcp-server.js";
import { toolError } from "./tool-result.js";

/** The path of the Streamable HTTP endpoint on the serve port. */
export const MCP_PATH = "/mcp";

/** Options for {@link createMcpHttpHandler}. */
export interface McpHttpOptions {
  /** Reaches the API in process, through the same interceptors as the HTTP adapter. */
  transport: Transport;
  /** Checks `Authorization` before any MCP message is read (the RPCs check roles again per tool). */
  authenticate: Authenticator;
  /** Largest request body accepted (the server's `maxBodyBytes`). */
  maxBodyBytes: number;
  /** Dev mode (no keys): only pages on loopback origins may call, against DNS rebinding. */
  devMode: boolean;
  logger: Logger;
}

type AnyRequest = Parameters<DualHandler>[0];
interface SimpleResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: Buffer | string): unknown;
}

function send(res: Parameters<DualHandler>[1], status: number, headers: Record<string, string>, body: Buffer | string): void {
  const out = res as unknown as SimpleResponse;
  out.writeHead(status, { "content-length": String(Buffer.byteLength(body)), ...headers });
  out.end(body);
}

/** A JSON-RPC error answer outside any MCP exchange (bad key, body too large, not JSON). */
function rpcError(res: Parameters<DualHandler>[1], status: number, code: number, message: string, extra: Record<string, string> = {}): void {
  send(res, status, { "content-type": "application/json", ...extra }, JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === "" ? undefined : s;
}

function loopbackOrigin(origin: string): boolean {
  try {
    return ["localhost", "127.0.0.1", "[::1]"].includes(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** Reads the body up to `limit` bytes; null when it is larger. */
async function readBody(req: AnyRequest, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * `POST /mcp`: MCP Streamable HTTP, stateless (a fresh MCP server per request, JSON answers), so any
 * replica can answer any request. The key is checked up front; the end-user comes from a tool's
 * `user` argument or `X-Agentmem-User` (`X-Agentmem-Agent`, `X-Agentmem-Namespace` likewise).
 */
export function createMcpHttpHandler(options: McpHttpOptions): DualHandler {
  const { transport, authenticate, maxBodyBytes, devMode, logger } = options;

  async function handle(req: AnyRequest, res: Parameters<DualHandler>[1]): Promise<void> {
    if (req.method !== "POST") return rpcError(res, 405, -32000, "this MCP endpoint is stateless: use POST", { allow: "POST" });
    const origin = header(req.headers, "origin");
    if (devMode && origin !== undefined && !loopbackOrigin(origin)) return rpcError(res, 403, -32000, "origin not allowed");
    const authorization = header(req.headers, "authorization");
    let role: string;
    try {
      role = authenticate(authorization ?? null).role;
    } catch (error) {
      const e = toolError(error);
      return rpcError(res, 401, -32001, `${e.code} ${e.reason}: ${e.message}`, { "www-authenticate": 'Bearer realm="agentmem"' });
    }
    const raw = await readBody(req, maxBodyBytes);
    if (raw === null) return rpcError(res, 413, -32600, `request body over ${maxBodyBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return rpcError(res, 400, -32700, "parse error: the body is not JSON");
    }
    const binding: McpBinding = {
      user: header(req.headers, "x-agentmem-user"),
      agent: header(req.headers, "x-agentmem-agent") ?? "",
      namespace: header(req.headers, "x-agentmem-namespace") ?? "",
      canErase: role === "admin",
    };
    const server = createMcpServer(createMcpBackend(transport, authorization), binding);
    const mcp = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(mcp);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (!k.startsWith(":") && typeof v === "string") headers.set(k, v);
      const request = new Request(`http://localhost${MCP_PATH}`, { method: "POST", headers });
      const answer = await mcp.handleRequest(request, { parsedBody: body });
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => (out[k] = v));
      send(res, answer.status, out, Buffer.from(await answer.arrayBuffer()));
    } finally {
      await server.close();
    }
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err: String(err) }, "mcp request failed");
      if (!(res as { headersSent?: boolean }).headersSent) rpcError(res, 500, -32603, "internal error");
    });
  };
}
