import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { loadConfig } from "../../src/config.js";
import { type RunningServer, startServer } from "../../src/compose/start-server.js";

/** A real server on a loopback port over a temp LanceDB directory. */
export interface RealServer {
  server: RunningServer;
  url: string;
  dir: string;
  close(): Promise<void>;
}

/** Options for {@link startRealServer}. */
export interface RealServerOptions {
  /** `AGENTMEM_API_KEYS` (default empty: dev mode). */
  apiKeys?: string;
  /** `hash` (default) or `openai` (configured from `env`, e.g. a fake OpenAI server). */
  embedder?: "hash" | "openai";
  /** More environment for the config (e.g. `OPENAI_BASE_URL`). */
  env?: Record<string, string>;
}

/** Starts the real server on port 0 over a temp directory. */
export async function startRealServer(options: RealServerOptions = {}): Promise<RealServer> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-real-"));
  const embedder = options.embedder ?? "hash";
  const config = loadConfig({ data: dir, port: 0, embedder }, { AGENTMEM_API_KEYS: options.apiKeys ?? "", AGENTMEM_LOG_LEVEL: "silent", ...options.env });
  const server = await startServer(config, { embedder: embedder === "hash" ? createHashEmbedder() : undefined, logger: pino({ level: "silent" }) });
  return {
    server,
    url: server.url,
    dir,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
