import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Transport } from "@connectrpc/connect";
import { pino } from "pino";
import { type App, createApp } from "../../src/app.js";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { loadConfig } from "../../src/config.js";
import { createApiInterceptors, createInProcessTransport } from "../../src/compose/api-interceptors.js";
import type { ChatModel } from "../../src/ports/chat-model.js";
import type { Clock } from "../../src/ports/clock.js";
import type { Embedder } from "../../src/ports/embedder.js";

/** Options for an in-process test app. */
export interface TestAppOptions {
  embedder?: Embedder;
  chat?: ChatModel;
  clock?: Clock;
  /** `AGENTMEM_API_KEYS` value; empty = dev mode. */
  apiKeys?: string;
  /** Extra env for loadConfig (e.g. OPENAI_BASE_URL). */
  env?: Record<string, string>;
  /** A data directory the caller prepared and removes (default: a new temp dir, removed on close). */
  dataDir?: string;
}

/** An app over a real LanceDB in a temp dir, reached through an in-process router transport. */
export interface TestApp {
  app: App;
  dir: string;
  /** A typed client; `key` sends `Authorization: Bearer key`. */
  client<S extends DescService>(service: S, key?: string): Client<S>;
  transport(key?: string): Transport;
  close(): Promise<void>;
}

/** Starts a test app (hash embedder unless another is given). */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "agentmem-test-")));
  const config = loadConfig(
    { data: dir, embedder: "hash" },
    { AGENTMEM_API_KEYS: options.apiKeys ?? "", AGENTMEM_LOG_LEVEL: "silent", ...options.env },
  );
  const logger = pino({ level: "silent" });
  const app = await createApp(config, {
    embedder: options.embedder ?? createHashEmbedder(),
    chat: options.chat,
    clock: options.clock,
    logger,
  });
  // The server's own chain (error, audit, auth), so a test call is checked as a network call is.
  const interceptors = createApiInterceptors(config, app, logger);
  // Past the HTTP body cap: fuzzed requests of several MiB (test/security/hostile-requests.test.ts)
  // must reach the services' own validation, which answers with an ErrorInfo reason. The cap itself
  // refuses before any interceptor runs, with no reason; it is tested over real HTTP in
  // test/security/http-limits.test.ts.
  const uncapped = { ...config, maxBodyBytes: 0xffffffff };
  const transport = (key?: string) =>
    createInProcessTransport(
      uncapped,
      app,
      interceptors,
      key
        ? [
            (next) => (req) => {
              req.header.set("authorization", `Bearer ${key}`);
              return next(req);
            },
          ]
        : [],
    );
  return {
    app,
    dir,
    transport,
    client: (service, key) => createClient(service, transport(key)),
    async close() {
      await app.close();
      if (!options.dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
