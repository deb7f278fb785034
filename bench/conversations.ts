// Conversations bench: one end-user with N conversations (default 1,000, each with a short
// exchange), then ListConversations walked page by page (50 a page, newest activity first) over
// HTTP/2 on loopback against a server process (`agentmem serve --embedder hash`, built as
// `npm start` runs it). Also times GetConversation, ListMessages and AppendMessages. Prints a
// table and writes bench/results/conversations.json.
// Usage: npm run bench:conversations -- [--conversations 1000] [--rounds 10] [--page 50]
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ConversationService } from "../src/gen/agentmem/v1/conversation_service_pb.js";
import { startServerProcess } from "./support/server-process.js";
import { pool, printTable, since, summarize } from "./support/stats.js";

const { values } = parseArgs({
  options: { conversations: { type: "string", default: "1000" }, rounds: { type: "string", default: "10" }, page: { type: "string", default: "50" } },
});
const COUNT = Number(values.conversations);
const ROUNDS = Number(values.rounds);
const PAGE = Number(values.page);

const dir = await mkdtemp(join(tmpdir(), "agentmem-conversations-"));
const server = await startServerProcess({ data: dir });
const client = createClient(ConversationService, createConnectTransport({ baseUrl: server.url, httpVersion: "2", useBinaryFormat: true }));
const scope = { user: "bench-user", agent: "assistant" };

const load0 = loadavg()[0];
const fill = performance.now();
const ids: string[] = [];
const appends: number[] = [];
await pool(COUNT, 8, async (i) => {
  const c = await client.createConversation({ scope, metadata: { topic: i % 2 === 0 ? "travel" : "work" } });
  ids.push(c.conversation!.id);
  const t = performance.now();
  await client.appendMessages({
    scope,
    conversationId: c.conversation!.id,
    messages: [
      { role: "user", content: `Question ${i}: what should I pack for a trip to city ${i}?` },
      { role: "assistant", content: `For city ${i}, pack light layers.`, trace: { model: "bench-model", inputTokens: 120n, outputTokens: 12n, latencyMs: 300n } },
    ],
  });
  appends.push(since(t));
});
const fillSeconds = since(fill) / 1000;

const pages: number[] = [];
const firstPages: number[] = [];
let listed = 0;
for (let r = 0; r < ROUNDS; r++) {
  let token = "";
  let n = 0;
  do {
    const t = performance.now();
    const page = await client.listConversations({ scope, pageSize: PAGE, pageToken: token });
    const ms = since(t);
    pages.push(ms);
    if (n === 0) firstPages.push(ms);
    listed += page.conversations.length;
    token = page.nextPageToken;
    n++;
  } while (token);
}
if (listed !== COUNT * ROUNDS) throw new Error(`listed ${listed} conversations, expected ${COUNT * ROUNDS}`);

const filtered: number[] = [];
for (let r = 0; r < ROUNDS * 5; r++) {
  const t = performance.now();
  await client.listConversations({ scope, pageSize: PAGE, metadata: { topic: "travel" } });
  filtered.push(since(t));
}
const gets: number[] = [];
const messages: number[] = [];
for (let i = 0; i < ROUNDS * 20; i++) {
  const id = ids[(i * 37) % ids.length];
  let t = performance.now();
  await client.getConversation({ scope, conversationId: id });
  gets.push(since(t));
  t = performance.now();
  await client.listMessages({ scope, conversationId: id });
  messages.push(since(t));
}

const table = [
  { op: `ListConversations page of ${PAGE} (all pages)`, ...summarize(pages) },
  { op: `ListConversations first page`, ...summarize(firstPages) },
  { op: `ListConversations metadata filter`, ...summarize(filtered) },
  { op: "GetConversation", ...summarize(gets) },
  { op: "ListMessages (2 messages)", ...summarize(messages) },
  { op: "AppendMessages (2, 8 in flight)", ...summarize(appends) },
];
printTable(`${COUNT} conversations of one end-user (ms; fill ${fillSeconds.toFixed(1)} s)`, table);
const result = {
  date: new Date().toISOString(),
  command: `npm run bench:conversations -- --conversations ${COUNT} --rounds ${ROUNDS} --page ${PAGE}`,
  cores: availableParallelism(),
  load: { start: load0, end: loadavg()[0] },
  note: "shared machine; server process on loopback (HTTP/2, binary Connect), hash embedder, LanceDB in a temp dir",
  conversations: COUNT,
  fillSeconds,
  table,
};
const out = join(import.meta.dirname, "results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "conversations.json"), `${JSON.stringify(result, null, 2)}\n`);
await server.stop();
await rm(dir, { recursive: true, force: true });
