/**
 * The fact paths' figures: extractor calls per Add and tokens per call (against a local
 * OpenAI-compatible server that answers with scripted extractor JSON), offline Add latency, and
 * Search / PromptBlock latency over 10k stored facts.
 *
 *   npm run bench:facts                       # 10k facts, 200 searches, 40 Adds (about 1–2 min)
 *   npm run bench:facts -- --facts 2000 --searches 50 --adds 10
 *
 * Prints tables and writes bench/results/facts.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { countTokens } from "gpt-tokenizer";
import { pino } from "pino";
import { createOpenAIChatModel } from "../src/adapters/chat/openai-chat-model.js";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { type App, createApp } from "../src/app.js";
import { createApiInterceptors, createInProcessTransport } from "../src/compose/api-interceptors.js";
import { loadConfig } from "../src/config.js";
import { contentHash, memoryId } from "../src/core/ids.js";
import type { MemoryRecord } from "../src/core/records.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import type { ChatModel } from "../src/ports/chat-model.js";
import { type ChatCompletionBody, startFakeOpenAI } from "../test/support/fake-openai.js";
import { createRandom, createVocabulary, query, sentence } from "./support/corpus.js";
import { printTable, summarize, writeResults } from "./support/stats.js";

const { values: args } = parseArgs({
  options: {
    facts: { type: "string", default: "10000" },
    searches: { type: "string", default: "200" },
    adds: { type: "string", default: "40" },
  },
});
const FACTS = Number(args.facts);
const SEARCHES = Number(args.searches);
const ADDS = Number(args.adds);
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1);

async function open(chat?: ChatModel): Promise<{ app: App; client: ReturnType<typeof createClient<typeof MemoryService>>; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-facts-"));
  const config = loadConfig({ data: dir, embedder: "hash" }, { AGENTMEM_LOG_LEVEL: "silent" });
  const app = await createApp(config, { embedder: createHashEmbedder(), chat, logger: pino({ level: "silent" }) });
  const client = createClient(MemoryService, createInProcessTransport(config, app, createApiInterceptors(config, app, app.deps.logger)));
  return { app, client, dir };
}

/** Writes `n` facts for one user straight into the store (hash vectors), a tenth of them closed. */
async function seedFacts(app: App, user: string, n: number): Promise<void> {
  const vocabulary = createVocabulary(5000);
  const random = createRandom(11);
  const embedder = app.deps.embedder;
  const memories = await app.deps.store.memories("default");
  for (let start = 0; start < n; start += 1000) {
    const texts = Array.from({ length: Math.min(1000, n - start) }, () => sentence(vocabulary, random));
    const vectors = await embedder.embed(texts);
    const rows: MemoryRecord[] = texts.map((text, i) => {
      const at = T0 + (start + i) * 60_000;
      const key = { namespace: "", agent: "", session: "", user };
      return {
        ...key,
        id: memoryId("default", key, `${text} ${start + i}`),
        text,
        factType: "semantic",
        category: "semantic",
        importance: 1 + ((start + i) % 10),
        entities: [],
        tags: {},
        pinned: false,
        contentHash: contentHash(text),
        vector: vectors[i],
        sourceIds: [],
        parentId: "",
        createdAt: at,
        validFrom: at,
        validTo: (start + i) % 10 === 0 ? at + DAY : null,
        supersededBy: "",
        eventDate: (start + i) % 3 === 0 ? at - DAY : null,
        lastAccessedAt: at,
        accessCount: 0,
        channel: "",
        emotions: [],
        intent: "",
        embedModel: embedder.model,
        role: "user",
        name: "",
        traceNumber: 0,
      };
    });
    await memories.upsert(rows);
  }
}

async function latencies(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    samples.push(performance.now() - t);
  }
  return samples;
}

async function extractorFigures() {
  const calls: { promptTokens: number; completionTokens: number; o200kPrompt: number }[] = [];
  let answered = 0;
  const fake = await startFakeOpenAI({
    chat: (body: ChatCompletionBody) => {
      if (body.response_format?.type !== "json_object") return "Maya is a nurse who lives in Paris.";
      const id = /NEW MESSAGES[^\n]*\n([^:]+):/.exec(body.messages[1].content)?.[1] ?? "";
      const text = `On day ${answered++} Maya found a new bakery in Paris that sells rye bread.`;
      return JSON.stringify({ memory: [{ text, category: "semantic", importance: 5, event_date: "2026-03", entities: ["Maya", "Paris"], sources: [id], supersedes: [] }] });
    },
  });
  const usage: { prompt: number; completion: number }[] = [];
  const chat = createOpenAIChatModel({ baseURL: fake.baseURL, model: "bench", onUsage: (_t, prompt, completion) => usage.push({ prompt, completion }) });
  const { app, client, dir } = await open(chat);
  try {
    const samples = await latencies(ADDS, (i) =>
      client.add({
        scope: { user: "maya", session: `s${Math.floor(i / 10)}` },
        observedAt: timestampFromMs(T0 + i * DAY),
        messages: [
          { role: "user", name: "Maya", content: `Day ${i}: I walked along the Seine and found a bakery that sells rye bread.` },
          { role: "assistant", content: "That sounds lovely. Did you try the rye?" },
        ],
      }),
    );
    for (const r of fake.requests) {
      const body = r.body as ChatCompletionBody;
      if (body.response_format?.type === "json_object") calls.push({ promptTokens: 0, completionTokens: 0, o200kPrompt: countTokens(body.messages.map((m) => m.content).join("\n")) });
    }
    const extractorRequests = fake.requests.filter((r) => (r.body as ChatCompletionBody).response_format?.type === "json_object").length;
    const profileRequests = fake.requests.length - extractorRequests;
    const prompt = summarize(calls.map((c) => c.o200kPrompt));
    return {
      adds: ADDS,
      extractorCallsPerAdd: extractorRequests / ADDS,
      profileCallsPerAdd: profileRequests / ADDS,
      billedPromptTokensPerCall: summarize(usage.map((u) => u.prompt)),
      billedCompletionTokensPerCall: summarize(usage.map((u) => u.completion)),
      o200kPromptTokensPerExtractorCall: prompt,
      addMillis: summarize(samples),
    };
  } finally {
    await app.close();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function offlineAdds() {
  const { app, client, dir } = await open();
  try {
    const samples = await latencies(ADDS, (i) =>
      client.add({
        scope: { user: "maya" },
        observedAt: timestampFromMs(T0 + i * DAY),
        messages: [{ role: "user", name: "Maya", content: `I just moved to city number ${i}. Yesterday I met my friend Sam at a bakery. I love rye bread.` }],
      }),
    );
    return summarize(samples);
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function searchFigures() {
  const { app, client, dir } = await open();
  try {
    const t = performance.now();
    await seedFacts(app, "heavy", FACTS);
    const seedSeconds = (performance.now() - t) / 1000;
    const vocabulary = createVocabulary(5000);
    const random = createRandom(23);
    const questions = Array.from({ length: SEARCHES }, () => query(vocabulary, random));
    await latencies(10, (i) => client.search({ scope: { user: "heavy" }, query: questions[i % questions.length] }));
    const search = await latencies(SEARCHES, (i) => client.search({ scope: { user: "heavy" }, query: questions[i] }));
    const dated = await latencies(SEARCHES, (i) => client.search({ scope: { user: "heavy" }, query: `what happened on January ${1 + (i % 28)}, 2025 ${questions[i]}` }));
    const asOf = await latencies(SEARCHES, (i) => client.search({ scope: { user: "heavy" }, query: questions[i], asOf: timestampFromMs(T0 + 3 * DAY) }));
    const block = await latencies(SEARCHES, (i) => client.promptBlock({ scope: { user: "heavy" }, query: questions[i], budgetTokens: 500 }));
    return { facts: FACTS, seedSeconds, search: summarize(search), searchWithDate: summarize(dated), searchAsOf: summarize(asOf), promptBlock500: summarize(block) };
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const extractor = await extractorFigures();
const offline = await offlineAdds();
const search = await searchFigures();
printTable("Add with a model (local OpenAI-compatible server, scripted JSON)", [
  {
    adds: extractor.adds,
    "extractor calls/Add": extractor.extractorCallsPerAdd,
    "profile calls/Add": extractor.profileCallsPerAdd,
    "o200k prompt tokens/call p50": extractor.o200kPromptTokensPerExtractorCall.p50,
    "o200k prompt tokens/call max": extractor.o200kPromptTokensPerExtractorCall.max,
    "Add p50 ms": extractor.addMillis.p50,
  },
]);
printTable("Add offline (--llm none)", [{ adds: ADDS, "p50 ms": offline.p50, "p90 ms": offline.p90, "max ms": offline.max }]);
printTable(`Read path over ${FACTS} facts of one user (hash embedder, in-process)`, [
  { call: "Search", ...search.search },
  { call: "Search, question names a date", ...search.searchWithDate },
  { call: "Search as_of", ...search.searchAsOf },
  { call: "PromptBlock 500 tokens", ...search.promptBlock500 },
]);
process.stdout.write(`\nresults: ${writeResults("facts", { extractor, offline, search })}\n`);
