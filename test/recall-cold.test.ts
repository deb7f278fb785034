import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { loadConfig } from "../src/config.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { type RunningServer, startServer } from "../src/compose/start-server.js";

let dir: string;
const servers: RunningServer[] = [];

/** A real server on a loopback port over `dir` (a second one over the same directory stands for a restart). */
async function serve(): Promise<RunningServer> {
  const config = loadConfig({ data: dir, port: 0, embedder: "hash" }, { AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "silent", AGENTMEM_MAINTENANCE_SECONDS: "0" });
  const server = await startServer(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
  servers.push(server);
  return server;
}

const client = (s: RunningServer) => createClient(MemoryService, createConnectTransport({ baseUrl: s.url, httpVersion: "1.1" }));

/** One hot-row counter as `GET /metrics` shows it. */
async function counter(s: RunningServer, name: string): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`agentmem_hot_rows{counter="${name}"}`));
  return Number(line?.split(" ")[1] ?? NaN);
}

const DAY = 86_400_000;
const TURNS = [
  ["Caroline", "Which instruments do you play in the orchestra?"],
  ["Melanie", "Yeah, clarinet since I was young."],
  ["Caroline", "Cool! Do you practise every day?"],
  ["Melanie", "Mostly weekends, my neighbours complain about the noise."],
  ["Caroline", "Our dog Biscuit hates the vacuum cleaner too."],
  ["Melanie", "We adopted a cat last spring, she sleeps on the piano."],
  ["Caroline", "I am training for the Berlin marathon in April."],
  ["Melanie", "Running that far sounds hard on the knees."],
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-cold-"));
  const first = await serve();
  const c = client(first);
  const at = (i: number) => timestampFromMs(Date.UTC(2025, 0, 1) + i * DAY);
  await c.rememberBatch({
    items: TURNS.map(([name, content], i) => ({ scope: { user: "mel", session: "s1" }, name, content, traceNumber: BigInt(i + 1), observedAt: at(i) })),
  });
  await c.add({ scope: { user: "mel" }, observedAt: at(10), messages: [{ role: "user", name: "Melanie", content: "I live in London and work as a nurse." }] });
  await c.add({ scope: { user: "mel" }, observedAt: at(40), messages: [{ role: "user", name: "Melanie", content: "Big news: I just moved from London to Paris." }] });
  await first.close();
});

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe("Recall for an end-user whose rows are not held", () => {
  // The cold recall records uses of its hits, which the warm one then sees in salience (use counts
  // count at once, see AccessTracker): salience 0 compares the two retrieval paths alone.
  const weights = { salience: 0 };
  const requests = [
    { scope: { user: "mel" }, query: "Which instruments does Melanie play in the orchestra?", k: 4, weights },
    { scope: { user: "mel" }, query: "where does Melanie live now", k: 3, includeHistory: true, weights },
    { scope: { user: "mel" }, query: "pets at home: dog, cat, piano", k: 5, weights },
    // The session's filter applies to the turns read by key next to the candidates too.
    { scope: { user: "mel", session: "s1" }, query: "Berlin marathon training in April", k: 2, weights },
  ];

  it("answers from the engine without loading the user first, then from memory with the same answer", async () => {
    for (const req of requests) {
      // A fresh server holds no end-user: the first recall is cold.
      const server = await serve();
      const c = client(server);
      const cold = await c.recall(req);
      // Its reads went to the engine (vector and word search at least) and none was served from memory.
      expect(await counter(server, "cold_reads")).toBeGreaterThanOrEqual(2);
      expect(await counter(server, "hits")).toBe(0);
      // A plain recall costs what raw LanceDB's hybrid query costs plus one lookup: the two searches
      // and one read of the memory rows next to the candidates (context channel); no transcript scan,
      // no episode reads. Supersede chains (include_history) add one read per step.
      if (!req.includeHistory) expect(await counter(server, "cold_reads")).toBe(3);
      // A user read once is not loaded (a load is a scan of all their rows; most users of a large
      // service are read once in a while)…
      await server.app.store.warmed();
      expect(await counter(server, "warms")).toBe(0);
      // …read again (after the window in which one recall's reads count once), they are: after the answer, in the background.
      await new Promise((r) => setTimeout(r, 1_050));
      const again = await c.recall(req);
      await server.app.store.warmed();
      expect(await counter(server, "warms")).toBeGreaterThanOrEqual(1);
      const coldReads = await counter(server, "cold_reads");
      const warm = await c.recall(req);
      expect(await counter(server, "cold_reads")).toBe(coldReads); // served from memory
      expect(await counter(server, "hits")).toBeGreaterThan(0);

      const ids = (r: typeof cold) => r.hits.map((h) => h.id);
      expect(ids(cold).length).toBeGreaterThan(0);
      expect(ids(cold)).toEqual(ids(warm));
      expect(ids(again)).toEqual(ids(warm));
      expect(cold.hits.map((h) => h.history.map((m) => m.id))).toEqual(warm.hits.map((h) => h.history.map((m) => m.id)));
      // Raw cosine agrees; the fused score may not to the digit: the engine's BM25 weighs words by
      // the whole table's statistics, the cache by the end-user's own rows (docs/operations.md).
      cold.hits.forEach((h, j) => expect(h.components?.similarity).toBeCloseTo(warm.hits[j].components?.similarity ?? NaN, 4));
      if (req === requests[0]) expect(cold.hits.map((h) => h.memory)).toContain("Yeah, clarinet since I was young."); // an adjacent turn
      if (req === requests[1]) expect(cold.hits.some((h) => h.history.some((m) => m.text.includes("London")))).toBe(true); // a chain
      await server.close();
    }
  });

  it("does not read another end-user's rows on the cold path", async () => {
    const server = await serve();
    const res = await client(server).recall({ scope: { user: "someone-else" }, query: "clarinet orchestra", k: 5 });
    expect(res.hits).toEqual([]);
    await server.close();
  });
});
