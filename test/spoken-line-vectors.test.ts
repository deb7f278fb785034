import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { LanceStore } from "../src/adapters/lancedb/lance-store.js";
import { reembedStore } from "../src/cli/reembed.js";
import { loadConfig } from "../src/config.js";
import { where } from "../src/core/condition.js";
import { DEV_TENANT } from "../src/services/request-context.js";
import { startServer } from "../src/compose/start-server.js";
import { openDataDirectory } from "../src/compose/data-directory.js";
import { AgentMem } from "../sdk/index.js";

// A turn's vector is computed from its spoken line ("<name>: <text>"), on write and on reembed alike.
let dir: string;
const embedder = createHashEmbedder();

async function vectors(): Promise<Map<string, Float32Array>> {
  const store = new LanceStore({ uri: dir, dimension: embedder.dimension });
  try {
    const rows = await (await store.memories(DEV_TENANT)).find(where.all());
    return new Map(rows.map((r) => [r.text, r.vector]));
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-spoken-"));
  const config = loadConfig({ data: dir, port: 0, embedder: "hash" }, { AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "silent" });
  const server = await startServer(config, { embedder, logger: pino({ level: "silent" }) });
  try {
    await new AgentMem({ baseUrl: server.url }).memory.rememberBatch({
      items: [
        { scope: { user: "maya" }, name: "Maya", content: "I live in London" },
        { scope: { user: "maya" }, name: "Maya", content: "Maya: I work as a nurse" },
        { scope: { user: "maya" }, content: "I play the cello" },
      ],
    });
  } finally {
    await server.close();
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("spoken-line vectors", () => {
  it("embeds a named turn with its speaker, once, and an unnamed one as it is", async () => {
    const stored = await vectors();
    const [spoken, said, plain] = await embedder.embed(["Maya: I live in London", "Maya: I work as a nurse", "I play the cello"]);
    expect([...(stored.get("I live in London") ?? [])]).toEqual([...spoken]);
    expect([...(stored.get("Maya: I work as a nurse") ?? [])]).toEqual([...said]);
    expect([...(stored.get("I play the cello") ?? [])]).toEqual([...plain]);
  });

  it("reembed rebuilds the same vectors", async () => {
    const before = await vectors();
    await reembedStore({ uri: dir, open: openDataDirectory, embedder });
    const after = await vectors();
    for (const [text, v] of before) expect([...(after.get(text) ?? [])], text).toEqual([...v]);
  });
});
