import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { z } from "zod";
import type { Role } from "./core/principal.js";
import { SCOPE_VALUE } from "./core/scope.js";

/** One API key and what it may do. */
export interface ApiKey {
  key: string;
  tenant: string;
  role: Role;
}

/** The server's configuration: read once, validated, frozen. */
export interface Config {
  /** LanceDB directory or URI (default `./data`). */
  readonly data: string;
  /** Listen address (default 127.0.0.1). Without API keys only loopback is allowed. */
  readonly host: string;
  /** Listen port (default 8080). */
  readonly port: number;
  /** Embedder (default `use`). */
  readonly embedder: "hash" | "use" | "openai";
  /** Chat model (default `none`). */
  readonly llm: "none" | "openai";
  readonly apiKeys: readonly ApiKey[];
  readonly openai: {
    readonly baseURL?: string;
    readonly apiKey?: string;
    /** Chat model name (default `gpt-4o-mini`). */
    readonly llmModel: string;
    /** Embedding model name (default `text-embedding-3-small`). */
    readonly embedModel: string;
  };
  /** pino level (default `info`). */
  readonly logLevel: string;
  /** Max HTTP request body in bytes (default 8 MiB). */
  readonly maxBodyBytes: number;
  /** Minutes between retention sweeps over every tenant (`AGENTMEM_RETENTION_SWEEP_MINUTES`, default 60; 0 turns them off). */
  readonly retentionSweepMinutes: number;
  /** Storage tuning: hot-row cache, cross-process freshness, background maintenance. */
  readonly storage: {
    /** Hot-row cache budget in MiB (`AGENTMEM_HOT_ROWS_MB`, default 512; 0 turns it off). */
    readonly hotRowsMB: number;
    /** Reads of an end-user not held, lately, before the row cache loads them (`AGENTMEM_HOT_ROWS_ADMIT_READS`, default 2; see docs/operations.md). */
    readonly hotRowsAdmitReads: number;
    /** LanceDB's cache of index pages in MiB, shared by every table (`AGENTMEM_INDEX_CACHE_MB`, default 256). */
    readonly indexCacheMB: number;
    /** Seconds between checks for other processes' writes (`AGENTMEM_READ_CONSISTENCY_SECONDS`, default 0: every read). */
    readonly readConsistencySeconds: number;
    /** Other server processes write the same data directory (`AGENTMEM_SHARED_WRITERS=1`, default off; see docs/operations.md "Running replicas"). */
    readonly sharedWriters: boolean;
    /** Seconds between maintenance passes (`AGENTMEM_MAINTENANCE_SECONDS`, default 30; 0 turns them off). */
    readonly maintenanceSeconds: number;
    /** Rows at which a table gets a vector index (`AGENTMEM_VECTOR_INDEX_ROWS`, default 200000; 0 = never). */
    readonly vectorIndexRows: number;
    /** Seconds after which an engine commit that has not returned turns health NOT_SERVING (`AGENTMEM_WRITE_STALL_SECONDS`, default 120; 0 = off). */
    readonly writeStallSeconds: number;
    /** `AGENTMEM_DURABILITY`: `process` (default; survives a process crash) or `fsync` (each commit fsynced before it is acknowledged; see docs/security.md). */
    readonly durability: "process" | "fsync";
    /** Shard tables per new tenant for `memories` and `episodes`, by end-user (`AGENTMEM_TABLE_SHARDS`, default 8; 1 = one table each; see docs/operations.md "Shards"). */
    readonly tableShards: number;
    /** How long `serve` may spend warming the tables on disk before it listens, in ms (`AGENTMEM_WARM_UP_SECONDS`, default 10; 0 = off; see docs/operations.md "Warm sessions"). */
    readonly warmUpMs: number;
  };
  /** `GET /metrics`: `key` (`AGENTMEM_METRICS_KEY`, default unset = open) and how long table stats are reused (`AGENTMEM_METRICS_STORAGE_SECONDS`, default 15). */
  readonly metrics: { readonly key?: string; readonly storageStatsMaxAgeMs: number };
  /** Deadlines and caps per connection (see `docs/security.md`). */
  readonly connections: {
    /** `AGENTMEM_HEADERS_TIMEOUT_SECONDS` (default 20): a new connection's first request headers. */
    readonly headersTimeoutMs: number;
    /** `AGENTMEM_BODY_TIMEOUT_SECONDS` (default 60): a request body, from its headers. */
    readonly bodyTimeoutMs: number;
    /** `AGENTMEM_IDLE_TIMEOUT_SECONDS` (default 60): the next request on a keep-alive connection / h2 session without streams. */
    readonly idleTimeoutMs: number;
    /** `AGENTMEM_MAX_CONNECTIONS` (default 1024): open connections at most. */
    readonly maxConnections: number;
    /** `AGENTMEM_MAX_STREAMS_PER_CONNECTION` (default 100): concurrent HTTP/2 streams per session. */
    readonly maxConcurrentStreams: number;
  };
  /** The scheduled rollup of aged memories (off by default). */
  readonly rollup: {
    /** Minutes between passes (`AGENTMEM_ROLLUP_INTERVAL_MINUTES`); 0, the default, turns it off. */
    readonly intervalMinutes: number;
    /** Tenants it runs for (`AGENTMEM_ROLLUP_TENANTS`, comma-separated); empty, the default, = every tenant. */
    readonly tenants: readonly string[];
    /** Age in days from observation (`AGENTMEM_ROLLUP_OLDER_THAN_DAYS`, default 30). */
    readonly olderThanDays: number;
    /** Sources per summary (`AGENTMEM_ROLLUP_MAX_SOURCES`, default 100). */
    readonly maxSources: number;
  };
}

/** Values from command-line flags (undefined = not given). */
export interface ConfigFlags {
  data?: string;
  host?: string;
  port?: string | number;
  embedder?: string;
  llm?: string;
}

const keySchema = z.object({
  key: z.string().min(16, "API keys must be at least 16 characters"),
  tenant: z.string().regex(SCOPE_VALUE, "tenant must be 1–128 characters of [A-Za-z0-9_.:@-]"),
  role: z.enum(["read", "write", "admin"]),
});

const configSchema = z.object({
  data: z.string().min(1),
  host: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65535),
  embedder: z.enum(["hash", "use", "openai"]),
  llm: z.enum(["none", "openai"]),
  apiKeys: z.array(keySchema),
  openai: z.object({
    baseURL: z.string().url().optional(),
    apiKey: z.string().optional(),
    llmModel: z.string().min(1),
    embedModel: z.string().min(1),
  }),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  maxBodyBytes: z.coerce.number().int().min(1024),
  retentionSweepMinutes: z.coerce.number().min(0),
  storage: z.object({
    hotRowsMB: z.coerce.number().min(0),
    hotRowsAdmitReads: z.coerce.number().int().min(1),
    indexCacheMB: z.coerce.number().min(1),
    readConsistencySeconds: z.coerce.number().min(0),
    sharedWriters: z.enum(["0", "1", "true", "false", ""]).transform((v) => v === "1" || v === "true"),
    maintenanceSeconds: z.coerce.number().min(0),
    vectorIndexRows: z.coerce.number().int().min(0),
    writeStallSeconds: z.coerce.number().min(0),
    durability: z.enum(["process", "fsync"]),
    tableShards: z.coerce.number().int().min(1).max(64),
    warmUpMs: z.coerce.number().min(0).transform((s) => Math.round(s * 1000)),
  }),
  metrics: z.object({
    key: z.string().min(16, "AGENTMEM_METRICS_KEY must be at least 16 characters").optional(),
    storageStatsMaxAgeMs: z.coerce.number().min(0).transform((s) => Math.round(s * 1000)),
  }),
  connections: z.object({
    headersTimeoutMs: z.coerce.number().positive().transform((s) => Math.round(s * 1000)),
    bodyTimeoutMs: z.coerce.number().positive().transform((s) => Math.round(s * 1000)),
    idleTimeoutMs: z.coerce.number().positive().transform((s) => Math.round(s * 1000)),
    maxConnections: z.coerce.number().int().min(1),
    maxConcurrentStreams: z.coerce.number().int().min(1).max(2 ** 31 - 1),
  }),
  rollup: z.object({
    intervalMinutes: z.coerce.number().min(0),
    tenants: z.array(z.string().regex(SCOPE_VALUE, "rollup tenants must be 1–128 characters of [A-Za-z0-9_.:@-]")),
    olderThanDays: z.coerce.number().int().min(1).max(36_500),
    maxSources: z.coerce.number().int().min(3).max(1_000),
  }),
});

/**
 * Parses `key:tenant:role,…` (also newline-separated, as in a keys file). Every entry must name
 * a role, and a key may appear once: an ambiguous key is refused at start-up, never resolved to
 * one of its entries. Errors never quote a key.
 */
export function parseApiKeys(spec: string): ApiKey[] {
  const entries = spec
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("#"));
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const parts = entry.split(":");
    if (parts.length !== 3) throw new Error(`invalid configuration: API key entry ${i + 1}: expected key:tenant:role (role read, write or admin)`);
    const [key, tenant, role] = parts;
    if (seen.has(key)) throw new Error(`invalid configuration: API key entry ${i + 1} repeats an earlier key; each key must be unique`);
    seen.add(key);
    const parsed = keySchema.safeParse({ key, tenant, role });
    if (!parsed.success) throw new Error(`invalid configuration: API key entry ${i + 1}: ${parsed.error.issues[0].message}`);
    return parsed.data;
  });
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/** Reads flags > env > defaults once and returns a frozen, validated config. */
export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const keysFile = env.AGENTMEM_API_KEYS_FILE;
  const keySpec = [env.AGENTMEM_API_KEYS ?? "", keysFile ? readFileSync(keysFile, "utf8") : ""].join("\n");
  const parsed = configSchema.safeParse({
    data: flags.data ?? env.AGENTMEM_DATA ?? "./data",
    host: flags.host ?? env.AGENTMEM_HOST ?? "127.0.0.1",
    port: flags.port ?? env.AGENTMEM_PORT ?? 8080,
    embedder: flags.embedder ?? env.AGENTMEM_EMBEDDER ?? "use",
    llm: flags.llm ?? env.AGENTMEM_LLM ?? "none",
    apiKeys: parseApiKeys(keySpec),
    openai: {
      baseURL: env.OPENAI_BASE_URL || undefined,
      apiKey: env.OPENAI_API_KEY || undefined,
      llmModel: env.AGENTMEM_LLM_MODEL || "gpt-4o-mini",
      embedModel: env.AGENTMEM_EMBED_MODEL || "text-embedding-3-small",
    },
    logLevel: env.AGENTMEM_LOG_LEVEL ?? "info",
    maxBodyBytes: env.AGENTMEM_MAX_BODY_BYTES ?? 8 * 2 ** 20,
    retentionSweepMinutes: env.AGENTMEM_RETENTION_SWEEP_MINUTES ?? 60,
    storage: {
      hotRowsMB: env.AGENTMEM_HOT_ROWS_MB || 512,
      hotRowsAdmitReads: env.AGENTMEM_HOT_ROWS_ADMIT_READS || 2,
      indexCacheMB: env.AGENTMEM_INDEX_CACHE_MB || 256,
      readConsistencySeconds: env.AGENTMEM_READ_CONSISTENCY_SECONDS || 0,
      sharedWriters: env.AGENTMEM_SHARED_WRITERS ?? "",
      maintenanceSeconds: env.AGENTMEM_MAINTENANCE_SECONDS ?? 30,
      vectorIndexRows: env.AGENTMEM_VECTOR_INDEX_ROWS ?? 200_000,
      writeStallSeconds: env.AGENTMEM_WRITE_STALL_SECONDS ?? 120,
      durability: env.AGENTMEM_DURABILITY || "process",
      tableShards: env.AGENTMEM_TABLE_SHARDS || 8,
      warmUpMs: env.AGENTMEM_WARM_UP_SECONDS ?? 10,
    },
    metrics: {
      key: env.AGENTMEM_METRICS_KEY || undefined,
      storageStatsMaxAgeMs: env.AGENTMEM_METRICS_STORAGE_SECONDS ?? 15,
    },
    connections: {
      headersTimeoutMs: env.AGENTMEM_HEADERS_TIMEOUT_SECONDS || 20,
      bodyTimeoutMs: env.AGENTMEM_BODY_TIMEOUT_SECONDS || 60,
      idleTimeoutMs: env.AGENTMEM_IDLE_TIMEOUT_SECONDS || 60,
      maxConnections: env.AGENTMEM_MAX_CONNECTIONS || 1024,
      maxConcurrentStreams: env.AGENTMEM_MAX_STREAMS_PER_CONNECTION || 100,
    },
    rollup: {
      intervalMinutes: env.AGENTMEM_ROLLUP_INTERVAL_MINUTES || 0,
      tenants: (env.AGENTMEM_ROLLUP_TENANTS ?? "").split(",").map((s) => s.trim()).filter((s) => s !== ""),
      olderThanDays: env.AGENTMEM_ROLLUP_OLDER_THAN_DAYS || 30,
      maxSources: env.AGENTMEM_ROLLUP_MAX_SOURCES || 100,
    },
  });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`invalid configuration: ${first.path.join(".")}: ${first.message}`);
  }
  const config = parsed.data;
  if (config.apiKeys.length === 0 && !isLoopback(config.host)) {
    throw new Error(`refusing to listen on ${config.host} without API keys: set AGENTMEM_API_KEYS or bind 127.0.0.1`);
  }
  return Object.freeze({
    ...config,
    apiKeys: Object.freeze(config.apiKeys),
    openai: Object.freeze(config.openai),
    storage: Object.freeze(config.storage),
    connections: Object.freeze(config.connections),
    metrics: Object.freeze(config.metrics),
    rollup: Object.freeze({ ...config.rollup, tenants: Object.freeze(config.rollup.tenants) }),
  });
}

/** Where a client (the CLI) finds a running server. */
export interface ClientConfig {
  /** Server root (default `http://127.0.0.1:$AGENTMEM_PORT`, i.e. port 8080). */
  readonly url: string;
  /** API key sent as `Authorization: Bearer …`; unset in dev mode. */
  readonly apiKey?: string;
}

/** Reads `--url` / `--key` > `AGENTMEM_URL` / `AGENTMEM_API_KEY` > defaults, like `serve` reads its flags. */
export function loadClientConfig(flags: { url?: string; key?: string } = {}, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const url = flags.url ?? (env.AGENTMEM_URL || `http://127.0.0.1:${env.AGENTMEM_PORT || 8080}`);
  const parsed = z.string().url().safeParse(url);
  if (!parsed.success || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`invalid server URL: ${url} (expected http://host:port)`);
  const apiKey = flags.key ?? (env.AGENTMEM_API_KEY || undefined);
  return Object.freeze({ url: url.replace(/\/+$/, ""), apiKey });
}

/** Who `agentmem mcp` (stdio) acts for: one end-user, agent and namespace per session. */
export interface McpConfig {
  /** End-user every tool acts for (`--user` > `AGENTMEM_MCP_USER` > `default`). */
  readonly user: string;
  /** Scope agent (`--agent` > `AGENTMEM_MCP_AGENT`; default empty = all). */
  readonly agent: string;
  /** Scope namespace (`--namespace` > `AGENTMEM_MCP_NAMESPACE`; default empty = all). */
  readonly namespace: string;
}

const mcpSchema = z.object({
  user: z.string().regex(SCOPE_VALUE, "--user must be 1–128 characters of [A-Za-z0-9_.:@-]"),
  agent: z.string().regex(SCOPE_VALUE, "--agent must be 1–128 characters of [A-Za-z0-9_.:@-]").or(z.literal("")),
  namespace: z.string().regex(SCOPE_VALUE, "--namespace must be 1–128 characters of [A-Za-z0-9_.:@-]").or(z.literal("")),
});

/** Reads the MCP session's scope from flags > env > defaults. */
export function loadMcpConfig(flags: { user?: string; agent?: string; namespace?: string } = {}, env: NodeJS.ProcessEnv = process.env): McpConfig {
  const parsed = mcpSchema.safeParse({
    user: flags.user ?? (env.AGENTMEM_MCP_USER || "default"),
    agent: flags.agent ?? env.AGENTMEM_MCP_AGENT ?? "",
    namespace: flags.namespace ?? env.AGENTMEM_MCP_NAMESPACE ?? "",
  });
  if (!parsed.success) throw new Error(`invalid configuration: ${parsed.error.issues[0].message}`);
  return Object.freeze(parsed.data);
}
