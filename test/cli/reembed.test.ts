import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { createUseEmbedder } from "../../src/adapters/embedders/use-embedder.js";
import { loadConfig } from "../../src/config.js";
import type { Embedder } from "../../src/ports/embedder.js";
import { startServer } from "../../src/compose/start-server.js";
import { AgentMem } from "../../sdk/index.js";

let dir: string;

function reembed(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/agentmem.js", "reembed", "--data", dir, ...args], { env: { ...process.env, AGENTMEM_API_KEYS: "" } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs `body` against a server on `dir` with the given embedder, then stops it (keeping the data). */
async function withServer<T>(embedder: Embedder, body: (client: AgentMem) => Promise<T>): Promise<T> {
  const config = loadConfig({ data: dir, port: 0, embedder: embedder.mode }, { AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "silent" });
  const server = await startServer(config, { embedder, logger: pino({ level: "silent" }) });
  try {
    return await body(new AgentMem({ baseUrl: server.url }));
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-reembed-"));
  await withServer(createHashEmbedder(), async (client) => {
    await client.memory.rememberBatch({
      items: ["I had knee surgery in March", "My daughter Lea starts school", "I work as a nurse"].map((content) => ({ scope: { user: "maya" }, content })),
    });
    await client.remember({ scope: { tenant: "other", user: "bo" }, content: "I play the cello" });
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("agentmem reembed (offline, on the data directory)", { timeout: 180_000 }, () => {
  it("rebuilds vectors in place when the dimension stays", async () => {
    const run = await reembed(["--embedder", "hash"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("8/8 rows");
    expect(run.stdout).toMatch(/^memories__\S+: 3 rows, 384-d → 384-d$/m);
    expect(run.stdout).toMatch(/re-embedded 8 rows in 4 tables with hash/);
  });

  it("moves every table to a new embedder and dimension, and the server then recalls with it", async () => {
    const run = await reembed(["--embedder", "use", "--batch", "2"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/384-d → 512-d/);
    expect(run.stdout).toMatch(/re-embedded 8 rows in 4 tables with use/);

    const use = createUseEmbedder();
    await use.warmUp();
    const hits = await withServer(use, async (client) => {
      const stats = await client.memory.stats({});
      expect(stats.embedding?.dimension).toBe(512);
      return (await client.recall({ scope: { user: "maya" }, query: "operation on my leg", k: 3 })).hits;
    });
    expect(hits.map((h) => h.memory)).toHaveLength(3);
    expect(hits[0].memory).toBe("I had knee surgery in March");
    expect(hits[0].components?.similarity).toBeGreaterThan(0.2);
  });
});
