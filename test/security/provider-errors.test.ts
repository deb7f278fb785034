import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { type RunningServer, startServer } from "../../src/compose/start-server.js";
import { type FakeOpenAI, startFakeOpenAI } from "../support/fake-openai.js";

// A provider's 401 quoting part of a key and an internal host: none of it may reach the tenant.
const LEAK = "Incorrect API key provided: sk-live-Q7f3****************Zx9P. Request routed via llm-gw-7.corp.internal";
const LEAKED = /sk-live|Zx9P|corp\.internal|Incorrect API key/;

let fake: FakeOpenAI;
let server: RunningServer;
let dir: string;
const logLines: string[] = [];
let failEmbeddings = false;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    dimension: 16,
    chat: () => ({ status: 401, body: JSON.stringify({ error: { message: LEAK, type: "invalid_request_error", code: "invalid_api_key" } }) }),
    intercept: (r) => (failEmbeddings && r.path === "/v1/embeddings" ? { status: 401, body: JSON.stringify({ error: { message: LEAK, type: "invalid_request_error" } }) } : undefined),
  });
  dir = await mkdtemp(join(tmpdir(), "agentmem-provider-"));
  const config = loadConfig(
    { data: dir, port: 0, embedder: "openai", llm: "openai" },
    { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: "sk-test-not-a-real-key", AGENTMEM_LOG_LEVEL: "info", AGENTMEM_API_KEYS: "" },
  );
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  server = await startServer(config, { logger: pino({ level: "info" }, sink) });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

const client = () => createClient(MemoryService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));

describe("provider errors reach tenants as a generic reason and status", { timeout: 60_000 }, () => {
  it("extractionError names the reason and HTTP status, not the provider's text; the log has it", async () => {
    const res = await client().add({ scope: { user: "ada" }, messages: [{ role: "user", content: "I moved to Lisbon last spring." }] });
    expect(res.extractionError).toMatch(/^LLM_UNAVAILABLE: the chat model \S+ failed \(HTTP 401\); details are in the server log$/);
    expect(res.extractionError).not.toMatch(LEAKED);
    expect(logLines.join("")).toMatch(/corp\.internal/);
  });

  it("an embedding failure is UNAVAILABLE with reason and status, the provider's text only in the log", async () => {
    failEmbeddings = true;
    logLines.length = 0;
    try {
      const error = await client()
        .remember({ scope: { user: "ada" }, content: "My sister lives in Porto." })
        .then(() => null, (e: unknown) => ConnectError.from(e));
      expect(error?.code).toBe(Code.Unavailable);
      expect(error?.rawMessage).not.toMatch(LEAKED);
      expect(JSON.stringify(error?.metadata ?? {})).not.toMatch(LEAKED);
      const info = error?.findDetails(ErrorInfoSchema)[0];
      expect(info?.reason).toBe("EMBEDDER_UNAVAILABLE");
      expect(info?.metadata.status).toBe("401");
      expect(JSON.stringify(info)).not.toMatch(LEAKED);
      expect(logLines.join("")).toMatch(/corp\.internal/);
    } finally {
      failEmbeddings = false;
    }
  });
});
