/**
 * Per-user vector search: the exact prefiltered scan agentmem runs for a read that names an
 * end-user, against LanceDB's IVF-PQ index with the same user prefilter, on one raw LanceDB table.
 *
 *   npm run bench:vector-index                              # 1M rows (1,000 users × 1,000)
 *   npm run bench:vector-index -- --users 100 --queries 100 # a quick look (100k rows)
 *
 * Rows are the bench corpus (`support/corpus.ts`) with the hash embedder, written in 10k-row
 * batches, btree on `user`, compacted. Per query (a random user, a random query): top 10 by exact
 * cosine among the user's rows (`bypassVectorIndex`), then the same through IVF-PQ (default
 * partitions, cosine) with `nprobes` 20 and 50, with and without a refine step (`refineFactor` 5:
 * the index's candidates re-ranked by exact distance). recall@10 is the share of the exact top 10
 * each one returns. Prints a table and writes bench/results/vector-index.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { memoryCodec, memorySchema } from "../src/adapters/lancedb/memory-codec.js";
import { rowsToArrow } from "../src/adapters/lancedb/arrow-batch.js";
import { benchRecord } from "./support/raw-lance.js";
import { createRandom, createVocabulary, query, sentence, userId } from "./support/corpus.js";
import { printTable, since, summarize, writeResults } from "./support/stats.js";

const { values: args } = parseArgs({
  options: {
    users: { type: "string", default: "1000" },
    "per-user": { type: "string", default: "1000" },
    queries: { type: "string", default: "200" },
  },
});
const users = Number(args.users);
const perUser = Number(args["per-user"]);
const queries = Number(args.queries);
const k = 10;

const embedder = createHashEmbedder();
const vocabulary = createVocabulary(5000);
const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-vector-index-"));
try {
  const db = await lancedb.connect(dir);
  const schema = memorySchema(embedder.dimension);
  const table = await db.createEmptyTable("memories", schema);
  const now = Date.now();
  let started = performance.now();
  let batch: Record<string, unknown>[] = [];
  for (let u = 0; u < users; u++) {
    const random = createRandom(1000 + u);
    const texts = Array.from({ length: perUser }, () => sentence(vocabulary, random));
    const vectors = await embedder.embed(texts);
    for (let i = 0; i < perUser; i++) batch.push(memoryCodec.toRow(benchRecord(userId(u), i, texts[i], vectors[i], now)));
    if (batch.length >= 10_000 || u === users - 1) {
      await table.add(rowsToArrow(batch, schema));
      batch = [];
    }
  }
  await table.createIndex("user", { config: lancedb.Index.btree() });
  await table.optimize();
  const writeSeconds = since(started) / 1000;
  started = performance.now();
  await table.createIndex("vector", { config: lancedb.Index.ivfPq({ distanceType: "cosine" }) });
  const indexSeconds = since(started) / 1000;
  process.stdout.write(`${users * perUser} rows written in ${writeSeconds.toFixed(0)} s; IVF-PQ built in ${indexSeconds.toFixed(0)} s\n`);

  type Variant = { name: string; search: (v: number[], filter: string) => Promise<string[]> };
  const ids = async (q: lancedb.VectorQuery) => ((await q.select(["id", "_distance"]).toArray()) as { id: string }[]).map((r) => r.id);
  const base = (v: number[], filter: string) => table.vectorSearch(v).column("vector").distanceType("cosine").where(filter).limit(k);
  const variants: Variant[] = [
    { name: "exact scan (agentmem)", search: (v, f) => ids(base(v, f).bypassVectorIndex()) },
    { name: "IVF-PQ nprobes 20", search: (v, f) => ids(base(v, f).nprobes(20)) },
    { name: "IVF-PQ nprobes 50", search: (v, f) => ids(base(v, f).nprobes(50)) },
    { name: "IVF-PQ nprobes 20, refine 5", search: (v, f) => ids(base(v, f).nprobes(20).refineFactor(5)) },
    { name: "IVF-PQ nprobes 50, refine 5", search: (v, f) => ids(base(v, f).nprobes(50).refineFactor(5)) },
  ];
  const times = new Map(variants.map((x) => [x.name, [] as number[]]));
  const recalls = new Map(variants.map((x) => [x.name, [] as number[]]));
  const random = createRandom(42);
  for (let q = 0; q < queries + 10; q++) {
    const filter = `user = '${userId(Math.floor(random() * users))}'`;
    const [vector] = await embedder.embed([query(vocabulary, random)]);
    const v = Array.from(vector);
    let exact: Set<string> | undefined;
    for (const variant of variants) {
      const t = performance.now();
      const found = await variant.search(v, filter);
      const ms = since(t);
      exact ??= new Set(found);
      if (q < 10) continue; // warm-up
      times.get(variant.name)!.push(ms);
      recalls.get(variant.name)!.push(exact.size === 0 ? 1 : found.filter((id) => exact!.has(id)).length / exact.size);
    }
  }
  const rows = variants.map((x) => {
    const s = summarize(times.get(x.name)!);
    const r = recalls.get(x.name)!;
    return { rows: users * perUser, users, search: x.name, "p50 ms": s.p50, "p99 ms": s.p99, "recall@10": r.reduce((a, b) => a + b, 0) / r.length };
  });
  printTable(`per-user vector search k=${k} (one raw LanceDB table, btree on user, prefiltered; ${queries} random users)`, rows);
  writeResults("vector-index", { args, writeSeconds, indexSeconds, rows });
} finally {
  await rm(dir, { recursive: true, force: true });
}
