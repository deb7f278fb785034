import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { reembedStore } from "../src/cli/reembed.js";
import { openDataDirectory } from "../src/compose/data-directory.js";
import { loadConfig } from "../src/config.js";
import { where } from "../src/core/condition.js";
import { turnKey } from "../src/core/turn-key.js";
import { MemoryService } from "../src/gen/agentmem/v1/memory_service_pb.js";
import { type RunningServer, startServer } from "../src/compose/start-server.js";

// Memory rows carry their turn's position (`trace_number`) and its key (`turn_key`, btree-indexed),
// so a recall finds the turns next to its candidates in one indexed lookup of memory rows. Tables
// written before a column existed get it added (all null) when opened: rows without a key are
// found by position, rows without a position through the episodes; the answers stay the same.

let dir: string;
const servers: RunningServer[] = [];
// A table written before the column existed is from before shards too: one `memories__<tenant>`
// table per tenant (`AGENTMEM_TABLE_SHARDS=1` lays new tenants out that way).

async function serve(hotRowsMb = "512"): Promise<RunningServer> {
  const config = loadConfig(
    { data: dir, port: 0, embedder: "hash" },
    { AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "silent", AGENTMEM_MAINTENANCE_SECONDS: "0", AGENTMEM_HOT_ROWS_MB: hotRowsMb, AGENTMEM_HOT_ROWS_ADMIT_READS: "1", AGENTMEM_TABLE_SHARDS: "1" },
  );
  const server = await startServer(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
  servers.push(server);
  return server;
}

const client = (s: RunningServer) => createClient(MemoryService, createConnectTransport({ baseUrl: s.url, httpVersion: "1.1" }));

const DAY = 86_400_000;
const at = (i: number) => timestampFromMs(Date.UTC(2025, 0, 1) + i * DAY);
const TURNS = [
  ["Caroline", "Which instruments do you play in the orchestra?"],
  ["Melanie", "Yeah, clarinet since I was young."],
  ["Caroline", "Cool! Do you practise every day?"],
  ["Melanie", "Mostly weekends, my neighbours complain about the noise."],
  ["Caroline", "Did you go to the lake on Saturday?"],
  ["Melanie", "Yes, we took the kayak out at sunrise."],
];
// The question names words of the question turn, not of its answer: the answer comes in as the adjacent turn.
const REQUEST = { scope: { user: "mel" }, query: "Which instruments does Melanie play in the orchestra?", k: 4, weights: { salience: 0 } };
const SUNRISE = { scope: { user: "mel" }, query: "Did Melanie go to the lake on Saturday?", k: 4, weights: { salience: 0 } };

/** The memory rows of the transcript turns (the fillers of session s0 left out). */
async function memoryRows(server: RunningServer) {
  return (await server.app.store.memories("default")).find(where.and(where.eq("user", "mel"), where.ne("session", "s0")), { withoutVector: true });
}

/** The `memories` table as LanceDB holds it: the turns' positions and keys, and its indexed columns. */
async function rawTable() {
  const db = await lancedb.connect(dir);
  try {
    const table = await db.openTable("memories__default");
    const rows = (await table.query().where("session <> 's0'").select(["text", "session", "trace_number", "turn_key"]).toArray()) as { text: string; session: string; trace_number: number | null; turn_key: number | null }[];
    const indexed = (await table.listIndices()).flatMap((i) => i.columns);
    return { rows, indexed, columns: (await table.schema()).fields.map((f) => f.name) };
  } finally {
    db.close();
  }
}

/**
 * Drops columns from the `memories` table, so it looks like one an older version wrote; with them
 * the row's packed copy (`fields`), which is newer than both and would still hold their values.
 */
async function dropColumns(dropped: string[]) {
  const columns = [...dropped, "fields"];
  const db = await lancedb.connect(dir);
  const table = await db.openTable("memories__default");
  const have = new Set((await table.schema()).fields.map((f) => f.name));
  const present = columns.filter((c) => have.has(c));
  if (present.length > 0) await table.dropColumns(present);
  expect((await table.schema()).fields.map((f) => f.name).filter((c) => columns.includes(c))).toEqual([]);
  db.close();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-positions-"));
  const first = await serve();
  await client(first).rememberBatch({
    items: TURNS.map(([name, content], i) => ({ scope: { user: "mel", session: "s1" }, name, content, traceNumber: BigInt(i + 1), observedAt: at(i) })),
  });
  // Rows without a position that match the questions better than the answers do, so the answers are
  // not among the searches' candidates: only the read of the adjacent turns brings them in.
  await client(first).rememberBatch({
    items: Array.from({ length: 16 }, (_, i) => ({
      scope: { user: "mel", session: "s0" },
      name: "Caroline",
      // Of different lengths, so no two tie in either search (ties may break differently cold and held).
      content: `Which instruments play in the orchestra, and did Melanie go to the lake on Saturday${" again".repeat(i)}?`,
      observedAt: at(30 + i),
    })),
  });
  await first.close();
});

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe("memory rows carry their turn's position", () => {
  let before: string[][];

  it("stores the position on the memory row and finds the adjacent turn by it, cold and held alike", async () => {
    const server = await serve();
    const rows = await memoryRows(server);
    expect(new Map(rows.map((r) => [r.text, r.traceNumber]))).toEqual(new Map(TURNS.map(([, content], i) => [content, i + 1])));
    expect(rows.some((r) => r.unkeyedTurn)).toBe(false);
    // Each turn's key is a hash of its exact scope and position, and the column has a btree index.
    const raw = await rawTable();
    const scope = { namespace: "", agent: "", session: "s1", user: "mel" };
    expect(new Map(raw.rows.map((r) => [r.text, r.turn_key]))).toEqual(new Map(TURNS.map(([, content], i) => [content, turnKey(scope, i + 1)])));
    expect(raw.indexed).toContain("turn_key");
    const c = client(server);
    const cold = [await c.recall(REQUEST), await c.recall(SUNRISE)];
    await server.app.store.warmed();
    const warm = [await c.recall(REQUEST), await c.recall(SUNRISE)];
    before = cold.map((r) => r.hits.map((h) => h.id));
    expect(warm.map((r) => r.hits.map((h) => h.id))).toEqual(before);
    expect(cold[0].hits.map((h) => h.memory)).toContain("Yeah, clarinet since I was young.");
    expect(cold[1].hits.map((h) => h.memory)).toContain("Yes, we took the kayak out at sunrise.");
    // Without the context channel the answers do not come in: the test sees the channel work.
    const off = await c.recall({ ...REQUEST, weights: { salience: 0, context: 0 } });
    expect(off.hits.map((h) => h.id)).not.toEqual(before[0]);
    await server.close();
  });

  it("opens a table written before turn_key existed: adds it with its index, finds the neighbours by position, ranks the same", async () => {
    await dropColumns(["turn_key"]);
    for (const hotRows of ["0", "512"]) {
      const server = await serve(hotRows);
      const rows = await memoryRows(server);
      expect(rows.map((r) => [r.traceNumber !== null, r.unkeyedTurn])).toEqual(rows.map(() => [true, true]));
      const c = client(server);
      const cold = [await c.recall(REQUEST), await c.recall(SUNRISE)];
      expect(cold.map((r) => r.hits.map((h) => h.id))).toEqual(before);
      await server.app.store.warmed();
      const held = [await c.recall(REQUEST), await c.recall(SUNRISE)];
      expect(held.map((r) => r.hits.map((h) => h.id))).toEqual(before);
      await server.close();
    }
    const raw = await rawTable();
    expect(raw.rows.map((r) => r.turn_key)).toEqual(raw.rows.map(() => null));
    expect(raw.indexed).toContain("turn_key");
  });

  it("opens a table written before the column existed: adds it, reads it as not known, ranks the same through the episodes", async () => {
    // Make the table look like an older version's: same rows, neither trace_number nor turn_key.
    await dropColumns(["trace_number", "turn_key"]);

    for (const hotRows of ["0", "512"]) {
      const server = await serve(hotRows);
      const rows = await memoryRows(server);
      expect(rows.map((r) => r.traceNumber)).toEqual(rows.map(() => null));
      const c = client(server);
      const answers = [await c.recall(REQUEST), await c.recall(SUNRISE)];
      expect(answers.map((r) => r.hits.map((h) => h.id))).toEqual(before);
      await server.close();
    }
    const reopened = await lancedb.connect(dir);
    expect((await (await reopened.openTable("memories__default")).schema()).fields.map((f) => f.name)).toContain("trace_number");
    reopened.close();
  });

  it("keeps rows and positions through `reembed`, and new turns on an upgraded table carry theirs", async () => {
    const report = await reembedStore({ uri: dir, open: openDataDirectory, embedder: createHashEmbedder() });
    expect(report.rows).toBeGreaterThan(0);
    const server = await serve();
    expect((await memoryRows(server)).map((r) => r.traceNumber)).toEqual(TURNS.map(() => null));
    const c = client(server);
    expect([await c.recall(REQUEST), await c.recall(SUNRISE)].map((r) => r.hits.map((h) => h.id))).toEqual(before);
    await c.rememberBatch({
      items: [
        { scope: { user: "mel", session: "s2" }, name: "Caroline", content: "What did you cook for the party?", traceNumber: 1n, observedAt: at(20) },
        { scope: { user: "mel", session: "s2" }, name: "Melanie", content: "A huge pot of lentil soup.", traceNumber: 2n, observedAt: at(20) },
      ],
    });
    const fresh = (await memoryRows(server)).filter((r) => r.session === "s2");
    expect(fresh.map((r) => r.traceNumber).sort()).toEqual([1, 2]);
    expect(fresh.map((r) => r.unkeyedTurn)).toEqual([undefined, undefined]);
    const res = await c.recall({ scope: { user: "mel" }, query: "What did Melanie cook for the party?", k: 3, weights: { salience: 0 } });
    expect(res.hits.map((h) => h.memory)).toContain("A huge pot of lentil soup.");
    await server.close();
  });
});
