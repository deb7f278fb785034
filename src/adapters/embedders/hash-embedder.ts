import type { Embedder } from "../../ports/embedder.js";

const DIMENSION = 384;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Keeps a bigram's feature apart from the features of its two words. */
const BIGRAM_SALT = 0x9e3779b9;
/** Texts without a single word get the feature of this reserved "word", so cosine stays defined. */
const EMPTY_FEATURE = 0x2545f491;
const NON_ASCII = /[^\x00-\x7f]/;
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

/**
 * Creates the `hash` embedder (model `hashing-v1`): deterministic feature hashing into 384
 * dimensions. It captures shared words only (`semantic: false`), needs no model and is fast
 * enough to embed 100k rows in a benchmark.
 *
 * Algorithm, frozen under the name `hashing-v1` because stored vectors depend on it:
 * 1. NFKC-normalise (non-ASCII text only) and lowercase.
 * 2. Words are maximal runs of Unicode letters, digits and combining marks.
 * 3. A word's feature is its 32-bit FNV-1a hash over UTF-16 code units; a pair of adjacent words
 *    is the feature `(hash(a) * 31 + hash(b)) ^ salt`. Each feature f adds ±1 to one bucket: with
 *    m = fmix32(f) (MurmurHash3's finaliser), bucket `(m & 0x7fffffff) % 384`, sign m's top bit.
 * 4. Buckets are damped sublinearly (`sign(x) * ln(1 + |x|)`), then the vector is L2-normalised.
 * A text with no words (empty, only punctuation) maps to one fixed unit vector.
 */
export function createHashEmbedder(): Embedder {
  const state: State = { acc: new Float64Array(DIMENSION), bmpClass: new Uint8Array(0x10000) };
  return {
    mode: "hash",
    model: "hashing-v1",
    dimension: DIMENSION,
    semantic: false,
    multimodal: false,
    embed(texts) {
      return Promise.resolve(texts.map((text) => embedOne(text, state)));
    },
  };
}

/** Per-embedder scratch space, reused across texts so embedding allocates only the result. */
interface State {
  /** Bucket accumulator. */
  readonly acc: Float64Array;
  /** Memo of the Basic Multilingual Plane: 0 unknown, 1 word character, 2 other. */
  readonly bmpClass: Uint8Array;
}

function embedOne(text: string, state: State): Float32Array {
  const { acc } = state;
  acc.fill(0);
  const normalised = NON_ASCII.test(text) ? text.normalize("NFKC").toLowerCase() : text.toLowerCase();
  accumulate(normalised, state);
  const vector = toUnitVector(acc);
  if (vector) return vector;
  // No words, or every bucket cancelled out: use the fixed vector of the reserved feature.
  acc.fill(0);
  addFeature(acc, EMPTY_FEATURE);
  return toUnitVector(acc) ?? new Float32Array(DIMENSION);
}

/** Hashes the words and adjacent-word bigrams of `text` into `state.acc`. */
function accumulate(text: string, state: State): void {
  const { acc, bmpClass } = state;
  let words = 0;
  let previous = 0;
  let hash = FNV_OFFSET;
  let inWord = false;
  const length = text.length;
  for (let i = 0; i <= length; i++) {
    const code = i < length ? text.charCodeAt(i) : 0;
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < length ? 2 : 1;
    if (i < length && isWordChar(text, i, code, width, bmpClass)) {
      if (!inWord) hash = FNV_OFFSET;
      inWord = true;
      hash = Math.imul(hash ^ code, FNV_PRIME);
      if (width === 2) {
        hash = Math.imul(hash ^ text.charCodeAt(i + 1), FNV_PRIME);
        i++;
      }
      continue;
    }
    if (!inWord) continue;
    inWord = false;
    addFeature(acc, hash);
    if (words > 0) addFeature(acc, (Math.imul(previous, 31) + hash) ^ BIGRAM_SALT);
    previous = hash;
    words++;
  }
}

function addFeature(acc: Float64Array, hash: number): void {
  const mixed = fmix32(hash);
  acc[(mixed & 0x7fffffff) % DIMENSION] += mixed < 0 ? -1 : 1;
}

/** MurmurHash3's finaliser: spreads FNV's weak high bits before we take bucket and sign. */
function fmix32(value: number): number {
  let h = value ^ (value >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function isWordChar(text: string, i: number, code: number, width: number, bmpClass: Uint8Array): boolean {
  // The text is already lowercased: ASCII words are [0-9a-z].
  if (code < 128) return (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a);
  if (width === 2) return WORD_CHAR.test(text.slice(i, i + 2));
  let known = bmpClass[code];
  if (known === 0) {
    known = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
    bmpClass[code] = known;
  }
  return known === 1;
}

/** Damps and L2-normalises `acc` into a new vector; undefined when every bucket is zero. */
function toUnitVector(acc: Float64Array): Float32Array | undefined {
  let sumSquares = 0;
  for (let i = 0; i < DIMENSION; i++) {
    const x = acc[i];
    const damped = x === 0 ? 0 : Math.sign(x) * Math.log1p(Math.abs(x));
    acc[i] = damped;
    sumSquares += damped * damped;
  }
  if (sumSquares === 0) return undefined;
  const out = new Float32Array(DIMENSION);
  const scale = 1 / Math.sqrt(sumSquares);
  for (let i = 0; i < DIMENSION; i++) out[i] = acc[i] * scale;
  return out;
}
