import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, parseApiKeys } from "../../src/config.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { createErrorInterceptor } from "../../src/server/error-interceptor.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const KEY_A = "key-aaaaaaaaaaaaaaaaaaaa";
const KEY_B = "key-bbbbbbbbbbbbbbbbbbbb";

describe("API keys at start-up", () => {
  it("refuses a key listed twice, without quoting it", () => {
    const error = (() => {
      try {
        parseApiKeys(`${KEY_A}:acme:read,${KEY_B}:acme:write,${KEY_A}:other:admin`);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toBe("invalid configuration: API key entry 3 repeats an earlier key; each key must be unique");
    expect(() => loadConfig({}, { AGENTMEM_API_KEYS: `${KEY_A}:acme:read\n${KEY_A}:acme:read` })).toThrow(/unique/);
  });

  it("refuses a key without a role (it used to default to write), or with an unknown one", () => {
    expect(() => parseApiKeys(`${KEY_A}:acme`)).toThrow(/entry 1: expected key:tenant:role/);
    expect(() => parseApiKeys(`${KEY_A}:acme:`)).toThrow(/entry 1/);
    expect(() => parseApiKeys(`${KEY_A}:acme:owner`)).toThrow(/entry 1/);
    expect(() => parseApiKeys(`${KEY_A}:acme:owner`)).not.toThrow(new RegExp(KEY_A));
    expect(parseApiKeys(`${KEY_A}:acme:read, # a comment\n${KEY_B}:acme:admin`)).toEqual([
      { key: KEY_A, tenant: "acme", role: "read" },
      { key: KEY_B, tenant: "acme", role: "admin" },
    ]);
  });
});

describe("tenant values in dev mode", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("validates the tenant named by Erase, Export and scoped calls (a 300-character value is INVALID_ARGUMENT, not a 500)", async () => {
    const privacy = t.client(PrivacyService);
    const memory = t.client(MemoryService);
    const long = "t".repeat(300);
    for (const call of [
      () => privacy.erase({ tenant: long, externalId: "sam" }),
      () => privacy.export({ tenant: long, externalId: "sam" }),
      () => privacy.erase({ tenant: "bad tenant/..", externalId: "sam" }),
      () => memory.remember({ scope: { tenant: long, user: "sam" }, content: "hello" }),
    ]) {
      const error = ConnectError.from(await call().catch((e: unknown) => e));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.findDetails(ErrorInfoSchema)[0]?.reason).toBe("INVALID_SCOPE");
    }
    expect((await privacy.export({ tenant: "lab-2", externalId: "sam" })).externalId).toBe("sam");
  });

  it("fails closed when a handler runs without the auth interceptor", async () => {
    // The error interceptor only: no auth interceptor put a principal in the context.
    const transport = createRouterTransport((router) => t.app.routes(router), { router: { interceptors: [createErrorInterceptor(pino({ level: "silent" }))] } });
    const bare = createClient(MemoryService, transport);
    const error = ConnectError.from(await bare.listMemories({ scope: { user: "sam" } }).catch((e: unknown) => e));
    expect(error.code).toBe(Code.Unauthenticated);
    expect(error.findDetails(ErrorInfoSchema)[0]?.reason).toBe("NO_PRINCIPAL");
  });
});

describe("GET /metrics behind AGENTMEM_METRICS_KEY", () => {
  it("answers 401 without the key and the exposition with it; health stays open", async () => {
    const { startRealServer } = await import("../support/real-server.js");
    const real = await startRealServer({ env: { AGENTMEM_METRICS_KEY: "metrics-key-0123456789" } });
    try {
      expect((await fetch(`${real.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${real.url}/metrics`, { headers: { authorization: "Bearer wrong-key-0123456789" } })).status).toBe(401);
      const ok = await fetch(`${real.url}/metrics`, { headers: { authorization: "Bearer metrics-key-0123456789" } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("agentmem_rpc_requests_total");
      const health = await fetch(`${real.url}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(await health.json()).toEqual({ status: "SERVING" });
    } finally {
      await real.close();
    }
  });
});
