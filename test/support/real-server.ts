import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { loadConfig } from "../../src/config.js";
import { type RunningServer, startServer } from "../../src/server/server.js";

/** A real server on a loopback port over a temp LanceDB directory. */
export interface RealServer {
  server: RunningServer;
  url: string;
  dir: string;
  close(): Promise<void>;
}

/** Starts the real server (hash embedder, port 0); `apiKeys` as in `AGENTMEM_API_KEYS` (empty = dev mode). */
export async function startRealServer(options: { apiKeys?: string } = {}): Promise<RealServer> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-real-"));
  const config = loadConfig({ data: dir, port: 0, embedder: "hash" }, { AGENTMEM_API_KEYS: options.apiKeys ?? "", AGENTMEM_LOG_LEVEL: "silent" });
  const server = await startServer(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
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
