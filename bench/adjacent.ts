/**
 * The adjacent-turn read of a recall for an end-user not held (the engine path), on one table the
 * size of a shard of a 1M ingest: ~125k memory rows written through the real store (hash
 * embedder, no row cache, one table), one commit per end-user and a maintenance pass (`optimize`:
 * compaction and index update) every 16 users. Measured twice: before the last pass
 * ("ingesting": the newest fragments neither compacted nor indexed) and after it ("settled").
 * For a few hundred random end-users the candidates come from the recall's own two searches
 * (3×k each); then the read of the turns at position ± 1 is timed, in random order per recall:
 *
 * - `position`: `trace_number IN … AND (exact scope … OR …)` and the recall's filter (rows stored
 *   without a key still read this way);
 * - `key`: `turn_key IN (…)` and the recall's filter (what `adjacentTurns` reads now);
 * - `key alone`: `turn_key IN (…)` with only the end-user (the filter would be checked in JS);
 * - `id`: `id IN (…)` of the same rows and the recall's filter (the btree lookup it is measured against);
 * - `…: id column`, `key: no vector`: the same reads selecting less (what reading whole rows costs).
 *
 *   nice -n 10 npm run bench:adjacent                          # 125 users × 1,000 rows, 300 recalls
 *   nice -n 10 npm run bench:adjacent -- --sessions 20             # each user's turns in 20 sessions of 50
 *   nice -n 10 npm run bench:adjacent -- --users 50 --queries 100
 *
 * Prints a table and writes bench/results/adjacent.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { LanceStore } from "../src/adapters/lancedb/lance-store.js";
import type { LanceCollection } from "../src/adapters/lancedb/lance-collection.js";
import { type Condition, where } from "../src/core/condition.js";
import type { MemoryRecord } from "../src/core/records.js";
import { recallCondition } from "../src/services/memory/recall.js";
import { byPosition, byTurnKey } from "../src/services/memory/neighbours.js";
import { createRandom, createVocabulary, query, sentence, userId } from "./support/corpus.js";
import { benchRecord } from "./support/raw-lance.js";
import { printTable, since, summarize, type Summary, writeResults } from "./support/stats.js";

const { values: args } = parseArgs({
  options: {
    users: { type: "string", default: "125" },
    "per-user": { type: "string", default: "1000" },
    queries: { type: "string", default: "300" },
    k: { type: "string", default: "10" },
    /** Users written between two maintenance passes; the table is measured before the last pass ("ingesting") and after it ("settled"). */
    "settle-every": { type: "string", default: "16" },
    /** Sessions per end-user, each numbered from 1 (1: one scope per user, as bench:scale writes). */
    sessions: { type: "string", default: "1" },
  },
});
const users = Number(args.users);
const perUser = Number(args["per-user"]);
const queries = Number(args.queries);
const k = Number(args.k);
const settleEvery = Number(args["settle-every"]);
const sessions = Number(args.sessions);
const perSession = Math.ceil(perUser / sessions);

const embedder = createHashEmbedder();
const dir = await mkdtemp(join(tmpdir(), "agentmem-adjacent-"));
const store = new LanceStore({ uri: dir, dimension: embedder.dimension, hotRowsBytes: 0, tableShards: 1 });
const TENANT = "bench";

const WAYS = ["position", "key", "key alone", "id", "position: id column", "key: id column", "key: no vector"] as const;
let mismatches = 0;

/** Times each read for `queries` random recalls after 20 unrecorded ones; counts key reads that differ from the position read. */
async function measure(memories: LanceCollection<MemoryRecord>, vocabulary: ReturnType<typeof createVocabulary>): Promise<Record<string, Summary & { rows: number }>> {
  const random = createRandom(42);
  const samples = new Map<string, number[]>(WAYS.map((w) => [w, []]));
  const found = new Map<string, number[]>(WAYS.map((w) => [w, []]));
  const warmup = 20;
  for (let q = 0; q < warmup + queries; q++) {
    const user = userId(Math.floor(random() * users));
    const text = query(vocabulary, random);
    const reads = memories.forUser(user);
    const condition = recallCondition({ key: { namespace: "", agent: "", session: "", user }, query: text, k, factTypes: [], tags: {}, includeHistory: false });
    const [vector] = await embedder.embed([text]);
    const [byVector, byWords] = await Promise.all([reads.nearest(vector, condition, 3 * k, { withoutVector: true }), reads.match(text, condition, 3 * k)]);
    const candidates = [...new Map([...byVector, ...byWords].map((h) => [h.row.id, h.row])).values()];
    const keyed = byTurnKey(candidates);
    const positioned = byPosition(candidates);
    if (!keyed || !positioned) continue;
    const reference = await reads.find(where.and(condition, positioned), { withoutVector: true });
    const conditions: Record<"position" | "key" | "key alone" | "id", Condition> = {
      position: where.and(condition, positioned),
      key: where.and(condition, keyed),
      "key alone": keyed,
      id: where.and(condition, where.in("id", reference.map((r) => r.id))),
    };
    const read = (way: (typeof WAYS)[number]) => {
      if (way === "position: id column") return reads.project(conditions.position, ["id"]);
      if (way === "key: id column") return reads.project(conditions.key, ["id"]);
      if (way === "key: no vector") return reads.find(conditions.key, { withoutVector: true });
      return reads.find(conditions[way]);
    };
    for (const way of [...WAYS].sort(() => random() - 0.5)) {
      const t = performance.now();
      const rows = await read(way);
      const ms = since(t);
      if (q < warmup) continue;
      samples.get(way)!.push(ms);
      found.get(way)!.push(rows.length);
      if (way === "key" && rows.map((r) => String(r.id)).sort().join() !== reference.map((r) => r.id).sort().join()) mismatches++;
    }
  }

  const summaries: Record<string, Summary & { rows: number }> = {};
  for (const way of WAYS) {
    const n = found.get(way)!;
    summaries[way] = { ...summarize(samples.get(way)!), rows: Math.round((n.reduce((a, b) => a + b, 0) / Math.max(1, n.length)) * 10) / 10 };
  }
  return summaries;
}

try {
  const memories = (await store.memories(TENANT)) as LanceCollection<MemoryRecord>;
  const vocabulary = createVocabulary(5000);
  const started = performance.now();
  const now = Date.now();
  for (let u = 0; u < users; u++) {
    const random = createRandom(1000 + u);
    const user = userId(u);
    const texts = Array.from({ length: perUser }, () => sentence(vocabulary, random));
    const vectors = await embedder.embed(texts);
    // Positions 1, 2, … in each session, a minute apart (as RememberBatch numbers a transcript).
    const rows = texts.map((t, i) => ({
      ...benchRecord(user, i, t, vectors[i], now),
      session: sessions > 1 ? `s${Math.floor(i / perSession)}` : "",
      traceNumber: (i % perSession) + 1,
      validFrom: now + i * 60_000,
    }));
    for (let i = 0; i < rows.length; i += 1000) await memories.append(rows.slice(i, i + 1000));
    // Maintenance under ingest: every `settleEvery` users compacted and indexed; the last ones not yet.
    if ((u + 1) % settleEvery === 0) await memories.maintain((table) => table.optimize());
  }
  const ingestSeconds = since(started) / 1000;

  const phases = { ingesting: await measure(memories, vocabulary) } as Record<string, Record<string, Summary & { rows: number }>>;
  await memories.maintain((table) => table.optimize());
  phases.settled = await measure(memories, vocabulary);
  for (const [phase, summaries] of Object.entries(phases)) {
    printTable(
      `Adjacent-turn read, ${phase}: ${users * perUser} rows (${users} users × ${perUser} in ${sessions} session(s)), ${queries} recalls k=${k}, engine path (ms)`,
      WAYS.map((w) => ({ read: w, p50: summaries[w].p50, p90: summaries[w].p90, p99: summaries[w].p99, "rows/read": summaries[w].rows })),
    );
  }
  console.log(`key read ≠ position read in ${mismatches} recalls; ingest ${ingestSeconds.toFixed(1)} s`);
  writeResults("adjacent", { users, perUser, sessions, queries, k, settleEvery, ingestSeconds, mismatches, phases });
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
}
