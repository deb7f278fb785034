import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient } from "@connectrpc/connect";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../src/app.js";
import { createApiInterceptors, createInProcessTransport } from "../src/compose/api-interceptors.js";
import { loadConfig } from "../src/config.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { createManualClock } from "../src/ports/clock.js";
import { type FakeOpenAI, fakeTokens, type RecordedRequest, startFakeOpenAI } from "./support/fake-openai.js";

const ACME = "acme-key-0123456789abcdef";
const GLOBEX = "globex-key-0123456789abcdef";
const NOW = new Date("2026-06-01T12:00:00Z");
const clock = createManualClock(NOW);
const sixtyDaysAgo = { seconds: BigInt(Math.floor(NOW.getTime() / 1000) - 60 * 86_400), nanos: 0 };
const ANSWER = "The user watches Long Beach, wants Zulu times and prefers tables.";

let fake: FakeOpenAI;
let dir: string;
const logger = pino({ level: "silent" });

/** The app as `serve` builds it: the openai embedder and chat model from config, pointed at the fake. */
async function openApp(): Promise<{ app: App; client<S extends DescService>(s: S, key: string): Client<S> }> {
  const config = loadConfig(
    { data: dir, embedder: "openai", llm: "openai" },
    { AGENTMEM_API_KEYS: `${ACME}:acme:write,${GLOBEX}:globex:write`, OPENAI_BASE_URL: fake.baseURL, AGENTMEM_LOG_LEVEL: "silent" },
  );
  const app = await createApp(config, { clock, logger });
  const client = <S extends DescService>(service: S, key: string) =>
    createClient(
      service,
      createInProcessTransport(config, app, createApiInterceptors(config, app, logger), [(next) => (req) => (req.header.set("authorization", `Bearer ${key}`), next(req))]),
    );
  return { app, client };
}

/** What the fake billed for some requests: embedding and chat tokens, and characters received. */
function billed(requests: readonly RecordedRequest[]) {
  const out = { embeddingTokens: 0, prompt: 0, completion: 0, chars: 0 };
  for (const r of requests) {
    const body = r.body as { input?: string[]; messages?: { content: string }[] };
    if (r.path === "/v1/embeddings") {
      for (const text of body.input ?? []) {
        out.embeddingTokens += fakeTokens(text);
        out.chars += text.length;
      }
    } else if (r.path === "/v1/chat/completions") {
      for (const m of body.messages ?? []) {
        out.prompt += fakeTokens(m.content);
        out.chars += m.content.length;
      }
      out.completion += fakeTokens(ANSWER);
    }
  }
  return out;
}

async function directoryBytes(path: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    total += e.isDirectory() ? await directoryBytes(p) : (await stat(p)).size;
  }
  return total;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ chat: () => ANSWER });
  dir = await mkdtemp(join(tmpdir(), "agentmem-usage-"));
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Usage", () => {
  it("meters tokens and external characters per tenant, counts rows and bytes, and survives a restart", async () => {
    const first = await openApp();
    const acme = first.client(MemoryService, ACME);
    const globex = first.client(MemoryService, GLOBEX);
    fake.requests.length = 0;

    for (const content of ["The port is Long Beach.", "Times in Zulu, always.", "Prefers tables over charts."]) {
      await acme.remember({ scope: { user: "u1" }, content, observedAt: sixtyDaysAgo });
    }
    await acme.remember({ scope: { user: "u2" }, content: "Lives in Oslo." });
    await acme.recall({ scope: { user: "u1" }, query: "which port?" });
    const rolled = await acme.rollup({ scope: { user: "u1" } });
    expect(rolled).toMatchObject({ consolidated: 3, summary: ANSWER });
    const acmeRequests = fake.requests.splice(0);
    expect(acmeRequests.some((r) => r.path === "/v1/chat/completions")).toBe(true);

    await globex.remember({ scope: { user: "g1" }, content: "A globex memory of some length." });
    const globexRequests = fake.requests.splice(0);

    const want = billed(acmeRequests);
    const acmeUsage = await acme.usage({});
    expect(acmeUsage).toMatchObject({
      memories: 2n,
      episodes: 4n,
      embeddingTokens: BigInt(want.embeddingTokens),
      llmPromptTokens: BigInt(want.prompt),
      llmCompletionTokens: BigInt(want.completion),
      externalChars: BigInt(want.chars),
      userBytes: 0n,
    });
    expect(want.embeddingTokens).toBeGreaterThan(0);
    const globexUsage = await globex.usage({});
    const wantGlobex = billed(globexRequests);
    expect(globexUsage).toMatchObject({ memories: 1n, episodes: 1n, embeddingTokens: BigInt(wantGlobex.embeddingTokens), llmPromptTokens: 0n, externalChars: BigInt(wantGlobex.chars) });

    const u2 = await acme.usage({ scope: { user: "u2" } });
    expect(u2).toMatchObject({ memories: 1n, episodes: 1n });
    expect(u2.userBytes).toBeGreaterThan(0n);
    expect(u2.bytesOnDisk).toBeGreaterThanOrEqual(acmeUsage.bytesOnDisk);
    expect(acmeUsage.bytesOnDisk).toBeGreaterThan(u2.userBytes);
    expect(acmeUsage.bytesOnDisk + globexUsage.bytesOnDisk).toBeLessThanOrEqual(BigInt(await directoryBytes(dir)));
    expect(globexUsage.bytesOnDisk).toBeGreaterThan(0n);

    await first.app.close();
    const second = await openApp();
    const after = await second.client(MemoryService, ACME).usage({});
    expect(after).toMatchObject({
      embeddingTokens: acmeUsage.embeddingTokens,
      llmPromptTokens: acmeUsage.llmPromptTokens,
      llmCompletionTokens: acmeUsage.llmCompletionTokens,
      externalChars: acmeUsage.externalChars,
    });
    await second.app.close();
  });
});
