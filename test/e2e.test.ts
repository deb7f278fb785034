import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/compose/start-server.js";
import { AgentMem, Code, ConnectError } from "../sdk/index.js";

const ADMIN = "admin-key-0123456789abcdef";
const WRITER = "write-key-0123456789abcdef";
const READER = "read-key-0123456789abcdef";
const OTHER = "other-key-0123456789abcdef";

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-e2e-"));
  const config = loadConfig(
    { data: dir, port: 0, embedder: "hash" },
    { AGENTMEM_API_KEYS: `${ADMIN}:acme:admin,${WRITER}:acme:write,${READER}:acme:read,${OTHER}:globex:write`, AGENTMEM_LOG_LEVEL: "silent" },
  );
  server = await startServer(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function connectJson(method: string, body: unknown, key?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("over real HTTP", () => {
  it("answers health without a key", async () => {
    const r = await connectJson("grpc.health.v1.Health/Check", {});
    expect(r).toEqual({ status: 200, json: { status: "SERVING" } });
  });

  it("round-trips Remember → Recall over plain Connect JSON", async () => {
    const a = await connectJson("agentmem.v1.MemoryService/Remember", { scope: { user: "maya" }, content: "Maya adopted a greyhound named Pixel" }, WRITER);
    expect(a.status).toBe(200);
    const b = await connectJson("agentmem.v1.MemoryService/Remember", { scope: { user: "maya" }, content: "Maya adopted a greyhound named Pixel" }, WRITER);
    expect(b.json.memoryId).toBe(a.json.memoryId);
    const r = await connectJson("agentmem.v1.MemoryService/Recall", { scope: { user: "maya" }, query: "greyhound Pixel", k: 5 }, READER);
    expect(r.status).toBe(200);
    const hits = r.json.hits as { id: string; memory: string; strength: string; components: Record<string, number> }[];
    expect(hits[0]).toMatchObject({ id: a.json.memoryId, memory: "Maya adopted a greyhound named Pixel" });
    expect(hits[0].strength).toMatch(/^MATCH_STRENGTH_/);
    expect(typeof r.json.tookMillis).toBe("string");
  });

  it("authenticates, pins the tenant and checks roles", async () => {
    const scope = { user: "maya" };
    const missing = await connectJson("agentmem.v1.MemoryService/Recall", { scope, query: "x" });
    expect([missing.status, missing.json.code]).toEqual([401, "unauthenticated"]);
    const wrong = await connectJson("agentmem.v1.MemoryService/Recall", { scope, query: "x" }, "not-a-real-key-000000");
    expect(wrong.json.code).toBe("unauthenticated");
    const cross = await connectJson("agentmem.v1.MemoryService/Recall", { scope: { ...scope, tenant: "globex" }, query: "x" }, READER);
    expect(cross.json.code).toBe("permission_denied");
    const readOnly = await connectJson("agentmem.v1.MemoryService/Remember", { scope, content: "x" }, READER);
    expect(readOnly.json.code).toBe("permission_denied");
    const notAdmin = await connectJson("agentmem.v1.PrivacyService/ListAudit", {}, WRITER);
    expect(notAdmin.json.code).toBe("permission_denied");
    const otherTenant = await connectJson("agentmem.v1.MemoryService/Recall", { scope, query: "greyhound Pixel" }, OTHER);
    expect(otherTenant.json.hits ?? []).toEqual([]);
  });

  it("serves gRPC (h2c), gRPC-Web and Connect through the SDK", async () => {
    for (const protocol of ["grpc", "grpc-web", "connect"] as const) {
      const client = new AgentMem({ baseUrl: server.url, apiKey: WRITER, protocol });
      const id = await client.remember({ scope: { user: `sdk-${protocol}` }, content: `remembered over ${protocol}` });
      const res = await client.recall({ scope: { user: `sdk-${protocol}` }, query: `over ${protocol}` });
      expect(res.hits[0]?.id, protocol).toBe(id);
      const stats = await client.memory.stats({});
      expect(stats.embedding?.dimension).toBe(384);
      const err = await new AgentMem({ baseUrl: server.url, protocol }).recall({ scope: { user: "x" }, query: "x" }).catch((e: unknown) => e);
      expect(ConnectError.from(err).code, protocol).toBe(Code.Unauthenticated);
    }
  });
});
