import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { Agent } from "node:http";
import type { Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { type Command, Option } from "commander";
import { AgentMem } from "../../sdk/index.js";
import { loadClientConfig } from "../config.js";

/** Flags every client command accepts. */
export interface ClientFlags {
  url?: string;
  key?: string;
  tenant?: string;
  namespace?: string;
  agent?: string;
  session?: string;
  json?: boolean;
}

/** Adds `--url`, `--key`, the scope flags and `--json` to a command that talks to a server. */
export function clientOptions(command: Command, options: { json?: boolean } = {}): Command {
  command
    .addOption(new Option("--url <url>", "server URL (env AGENTMEM_URL, default http://127.0.0.1:8080)"))
    .addOption(new Option("--key <key>", "API key (env AGENTMEM_API_KEY; omit in dev mode)"))
    .option("--tenant <id>", "tenant (only in dev mode or when it matches the key's)")
    .option("--namespace <id>", "scope: namespace")
    .option("--agent <id>", "scope: agent")
    .option("--session <id>", "scope: session");
  if (options.json ?? true) command.option("--json", "print the raw response as JSON");
  return command;
}

/**
 * An SDK client for the server the flags (or env) name. Connections are not kept alive, so the
 * command exits as soon as its last call returns.
 */
export function connect(flags: ClientFlags): { client: AgentMem; url: string } {
  const config = loadClientConfig(flags);
  const auth: Interceptor = (next) => (req) => {
    if (config.apiKey) req.header.set("authorization", `Bearer ${config.apiKey}`);
    return next(req);
  };
  const transport = createConnectTransport({
    baseUrl: config.url,
    httpVersion: "1.1",
    interceptors: [auth],
    nodeOptions: { agent: new Agent({ keepAlive: false }) },
  });
  return { client: new AgentMem({ baseUrl: config.url, transport }), url: config.url };
}

/** The request scope from the flags and an end-user id. */
export function scopeOf(flags: ClientFlags, user?: string) {
  return {
    tenant: flags.tenant ?? "",
    namespace: flags.namespace ?? "",
    agent: flags.agent ?? "",
    session: flags.session ?? "",
    user: user ?? "",
  };
}

/** Parses `2025-06-01` or any ISO date-time (UTC unless an offset is given) into a Timestamp. */
export function parseDate(value: string, flag: string): Timestamp {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${flag}: not a date: ${value} (use YYYY-MM-DD or an ISO date-time)`);
  return timestampFromMs(ms);
}

/** Parses a positive integer flag. */
export function parseCount(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: expected a positive whole number, got ${value}`);
  return n;
}

/** Parses `key=value` tags. */
export function parseTags(values: readonly string[] = []): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf("=");
    if (at < 1) throw new Error(`--tag: expected key=value, got ${v}`);
    tags[v.slice(0, at)] = v.slice(at + 1);
  }
  return tags;
}

/** Writes one line to stdout. */
export function out(line = ""): void {
  process.stdout.write(`${line}\n`);
}
