import { stem } from "../../core/stem.js";

// The analyzer of LanceDB's default full-text index (the settings `indexStats` reports for
// `Index.fts()`: simple tokenizer, tokens under 40 bytes, lowercase, English Snowball stemmer,
// English stop words, ASCII folding), in the same order, so in-memory BM25 sees the same terms.
// Verified against the engine: stemming runs before the stop-word filter ("being" → "be" is dropped).

/** Tantivy's English stop words (the list LanceDB's `remove_stop_words` uses). */
const STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(" "),
);
const MAX_TOKEN_BYTES = 40;
const TOKEN = /[\p{Alphabetic}\p{N}]+/gu;
const COMBINING = /[\u0300-\u036f]/g;
const NON_ASCII = /[^\x00-\x7f]/;

function fold(term: string): string {
  return NON_ASCII.test(term) ? term.normalize("NFKD").replace(COMBINING, "") : term;
}


// A stored turn is indexed twice in a row (its memory and its transcript row, same text): keep
// the latest short texts' terms.
const recent = new Map<string, readonly string[]>();
const MAX_RECENT = 4096;
const MAX_RECENT_LENGTH = 2000;

/** The index terms of a text, in order, duplicates kept (term frequency counts them). */
export function ftsTerms(text: string): readonly string[] {
  if (text.length > MAX_RECENT_LENGTH) return analyze(text);
  let terms = recent.get(text);
  if (terms === undefined) {
    if (recent.size >= MAX_RECENT) recent.clear();
    recent.set(text, (terms = analyze(text)));
  }
  return terms;
}

function analyze(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    if (Buffer.byteLength(token) >= MAX_TOKEN_BYTES) continue;
    const stemmed = stem(token.toLowerCase());
    if (STOP_WORDS.has(stemmed)) continue;
    out.push(fold(stemmed));
  }
  return out;
}
