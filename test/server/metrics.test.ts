import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentMem, Code, ConnectError } from "../../sdk/index.js";
import { startFakeOpenAI } from "../support/fake-openai.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

let real: RealServer;
let client: AgentMem;

beforeAll(async () => {
  // Fresh table stats on every scrape, so the row gauges move within the test.
  real = await startRealServer({ env: { AGENTMEM_METRICS_STORAGE_SECONDS: "0" } });
  client = new AgentMem({ baseUrl: real.url });
});
afterAll(() => real?.close());

async function scrape(): Promise<{ type: string; text: string }> {
  const res = await fetch(`${real.url}/metrics`);
  expect(res.status).toBe(200);
  return { type: res.headers.get("content-type") ?? "", text: await res.text() };
}

/** The value of one sample line, e.g. `name{a="b"} 3` (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? "").split(",");
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

describe("GET /metrics", () => {
  it("is Prometheus text and moves when requests are made", async () => {
    const remember = { method: "agentmem.v1.MemoryService/Remember", code: "ok" };
    const before = await scrape();
    expect(before.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(before.text).toContain("# TYPE agentmem_rpc_requests_total counter");
    expect(before.text).toContain("# TYPE agentmem_rpc_duration_seconds histogram");
    const n0 = sample(before.text, "agentmem_rpc_requests_total", remember);

    await client.remember({ scope: { user: "u1" }, content: "I had knee surgery" });
    await client.remember({ scope: { user: "u1" }, content: "I live in Lyon" });
    const bad = await client.recall({ scope: { user: "u1" }, query: "x", k: 100_000 }).catch((e: unknown) => e);
    expect(ConnectError.from(bad).code).toBe(Code.InvalidArgument);

    const after = (await scrape()).text;
    expect(sample(after, "agentmem_rpc_requests_total", remember)).toBe(n0 + 2);
    expect(sample(after, "agentmem_rpc_requests_total", { method: "agentmem.v1.MemoryService/Recall", code: "invalid_argument" })).toBe(1);
    expect(sample(after, "agentmem_rpc_duration_seconds_count", { method: "agentmem.v1.MemoryService/Remember" })).toBe(n0 + 2);
    expect(sample(after, "agentmem_rpc_duration_seconds_bucket", { method: "agentmem.v1.MemoryService/Remember", le: "+Inf" })).toBe(n0 + 2);
    expect(sample(after, "agentmem_store_rows", { table: "memories" })).toBe(2);
    expect(sample(after, "agentmem_store_rows", { table: "episodes" })).toBe(2);
    expect(sample(after, "agentmem_store_fragments", { table: "memories" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "agentmem_store_tenants")).toBe(1);
    expect(after).toContain("# TYPE agentmem_model_tokens_total counter");
    expect(after).toContain("# TYPE agentmem_maintenance_runs_total counter");
    expect(after).toContain("agentmem_process_resident_memory_bytes");
  });

  it("does not take the API's paths: a POST to /metrics still reaches Connect", async () => {
    const res = await fetch(`${real.url}/metrics`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(404);
  });

  it("counts the model tokens a provider bills, the same figure Usage reports", async () => {
    const fake = await startFakeOpenAI({ dimension: 16 });
    const billed = await startRealServer({ embedder: "openai", env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: "test-key" } });
    try {
      const sdk = new AgentMem({ baseUrl: billed.url });
      await sdk.remember({ scope: { user: "u1" }, content: "I had knee surgery in March" });
      await sdk.recall({ scope: { user: "u1" }, query: "surgery" });
      const text = await (await fetch(`${billed.url}/metrics`)).text();
      const usage = await sdk.memory.usage({ scope: {} });
      expect(usage.embeddingTokens).toBeGreaterThan(0n);
      expect(sample(text, "agentmem_model_tokens_total", { kind: "embedding" })).toBe(Number(usage.embeddingTokens));
    } finally {
      await billed.close();
      await fake.close();
    }
  });
});
