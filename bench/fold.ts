/**
 * One maintenance pass over a `memories` table the size of a shard of a 1M ingest, with and
 * without a fold (`src/adapters/lancedb/fragment-fold.ts`). The table (real store, hash embedder,
 * FTS and its btrees, one shard) holds a compacted, indexed base of `--base` rows, a second
 * indexed fragment of `--second` rows (what one earlier pass compacted), and `--fresh` new
 * commits of 1,000 rows; then one pass is timed:
 *
 * - `fold`: the fragments besides the base are moved into one (an engine `update`), and the
 *   `optimize` after it folds them into the indexes without rewriting the base;
 * - `full rewrite`: `optimize` alone (`foldBytes: 0`), which rewrites base and delta together.
 *
 *   nice -n 10 npm run bench:fold                                  # 80k + 20k + 25 × 1,000 rows, 2 rounds
 *   nice -n 10 npm run bench:fold -- --base 200000 --second 40000 --fresh 40
 *
 * Prints a table and writes bench/results/fold.json.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { LanceStore, MEMORIES } from "../src/adapters/lancedb/lance-store.js";
import { Maintainer } from "../src/adapters/lancedb/maintenance.js";
import type { LanceCollection } from "../src/adapters/lancedb/lance-collection.js";
import type { MemoryRecord } from "../src/core/records.js";
import { createRandom, createVocabulary, sentence, userId } from "./support/corpus.js";
import { benchRecord } from "./support/raw-lance.js";
import { printTable, writeResults } from "./support/stats.js";

const { values: args } = parseArgs({
  options: {
    base: { type: "string", default: "80000" },
    second: { type: "string", default: "20000" },
    fresh: { type: "string", default: "25" },
    rounds: { type: "string", default: "2" },
  },
});
const base = Number(args.base);
const second = Number(args.second);
const fresh = Number(args.fresh);
const rounds = Number(args.rounds);
const embedder = createHashEmbedder();
const vocabulary = createVocabulary(5000);
const silent = pino({ level: "silent" });

async function rows(from: number, count: number) {
  const random = createRandom(from + 1);
  const texts = Array.from({ length: count }, () => sentence(vocabulary, random));
  const vectors = await embedder.embed(texts);
  return texts.map((text, i) => benchRecord(userId((from + i) % 1000), from + i, text, vectors[i], 1_700_000_000_000 + from + i));
}

/** Builds the table and times one pass; resolves with its figures. */
async function pass(way: "fold" | "full rewrite") {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-fold-"));
  const store = new LanceStore({ uri: dir, dimension: embedder.dimension, hotRowsBytes: 0, tableShards: 1 });
  try {
    const memories = await store.collection("bench", MEMORIES);
    const settle = new Maintainer(store, silent, { intervalMs: 0, foldBytes: 0 });
    for (let at = 0; at < base; at += 5000) await memories.upsert(await rows(at, Math.min(5000, base - at)));
    await settle.runOnce(true);
    for (let at = base; at < base + second; at += 5000) await memories.upsert(await rows(at, Math.min(5000, base + second - at)));
    await settle.runOnce(true);
    for (let f = 0; f < fresh; f++) await memories.upsert(await rows(base + second + f * 1000, 1000));
    const table = (memories as unknown as { engine: LanceCollection<MemoryRecord> }).engine.lanceTable;
    const before = (await table.stats()).fragmentStats.numFragments;
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, ...(way === "fold" ? {} : { foldBytes: 0 }) });
    const started = performance.now();
    await maintainer.runOnce(true);
    const ms = performance.now() - started;
    const c = maintainer.counters;
    return { way, ms, "fragments before": before, "fragments after": (await table.stats()).fragmentStats.numFragments, folds: c.folds, "rows rewritten": c.rowsRewritten, "MiB rewritten": c.bytesRewritten / 2 ** 20 };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

process.stdout.write(`== fold: base ${base} + indexed ${second} + ${fresh} × 1,000 fresh rows, ${rounds} rounds\n`);
const results = [];
for (let r = 0; r < rounds; r++) for (const way of ["fold", "full rewrite"] as const) results.push({ round: r + 1, ...(await pass(way)) });
printTable("one maintenance pass", results);
process.stdout.write(`\nwrote ${writeResults("fold", { args, results })}\n`);
