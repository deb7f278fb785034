import { createHash, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { DualHandler } from "./listener.js";
import type { Metrics } from "./metrics.js";

/** Options for {@link createHttpRoutes}. */
export interface HttpRoutesOptions {
  /** Serves everything that is not `/ui` or `/metrics` (the Connect adapter). */
  api: DualHandler;
  /** Answers `GET /metrics`. Default: `/metrics` goes to `api` (and 404s there). */
  metrics?: Metrics;
  /** Answers `/mcp` (MCP Streamable HTTP). Default: `/mcp` goes to `api` (and 404s there). */
  mcp?: DualHandler;
  /** The built web page (index.html, app.js, style.css). Default: {@link defaultUiDir}. */
  uiDir?: string;
  /** When set, `GET /metrics` needs `Authorization: Bearer <metricsKey>` (default: open). */
  metricsKey?: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".map": "application/json",
};

// The page talks to its own origin only and may not be framed.
const PAGE_HEADERS = {
  "content-security-policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/**
 * Where `npm run build` puts the page: `dist/ui`. Found from this module's own place, compiled
 * (`dist/src/server`) or run from source (`src/server`).
 */
export function defaultUiDir(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const candidates = [join(here, "..", "..", "ui"), join(here, "..", "..", "dist", "ui")];
  return candidates.find((dir) => existsSync(join(dir, "app.js"))) ?? candidates[1];
}

type AnyResponse = Parameters<DualHandler>[1];

/** Compares `Authorization: Bearer X` with the key in constant time (as SHA-256 digests). */
function bearerMatches(header: string | undefined, key: string): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(token), digest(key));
}
type Head = Record<string, string | number>;
interface SimpleResponse {
  writeHead(status: number, headers: Head): unknown;
  end(body?: string | Buffer): unknown;
}

function send(res: AnyResponse, status: number, headers: Head, body: string | Buffer): void {
  const out = res as unknown as SimpleResponse;
  out.writeHead(status, { "content-length": Buffer.byteLength(body), ...headers });
  out.end(body);
}

/**
 * Wraps the API handler: `GET /ui`, `/ui/*` serve the explorer page, `GET /metrics` the
 * Prometheus text, `/mcp` the MCP endpoint; every other request goes to the API untouched.
 */
export function createHttpRoutes(options: HttpRoutesOptions): DualHandler {
  const { api, metrics } = options;
  const uiDir = resolve(options.uiDir ?? defaultUiDir());

  async function serveUi(path: string, res: AnyResponse, headOnly: boolean): Promise<void> {
    if (path === "/ui") return send(res, 308, { location: "/ui/" }, "");
    const rel = decodeURIComponent(path.slice("/ui/".length)) || "index.html";
    const file = resolve(uiDir, rel);
    if (!file.startsWith(uiDir + sep) || !(extname(file) in TYPES)) return send(res, 404, { "content-type": "text/plain" }, "not found\n");
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      const missing = rel === "index.html" ? "the web page is not built: run `npm run build`\n" : "not found\n";
      return send(res, 404, { "content-type": "text/plain" }, missing);
    }
    send(res, 200, { "content-type": TYPES[extname(file)], ...PAGE_HEADERS }, headOnly ? "" : body);
  }

  return (req, res) => {
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0];
    const read = method === "GET" || method === "HEAD";
    if (read && (path === "/ui" || path.startsWith("/ui/"))) {
      serveUi(path, res, method === "HEAD").catch(() => send(res, 500, { "content-type": "text/plain" }, "internal error\n"));
      return;
    }
    if (read && path === "/metrics" && metrics) {
      if (options.metricsKey !== undefined && !bearerMatches(req.headers.authorization, options.metricsKey)) {
        send(res, 401, { "content-type": "text/plain", "www-authenticate": "Bearer" }, "metrics need a bearer key (AGENTMEM_METRICS_KEY)\n");
        return;
      }
      metrics.render().then(
        ({ contentType, body }) => send(res, 200, { "content-type": contentType, "cache-control": "no-store" }, body),
        () => send(res, 500, { "content-type": "text/plain" }, "metrics unavailable\n"),
      );
      return;
    }
    if (path === "/mcp" && options.mcp) return options.mcp(req, res);
    api(req, res);
  };
}
