import { isIP } from "node:net";
import type { DualHandler } from "./listener.js";

/** True for `localhost`, `*.localhost`, 127.0.0.0/8 and ::1 (brackets allowed). */
export function isLoopbackName(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost") || name === "::1") return true;
  return isIP(name) === 4 && name.startsWith("127.");
}

/** The host name of a `Host` / `:authority` value, without its port. */
function hostOf(authority: string): string {
  if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1);
  return authority.replace(/:\d*$/, "");
}

function originIsLoopback(origin: string): boolean {
  try {
    return isLoopbackName(new URL(origin).hostname);
  } catch {
    return false;
  }
}

const REFUSAL = JSON.stringify({
  code: "permission_denied",
  message: "dev mode (no API keys) answers only requests addressed to a loopback host; set AGENTMEM_API_KEYS to serve other names",
});

/**
 * Dev mode answers only requests whose `Host` (`:authority`) names a loopback host and whose
 * `Origin`, when sent, is a loopback origin: a web page on another name that resolves to
 * 127.0.0.1 (DNS rebinding) cannot reach the keyless admin principal. Others get HTTP 403.
 */
export function loopbackOnly(handler: DualHandler): DualHandler {
  return (req, res) => {
    const headers = req.headers as Record<string, string | string[] | undefined>;
    const authority = String(headers[":authority"] ?? headers.host ?? "");
    const origin = headers.origin;
    const allowed = authority !== "" && isLoopbackName(hostOf(authority)) && (origin === undefined || originIsLoopback(String(origin)));
    if (allowed) return handler(req, res);
    const out = res as unknown as { writeHead(s: number, h: Record<string, string | number>): unknown; end(b: string): unknown };
    out.writeHead(403, { "content-type": "application/json", "content-length": Buffer.byteLength(REFUSAL) });
    out.end(REFUSAL);
  };
}
